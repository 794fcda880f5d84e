"""What is timed for one workload: the forward function, the hand-written gradient, s2s_ad's
gradient (and its jvp and hvp), and the peers. Each is prepared once, checked against the
hand-written gradient, and only then handed to the timer."""
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import s2s_ad as ad
from selfcheck import assert_agrees, check_by_hand, dot, random_direction, shifted
from trees import leaves, replace_leaves, tree_map


@dataclass
class Context:
    """One workload's inputs, shared by every contender: `args` on the array library timed
    (CuPy with --cupy), `host_args` in NumPy for the checks."""
    workload: object
    args: tuple
    host_args: tuple
    hand: object                 # the hand-written gradient on host_args, checked by differences
    direction: object            # a random tangent shaped like the differentiated arguments
    sync: Callable = lambda: None
    xp: object = np


@dataclass
class Prepared:
    call: Callable               # what is timed: one gradient (or forward) on the context's args
    numpy_memory: bool = True    # its allocations are NumPy's, which tracemalloc sees
    notes: dict = field(default_factory=dict)


class NotInstalled(Exception):
    pass


class CannotTrace(Exception):
    pass


def make_context(workload, rng, xp=np, sync=lambda: None):
    host_args = workload.make_inputs(rng)
    hand = check_by_hand(workload, host_args, rng)
    args = host_args if xp is np else to_device(host_args, xp)
    direction = random_direction(rng, host_args, workload.wrt)
    return Context(workload, args, host_args, hand, direction, sync, xp)


def to_device(tree, xp):
    return tree_map(lambda x: xp.asarray(x) if isinstance(x, np.ndarray) else x, tree)


def to_host(tree):
    return replace_leaves(tree, [x.get() if hasattr(x, "get") and not isinstance(x, np.ndarray)
                                 else x for x in leaves(tree)])


def forward(ctx):
    return Prepared(lambda: (ctx.workload.function(*ctx.args), ctx.sync()))


def by_hand(ctx):
    return Prepared(lambda: (ctx.workload.by_hand(*ctx.args), ctx.sync()))


def s2s_grad(ctx):
    """The first call after clearing the cache is what a user waits for: transform and run."""
    ad.clear_cache()
    df = ad.grad(ctx.workload.function, wrt=ctx.workload.wrt)
    start = time.perf_counter()
    gradient = df(*ctx.args)
    ctx.sync()
    first_call = time.perf_counter() - start
    assert_agrees("s2s_ad", to_host(gradient), ctx.hand)
    return Prepared(lambda: (df(*ctx.args), ctx.sync()), notes={"first call": first_call})


def s2s_jvp(ctx):
    """Forward mode along one random direction: df.v against the hand-written gradient."""
    df = ad.jvp(ctx.workload.function, wrt=ctx.workload.wrt)
    direction = to_device(ctx.direction, ctx.xp)
    _, tangent = df(*ctx.args, tangent=direction)
    assert_agrees("s2s_ad.jvp", float(to_host(tangent)), dot(ctx.hand, ctx.direction))
    return Prepared(lambda: (df(*ctx.args, tangent=direction), ctx.sync()))


def s2s_hvp(ctx, eps=1e-5):
    """Hessian times a random vector, against central differences of the hand-written gradient."""
    w = ctx.workload
    df = ad.hvp(w.function, wrt=w.wrt)
    vector = to_device(ctx.direction, ctx.xp)
    product = to_host(df(*ctx.args, vector=vector))
    ahead, behind = (w.by_hand(*shifted(ctx.host_args, w.wrt, ctx.direction, s)) for s in (eps, -eps))
    expected = replace_leaves(ctx.hand, [(a - b) / (2 * eps) for a, b in zip(leaves(ahead), leaves(behind))])
    assert_agrees("s2s_ad.hvp", product, expected, rtol=1e-5)
    return Prepared(lambda: (df(*ctx.args, vector=vector), ctx.sync()))


NUMPY_GRADIENTS = {"hand-written": by_hand, "s2s_ad": s2s_grad}
FORWARD_MODE = {"s2s_ad.jvp": s2s_jvp, "s2s_ad.hvp": s2s_hvp}
