"""One benchmark run: for each workload, check every contender, time them round-robin, measure
memory, and collect a row for the report."""
import sys
from dataclasses import dataclass, field

import numpy as np

import fresh
from contenders import (FORWARD_MODE, NUMPY_GRADIENTS, CannotTrace, NotInstalled,
                        forward, make_context)
from measure import peak_bytes, round_robin
from peers import PEERS
from selfcheck import Disagreement


@dataclass
class Options:
    names: list
    repeats: int = 11
    sample_seconds: float = 0.05
    peers: bool = True
    forward_mode: bool = True
    memory: bool = True
    fresh_process: bool = True      # first-call times (s2s_ad, jax.jit) in a fresh process
    jit_limit: float = 120.0
    seed: int = 0
    xp: object = np
    sync: object = lambda: None


@dataclass
class Row:
    name: str
    about: str
    times: dict = field(default_factory=dict)        # contender -> median seconds per call
    status: dict = field(default_factory=dict)       # contender -> why it was not timed
    memory: dict = field(default_factory=dict)       # contender -> peak bytes
    notes: dict = field(default_factory=dict)        # first-call and compile seconds
    problems: list = field(default_factory=list)     # full messages, footnotes to the tables


def contenders_for(options):
    chosen = dict(NUMPY_GRADIENTS)
    if options.peers:
        chosen.update(PEERS)
    if options.forward_mode:
        chosen.update(FORWARD_MODE)
    return chosen


def prepare_all(row, ctx, options):
    prepared = {"forward": forward(ctx)}
    for name, prepare in contenders_for(options).items():
        if name == "jax.jit" and options.fresh_process and not _jit_compiles(row, options):
            continue
        try:
            prepared[name] = prepare(ctx)
            row.notes.update({f"{name} {k}": v for k, v in prepared[name].notes.items()})
        except NotInstalled:
            row.status[name] = "not installed"
        except CannotTrace as exc:
            _refused(row, name, "cannot trace", exc)
        except Disagreement as exc:
            _refused(row, name, "wrong", exc)
        except Exception as exc:             # a peer or s2s_ad refusing the workload
            _refused(row, name, "refused", exc)
    return prepared


def _refused(row, name, status, exc):
    message = str(exc).strip().splitlines()
    row.status[name] = status
    row.problems.append(f"{row.name}, {name}: {type(exc).__name__}: {' / '.join(message[:3])}")


def _jit_compiles(row, options):
    """XLA can take many minutes on a long unrolled loop: try the compilation in a process
    that can be stopped, and compile here only what finished within the limit."""
    seconds = fresh.first_call(row.name, options.seed, fresh.JAX_JIT_COMPILE, options.jit_limit)
    if isinstance(seconds, float):
        row.notes["jax.jit compile"] = seconds
        return True
    if "NotInstalled" in seconds or "ModuleNotFoundError" in seconds:
        row.status["jax.jit"] = "not installed"
    elif seconds.startswith("over"):
        row.status["jax.jit"] = f"compile {seconds}"
        row.problems.append(f"{row.name}, jax.jit: the XLA compilation ran {seconds} "
                            f"(--jit-limit) and was stopped")
    else:
        row.status["jax.jit"] = "cannot trace" if "CannotTrace" in seconds else "refused"
        row.problems.append(f"{row.name}, jax.jit: {seconds}")
    return False


def bench(workload, options):
    row = Row(workload.name, workload.about)
    print(f"{workload.name}: checking", file=sys.stderr, flush=True)
    try:
        ctx = make_context(workload, np.random.default_rng(options.seed), options.xp, options.sync)
    except Disagreement as exc:
        row.problems.append(str(exc))
        row.status["hand-written"] = "wrong"
        return row
    prepared = prepare_all(row, ctx, options)
    if options.fresh_process:
        row.notes["s2s_ad first call"] = fresh.first_call(row.name, options.seed, fresh.S2S_FIRST_CALL, 600)
    print(f"{workload.name}: timing {', '.join(prepared)}", file=sys.stderr, flush=True)
    if options.repeats:
        row.times = round_robin({n: p.call for n, p in prepared.items()}, options.repeats,
                                options.sample_seconds)
    if options.memory:
        row.memory = {n: peak_bytes(p.call) for n, p in prepared.items() if p.numpy_memory}
    return row


def self_check(names, peers=False):
    """Every contender checked, nothing timed: the problems found (an empty list when none)."""
    from workloads import WORKLOADS
    options = Options(names, repeats=0, peers=peers, memory=False, fresh_process=False)
    return [p for name in names for p in bench(WORKLOADS[name], options).problems]
