"""The oracle for differential fuzzing: run one generated program through s2s_ad and judge it.

`check(program, directory)` returns an `Outcome` whose `status` is one of

* "pass":     the gradient matches central finite differences (float64), the value matches the
              function's, the optimized and unoptimized derivatives agree, `vjp` with a seed of
              2 gives twice the gradient, forward mode (`jvp`) satisfies the dot-product
              identity <vjp(u), v> == <u, jvp(v)> or refuses, and, when HIPS autograd is
              installed and can run the program, autograd's gradient agrees to 1e-8;
* "refused":  `grad` raised a `TransformError` (a clear refusal is an acceptable answer), and
              `jvp` refused too or agrees with finite differences along a random tangent;
* "fail":     anything else: a wrong gradient or value, optimizer on/off disagreeing, a crash
              (any other exception) inside the tool, in either mode;
* "disagrees": the gradient (or, where reverse mode refused, jvp) disagrees with finite
              differences, and the estimates at other step sizes disagree with each other too,
              so they cannot say which is right; HIPS autograd did not settle it either (where
              it runs the program and agrees with s2s_ad, the program passes). Never swapped
              for another program: every one is reported;
* "invalid":  the oracle could not judge: every input tried was too close to a kink or branch
              threshold, or overflowed.
              (`error` is set when the *generated program itself* raised, a generator bug.)

Finite differences run on the probe rendering of the program (see generator.py): every
perturbed evaluation must take exactly the decisions the unperturbed one took, so FD never
straddles a branch or a kink.
"""
import copy
import importlib.util
import inspect
import itertools
import math
import os
import re
import sys
import traceback
import warnings
from dataclasses import dataclass, field

import numpy as np

import s2s_ad
from s2s_ad import pipeline
from s2s_ad.errors import TransformError

EPS = 1e-6
RTOL = 1e-6             # gradient vs finite differences
ATOL = 1e-7             # times max(1, largest |FD entry|); never scaled by |f| (issue 15)
OPT_RTOL = 1e-7         # optimized vs unoptimized derivative
MIN_MARGIN = 1e-6       # relative distance from every kink and branch threshold
MAX_VALUE = 1e6         # larger values make FD round-off dominate: draw other inputs
MAX_GRADIENT = 1e6      # FD cannot confirm a wrong gradient when the function is this steep
INPUT_ATTEMPTS = 4

_counter = itertools.count()

# Crashes whose cause is known and pinned by a strict xfail in tests/fuzz/test_regressions.py:
# (bug id, regular expression matched against the failure message). A matching failure is
# reported as "known" instead of "fail". Wrong gradients cannot be recognized this way: the
# generator avoids their triggers instead (generator.KNOWN_BUG_FEATURES).
KNOWN_SIGNATURES = []        # (name, regex) of crashes with a known open bug; none now


# --- the probe: records every non-smooth decision ------------------------------------------------

class Recorder:
    def __init__(self):
        self.reset()

    def reset(self):
        self.trace = []
        self.margin = math.inf
        self.closest = None

    def note(self, decision, margin, kind=""):
        self.trace.append(decision)
        if float(margin) < self.margin:
            self.margin = float(margin)
            self.closest = f"{kind} at probe line {sys._getframe(2).f_lineno}"


def _rel(gap, *values):
    scale = 1.0 + max((float(np.max(np.abs(v))) for v in values), default=0.0)
    return float(np.min(gap)) / scale if np.size(gap) else math.inf


def probe_functions(rec):
    import operator
    ops = {">": operator.gt, "<": operator.lt, ">=": operator.ge, "<=": operator.le}

    def _k_cmp(a, op, b):
        result = ops[op](a, b)
        rec.note(bool(result), _rel(np.abs(np.asarray(a, float) - np.asarray(b, float)), a, b),
                 "comparison")
        return result

    def _k_red(name, x, axis=None, keepdims=False):
        x = np.asarray(x)
        fn = np.max if name == "max" else np.min
        if x.size > 1 and (axis is None or x.shape[axis] > 1):
            arg = np.argmax(x, axis=axis) if name == "max" else np.argmin(x, axis=axis)
            s = np.sort(x, axis=axis) if axis is not None else np.sort(x, axis=None)
            if axis is None:
                gap = (s[-1] - s[-2]) if name == "max" else (s[1] - s[0])
            else:
                s = np.moveaxis(s, axis, -1)
                gap = (s[..., -1] - s[..., -2]) if name == "max" else (s[..., 1] - s[..., 0])
            if np.ndim(x):
                rec.note(tuple(np.ravel(arg).tolist()), _rel(gap, x), name)
        return fn(x, axis=axis, keepdims=keepdims)

    def _k_abs(x):
        rec.note(tuple(np.ravel(np.asarray(x) > 0).tolist()), _rel(np.abs(x), x), "abs")
        return np.abs(x)

    def _k_pair(name, a, b):
        a_, b_ = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float))
        rec.note(tuple(np.ravel(a_ > b_).tolist()), _rel(np.abs(a_ - b_), a_, b_), name)
        return getattr(np, name)(a, b)

    def _k_clip(x, lo, hi):
        x_ = np.asarray(x, float)
        gaps = [np.abs(x_ - b) for b in (lo, hi) if b is not None]
        rec.note(tuple(np.ravel((x_ < lo) if lo is not None else x_ * 0).tolist())
                 + tuple(np.ravel((x_ > hi) if hi is not None else x_ * 0).tolist()),
                 _rel(np.minimum(*gaps) if len(gaps) == 2 else gaps[0], x_), "clip")
        return np.clip(x, lo, hi)

    def _k_where(a, op, c, p, q):
        test = ops[op](a, c)
        rec.note(tuple(np.ravel(test).tolist()),
                 _rel(np.abs(np.asarray(a, float) - np.asarray(c, float)), a, c), "where")
        return np.where(test, p, q)

    def _k_std(x, axis=None, ddof=0):
        rec.note(None, _rel(np.var(x, axis=axis), x), "std")
        return np.std(x, axis=axis, ddof=ddof)

    def _k_norm(x):
        rec.note(None, _rel(np.sqrt(np.sum(np.asarray(x) ** 2)), x), "norm")
        return np.linalg.norm(x)

    def _k_periodic(fn, x):
        # sin(4e13): one ulp of the argument is larger than any FD step, so FD sees noise
        # while the gradient is exact (release seed 1005871); treat a huge argument as a kink
        rec.note(None, 1.0 / (1.0 + float(np.max(np.abs(x), initial=0.0))), "huge sin/cos argument")
        return fn(x)

    return {"_k_cmp": _k_cmp, "_k_red": _k_red, "_k_abs": _k_abs, "_k_pair": _k_pair,
            "_k_clip": _k_clip, "_k_where": _k_where, "_k_std": _k_std, "_k_norm": _k_norm,
            "_k_periodic": _k_periodic}


_PERIODIC = re.compile(r"\bnp\.(sin|cos)\(")


# --- pytrees of arguments --------------------------------------------------------------------------

def flatten(value):
    if isinstance(value, dict):
        return np.concatenate([flatten(v) for v in value.values()]) if value else np.zeros(0)
    if isinstance(value, (tuple, list)):
        return np.concatenate([flatten(v) for v in value]) if value else np.zeros(0)
    return np.ravel(np.asarray(value, dtype=np.float64))


def unflatten(template, vector):
    """A value shaped like `template` with entries from `vector` (floats stay floats)."""
    def build(t, offset):
        if isinstance(t, dict):
            out = {}
            for k, v in t.items():
                out[k], offset = build(v, offset)
            return out, offset
        if isinstance(t, (tuple, list)):
            items = []
            for v in t:
                item, offset = build(v, offset)
                items.append(item)
            return type(t)(items), offset
        size = np.size(t)
        chunk = vector[offset:offset + size]
        if isinstance(t, np.ndarray):
            return chunk.reshape(t.shape).copy(), offset + size
        return float(chunk[0]), offset + size
    value, _ = build(template, 0)
    return value


def same_structure(grad, like):
    """None if `grad` has the structure and shapes of `like`, else what differs."""
    if isinstance(like, dict):
        if not isinstance(grad, dict) or list(grad) != list(like):
            return f"expected a dict with keys {list(like)}, got {type(grad).__name__} " \
                   f"{list(grad) if isinstance(grad, dict) else ''}"
        for k in like:
            problem = same_structure(grad[k], like[k])
            if problem:
                return f"[{k!r}]: {problem}"
        return None
    if isinstance(like, (tuple, list)):
        if not isinstance(grad, (tuple, list)) or len(grad) != len(like):
            return f"expected a {type(like).__name__} of {len(like)}, got {type(grad).__name__}"
        for j, (g, l) in enumerate(zip(grad, like)):
            problem = same_structure(g, l)
            if problem:
                return f"[{j}]: {problem}"
        return None
    if np.shape(grad) != np.shape(like):
        return f"expected shape {np.shape(like)}, got {np.shape(grad)}"
    return None


# --- loading a program -----------------------------------------------------------------------------

def load(program, directory):
    """Write the clean source to a real file in `directory` and import it (s2s_ad reads it)."""
    name = f"fuzz_prog_{program.seed}_{os.getpid()}_{next(_counter)}"
    path = os.path.join(directory, name + ".py")
    with open(path, "w") as fh:
        fh.write(program.source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def unload(module):
    """Forget a loaded program and delete its file (derivatives already built keep working)."""
    sys.modules.pop(module.__name__, None)
    try:
        os.remove(module.__file__)
    except OSError:
        pass


def probe_of(program):
    rec = Recorder()
    namespace = probe_functions(rec)
    source = _PERIODIC.sub(r"_k_periodic(np.\1, ", program.probe_source)
    exec(compile(source, f"<probe {program.seed}>", "exec"), namespace)
    return namespace[program.entry], rec


# --- the judgement ---------------------------------------------------------------------------------

@dataclass
class Outcome:
    status: str
    message: str = ""
    program: object = None
    args: list = None
    error: str = ""          # a generator bug: the program itself raised
    details: dict = field(default_factory=dict)

    @property
    def known(self):
        """The id of the known bug this failure matches, or None."""
        if self.status != "fail":
            return None
        for bug, pattern in KNOWN_SIGNATURES:
            if re.search(pattern, self.message):
                return bug
        return None

    def report(self):
        p = self.program
        text = [f"[{self.status}] seed={p.seed} wrt={p.wrt!r}", self.message, "",
                "--- program ---", p.source.rstrip(), "--- arguments ---", _show(self.args)]
        return "\n".join(text)


def _show(args):
    return repr(args) if args is not None else "(none)"


class _Invalid(Exception):
    pass


def _positions(program):
    return [j for j, (n, _) in enumerate(program.params) if n in program.wrt_names]


def _with_wrt(args, positions, values):
    out = copy.deepcopy(args)
    for j, v in zip(positions, values):
        out[j] = v
    return out


def _evaluate(fn, rec, args):
    rec.reset()
    with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"):
        value = fn(*copy.deepcopy(args))
    if not np.ndim(value) == 0:
        raise _Invalid(f"returned shape {np.shape(value)}")
    value = float(value)
    if not math.isfinite(value) or abs(value) > MAX_VALUE:
        raise _Invalid(f"value {value}")
    return value, rec.trace, (rec.margin, rec.closest)


def finite_differences(fn, rec, args, positions, eps, trace0):
    """FD gradient of the wrt arguments (flattened), or raise _Invalid if a decision flips."""
    templates = [args[j] for j in positions]
    x0 = np.concatenate([flatten(t) for t in templates])
    sizes = [flatten(t).size for t in templates]
    out = np.zeros_like(x0)
    for i in range(x0.size):
        total = 0.0
        for sign in (1.0, -1.0):
            x = x0.copy()
            x[i] += sign * eps
            parts, offset = [], 0
            for t, size in zip(templates, sizes):
                parts.append(unflatten(t, x[offset:offset + size]))
                offset += size
            value, trace, _ = _evaluate(fn, rec, _with_wrt(args, positions, parts))
            if trace != trace0:
                raise _Invalid("a perturbation changed a branch decision")
            total += sign * value
        out[i] = total / (2 * eps)
    return out


def _close(actual, expected, rtol, atol_scale):
    actual = np.asarray(actual, float)
    expected = np.asarray(expected, float)
    scale = max(1.0, float(np.max(np.abs(expected))) if expected.size else 1.0)
    return bool(np.all(np.abs(actual - expected) <= atol_scale * scale + rtol * np.abs(expected)))


def _flat_grads(grads, single):
    return flatten(grads if not single else (grads,))


def check(program, directory):
    """Judge one program; never raises (an exception inside the oracle is a "fail")."""
    try:
        return _check(program, directory)
    except Exception:
        return Outcome("fail", "the oracle itself raised:\n" + traceback.format_exc(), program)


def _check(program, directory):
    rng = np.random.default_rng(program.seed)
    try:
        probe, rec = probe_of(program)
    except Exception:
        return Outcome("invalid", "probe did not compile", program,
                       error=traceback.format_exc())
    positions = _positions(program)
    args = fd = None
    reasons = []
    for attempt in range(INPUT_ATTEMPTS):
        candidate = program.make_args(rng)
        try:
            value0, trace0, (margin, closest) = _evaluate(probe, rec, candidate)
            if margin == 0:          # a tie built into the program: other inputs won't help
                return Outcome("invalid", f"exactly at a kink ({closest})", program)
            if margin < MIN_MARGIN:
                raise _Invalid(f"margin {margin:.2e} to a kink ({closest})")
            fd = finite_differences(probe, rec, candidate, positions, EPS, trace0)
        except (_Invalid, FloatingPointError) as e:
            reasons.append(str(e))
            continue
        except Exception:
            return Outcome("invalid", "the generated program raised", program, candidate,
                           error=traceback.format_exc())
        args = candidate
        break
    if args is None:
        return Outcome("invalid", "; ".join(reasons), program)

    module = load(program, directory)
    try:
        return _judge(program, module, probe, rec, args, positions, fd, value0, trace0)
    finally:
        unload(module)


def _judge(program, module, probe, rec, args, positions, fd, value0, trace0):
    f = getattr(module, program.entry)
    single = not isinstance(program.wrt, tuple)
    wrt_values = [args[j] for j in positions]

    def fail(message, **details):
        return Outcome("fail", message, program, args, details=details)

    # 1. grad, with the function's own value through value_and_grad
    try:
        grads = s2s_ad.grad(f, wrt=program.wrt)(*copy.deepcopy(args))
        value, grads2 = s2s_ad.value_and_grad(f, wrt=program.wrt)(*copy.deepcopy(args))
    except TransformError as e:
        # reverse mode refused: forward mode is still judged, against finite differences
        forward = _forward_when_reverse_refused(f, program, args, positions, single, probe, rec,
                                                fd, value0, trace0)
        if forward.status != "pass":
            return Outcome(forward.status, forward.message, program, args)
        return Outcome("refused", str(e), program, args, details={"jvp": forward.details["jvp"]})
    except Exception:
        return fail("s2s_ad.grad raised something other than a TransformError:\n"
                    + traceback.format_exc())
    like = wrt_values[0] if single else tuple(wrt_values)
    problem = same_structure(grads, like)
    if problem:
        return fail(f"gradient structure: {problem}\ngrad = {grads!r}")
    actual_value = f(*copy.deepcopy(args))
    if not _close(actual_value, value0, 1e-12, 1e-14):
        return Outcome("invalid", "the clean and probe renderings disagree", program, args,
                       error=f"generator bug: clean program gives {actual_value!r}, "
                             f"probe gives {value0!r}")
    if not _close(value, actual_value, 1e-9, 1e-12):
        return fail(f"wrong value: value_and_grad gives {value!r}, the function gives "
                    f"{actual_value!r}")
    g = _flat_grads(grads, single)
    if not np.all(np.isfinite(g)):      # the function and finite differences are finite here
        return fail(f"non-finite gradient: grad = {grads!r}\nFD: {fd}")
    if not np.array_equal(g, _flat_grads(grads2, single)):
        return fail("grad and value_and_grad disagree")

    # 2. against finite differences
    if not _grad_ok(g, fd):
        verdict = _recheck(probe, rec, args, positions, g, fd, trace0)
        if verdict is not None and not verdict.startswith("FD"):
            return fail(verdict + f"\ngrad = {grads!r}", grad=g, fd=fd)
        if verdict is not None:
            unsettled = _unsettled(program, args, positions, g, fd, lambda reference: reference)
            if unsettled is not None:
                return unsettled

    # 3. optimizer off
    try:
        generated = pipeline.reverse_mode(f, program.wrt_names, optimize=False)
        value_u, grads_u = generated.function(*copy.deepcopy(args), None)
    except TransformError as e:
        return fail(f"the unoptimized transform refuses what the optimized one accepted: {e}")
    except Exception:
        return fail("the unoptimized derivative raised:\n" + traceback.format_exc())
    if len(program.wrt_names) == 1:
        grads_u = (grads_u,)
    g_u = flatten(grads_u)
    if not (_close(value_u, value, OPT_RTOL, 1e-9) and g_u.shape == g.shape
            and _close(g_u, g, OPT_RTOL, 1e-9)):
        return fail(f"optimizer on and off disagree:\n  optimized:   value={value!r} grad={g}"
                    f"\n  unoptimized: value={value_u!r} grad={g_u}")

    # 4. vjp with a seed of 2
    try:
        value_v, grads_v = s2s_ad.vjp(f, wrt=program.wrt)(*copy.deepcopy(args), seed=2.0)
    except Exception:
        return fail("vjp raised:\n" + traceback.format_exc())
    if not _close(_flat_grads(grads_v, single), 2 * g, 1e-9, 1e-12):
        return fail(f"vjp(seed=2) is not twice the gradient: {grads_v!r}")

    # 5. forward mode: the dot-product identity <grad, v> == jvp(v)
    forward = _check_jvp(f, program, args, positions, single, g, value)
    if forward.status != "pass":
        return Outcome(forward.status, forward.message, program, args)

    # 6. an independent AD tool, where one is installed and runs the program
    reference = autograd_gradient(program, args, positions)
    if reference is not None and not np.all(np.isfinite(reference)):
        # autograd's nan where the function has no derivative (the norm or std of a constant
        # zero): s2s_ad documents 0 there, and finite differences accepted it
        reference = None
    details = {"autograd": reference is not None, "jvp": forward.details["jvp"]}
    if reference is not None and not _close(g, reference, AUTOGRAD_RTOL, AUTOGRAD_RTOL):
        return fail(f"autograd disagrees (finite differences accepted both):\n  s2s_ad:   {g}"
                    f"\n  autograd: {reference}", grad=g, autograd_gradient=reference)
    return Outcome("pass", "", program, args, details=details)


def _grad_ok(g, fd):
    """Within FD accuracy, relative to the largest FD entry. The function's magnitude does not
    widen it: FD round-off that grows with |f| is met by the larger steps of `_recheck`, and
    what they cannot settle is reported (status "disagrees"), not accepted."""
    scale = max(1.0, float(np.max(np.abs(fd))) if fd.size else 1.0)
    return g.shape == fd.shape and bool(np.all(np.abs(g - fd) <= ATOL * scale
                                               + RTOL * np.abs(fd)))


# (step, the step whose estimate Richardson's extrapolation pairs it with, or None)
_STEPS = ((1e-5, None), (1e-4, None), (1e-7, None), (EPS / 2, EPS), (5e-8, 1e-7))


def _other_estimates(probe, rec, args, positions, fd, trace0):
    """More FD estimates of the gradient `fd` estimated at EPS: at other step sizes, and
    Richardson's extrapolations from a step h and h / 2, which cancel the h^2 error (a steep
    function, sin of a large argument, needs them: seeds 20240789, 1300056)."""
    made = {EPS: fd}
    for eps, paired in _STEPS:
        try:
            est = made[eps] = finite_differences(probe, rec, args, positions, eps, trace0)
        except (_Invalid, FloatingPointError):
            continue
        yield est
        if paired in made:
            yield (4 * est - made[paired]) / 3


def _recheck(probe, rec, args, positions, g, fd, trace0):
    """FD disagreed with the gradient. None when another estimate agrees with it (the first
    was noisy); a "wrong gradient" message when the FD estimates agree with each other ten
    times better than with the gradient; otherwise an "FD ... inconclusive" message."""
    estimates = [fd]
    for est in _other_estimates(probe, rec, args, positions, fd, trace0):
        if _grad_ok(g, est):
            return None
        estimates.append(est)
    error = float(np.max(np.abs(g - fd)))
    spread = max(float(np.max(np.abs(e - fd))) for e in estimates)
    scale = max(1.0, float(np.max(np.abs(fd))))
    if len(estimates) >= 3 and spread < 0.1 * error and spread < 1e-3 * scale \
            and scale < MAX_GRADIENT:
        worst = int(np.argmax(np.abs(g - fd)))
        return (f"wrong gradient ({len(estimates)} finite-difference estimates agree with "
                f"each other to {spread:.1e}, the gradient is off by {error:.1e}):"
                f"\n  s2s_ad: {g}\n  FD:     {fd}\n  worst entry {worst}: {g[worst]!r} vs "
                f"{fd[worst]!r}")
    return "FD estimates disagree with each other: inconclusive"


AUTOGRAD_RTOL = 1e-8


def _unsettled(program, args, positions, derivative, fd, project):
    """The derivative disagrees with finite differences that cannot settle it: None when HIPS
    autograd runs the program and agrees (`project` maps its flat gradient to what
    `derivative` is), or when finite differences in extended precision agree with it;
    otherwise the "disagrees" Outcome that reports it."""
    reference = autograd_gradient(program, args, positions)
    if reference is not None and np.all(np.isfinite(reference)):
        expected = project(reference)
        if _close(derivative, expected, AUTOGRAD_RTOL, AUTOGRAD_RTOL):
            return None
        said = f"autograd gives {expected!r}"
    else:
        said = "autograd cannot run the program"
    extended = extended_precision_gradient(program, args, positions)
    if extended is not None:
        if _close(derivative, project(extended), EXTENDED_RTOL, EXTENDED_RTOL):
            return None
        said += f"; finite differences in extended precision give {project(extended)!r}"
    return Outcome("disagrees", f"the derivative disagrees with finite differences, whose "
                   f"estimates (other steps, Richardson's) disagree with each other too; {said}:"
                   f"\n  s2s_ad: {derivative!r}\n  FD:     {fd!r}", program, args)


EXTENDED_RTOL = 1e-6
# steps small enough for the functions of ~1e7 slope (sin of a large argument) that float64's
# steps cannot settle (release seeds 3000235, 3000416, 3000794, 3000902), where long double's
# 64-bit mantissa still resolves the difference
_EXTENDED_STEPS = (1e-10, 1e-11)


def extended_precision_gradient(program, args, positions):
    """The gradient by central differences in long double (80-bit on x86), at two small
    steps that agree with each other to EXTENDED_RTOL; None where they do not, where long
    double is no wider than float64, or where the program does not run on it (np.linalg,
    np.fft and some others take float64 only)."""
    if np.finfo(np.longdouble).eps >= np.finfo(np.float64).eps:
        return None
    namespace = {"__name__": f"extended_{program.seed}"}
    try:
        exec(compile(program.source, f"<extended {program.seed}>", "exec"), namespace)
        f = namespace[program.entry]
        wide = [_as_long_double(a) for a in args]
        x0 = np.concatenate([_flat_long(wide[j]) for j in positions])
        estimates = []
        for step in _EXTENDED_STEPS:
            estimate = np.empty(x0.size, dtype=np.longdouble)
            for i in range(x0.size):
                ends = []
                for sign in (1, -1):
                    x = x0.copy()
                    x[i] += sign * np.longdouble(step)
                    parts = _unflatten_long([wide[j] for j in positions], x)
                    with np.errstate(all="raise", under="ignore"):
                        ends.append(np.longdouble(f(*copy.deepcopy(_with_wrt(wide, positions, parts)))))
                estimate[i] = (ends[0] - ends[1]) / (2 * np.longdouble(step))
            estimates.append(estimate.astype(np.float64))
    except Exception:               # a function that takes float64 only, or overflows
        return None
    first, second = estimates
    if not np.all(np.isfinite(second)) or not _close(first, second, EXTENDED_RTOL, EXTENDED_RTOL):
        return None
    return second


def _as_long_double(value):
    if isinstance(value, dict):
        return {k: _as_long_double(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value)(_as_long_double(v) for v in value)
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value.astype(np.longdouble)
    return np.longdouble(value) if isinstance(value, float) else value


def _flat_long(value):
    if isinstance(value, dict):
        return np.concatenate([_flat_long(v) for v in value.values()])
    if isinstance(value, (tuple, list)):
        return np.concatenate([_flat_long(v) for v in value])
    return np.ravel(np.asarray(value, dtype=np.longdouble))


def _unflatten_long(templates, vector):
    """`templates` with their float entries from `vector`, in long double."""
    offset = 0

    def build(t):
        nonlocal offset
        if isinstance(t, dict):
            return {k: build(v) for k, v in t.items()}
        if isinstance(t, (tuple, list)):
            return type(t)(build(v) for v in t)
        size = int(np.size(t))
        chunk = vector[offset:offset + size]
        offset += size
        return chunk.reshape(np.shape(t)).copy() if isinstance(t, np.ndarray) else chunk[0]
    return [build(t) for t in templates]


def autograd_gradient(program, args, positions):
    """HIPS autograd's gradient of the program (flattened like s2s_ad's), or None when autograd
    cannot run the program: it refuses in-place writes into arrays, and whatever else it does
    not support fails loudly under its tracing rather than quietly; the one construct it gets
    wrong quietly (below) is left to the other checks. autograd is in the test extra: without
    it the oracle stops (an ImportError) rather than leave this check out unnoticed."""
    import autograd
    if _writes_in_place(program.source):
        # autograd keeps references to the plain arrays it multiplies by: a later in-place
        # write into one (`m = w * x2; x2[-1] = ...`, x2 not traced) changes its gradient
        # (release seed 1006798)
        return None
    if "np.where(" in program.source:
        # autograd's np.where does not sum the adjoint of a branch that broadcasts: with a
        # scalar `x`, grad(lambda x: np.sum(np.where(c, v * x, x))) has v's shape (release
        # seed 1007694: autograd -9.04, s2s_ad and finite differences -4.52)
        return None
    namespace = {"__name__": f"autograd_{program.seed}"}
    source = program.source.replace("import numpy as np", "import autograd.numpy as np", 1)
    try:
        exec(compile(source, f"<autograd {program.seed}>", "exec"), namespace)
        f = namespace[program.entry]

        def of_wrt(wrt_values):
            return f(*_with_wrt(args, positions, wrt_values))

        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")         # "Output seems independent of input."
            gradient = autograd.grad(of_wrt)([copy.deepcopy(args[j]) for j in positions])
        return flatten(tuple(gradient))
    except Exception:
        return None


def _writes_in_place(source):
    """Does the program write into an array (`y[i] = ...`, `y[i] += ...`, `y *= ...`)? A
    counter's `k += 1` does not count."""
    import ast
    for node in ast.walk(ast.parse(source)):
        counter = isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and \
            isinstance(node.value, ast.Constant) and type(node.value.value) is int   # `k += 1`
        if (isinstance(node, ast.AugAssign) and not counter) or (isinstance(
                node, ast.Assign) and any(isinstance(t, ast.Subscript) for t in node.targets)):
            return True
    return False


def _tangent(program, args, positions, single):
    """A random tangent shaped like the wrt arguments: (what jvp takes, flattened)."""
    rng = np.random.default_rng(program.seed + 1)
    tangents = [unflatten(a, rng.normal(size=flatten(a).size)) for a in
                (args[j] for j in positions)]
    return (tangents[0] if single else tuple(tangents)), flatten(tangents)


def _run_jvp(f, program, args, positions, single):
    """Run forward mode: an Outcome "pass" carrying (value, directional, flat tangent) in its
    details, "refused" (a TransformError: forward mode may refuse more than reverse mode), or
    "fail" (anything else raised)."""
    tangent, v = _tangent(program, args, positions, single)
    try:
        value, directional = s2s_ad.jvp(f, wrt=program.wrt)(*copy.deepcopy(args),
                                                            tangent=tangent)
    except TransformError as e:
        return Outcome("refused", str(e), details={"jvp": "refused"})
    except Exception:
        return Outcome("fail", "jvp raised something other than a TransformError:\n"
                       + traceback.format_exc())
    if np.ndim(directional) != 0:
        return Outcome("fail", f"jvp of a scalar function gave shape {np.shape(directional)}")
    return Outcome("pass", details={"jvp": "pass", "run": (value, float(directional), v)})


def _check_jvp(f, program, args, positions, single, g, value):
    """Reverse mode passed: jvp must give the same value and <grad, tangent>."""
    run = _run_jvp(f, program, args, positions, single)
    if run.status != "pass":
        return Outcome("pass", details=run.details) if run.status == "refused" else run
    value_t, directional, v = run.details["run"]
    expected = float(np.dot(g, v))
    if not _close(directional, expected, 1e-7, 1e-9) or not _close(value_t, value, 1e-9, 1e-12):
        return Outcome("fail", f"jvp/vjp dot-product identity: jvp gives {directional!r} "
                               f"(value {value_t!r}), <grad, tangent> = {expected!r} "
                               f"(value {value!r})")
    return Outcome("pass", details={"jvp": "pass"})


def _forward_when_reverse_refused(f, program, args, positions, single, probe, rec, fd, value0,
                                  trace0):
    """Reverse mode refused: jvp must refuse too, or agree with finite differences along the
    tangent (a wrong directional derivative or a crash is a failure)."""
    run = _run_jvp(f, program, args, positions, single)
    if run.status != "pass":
        return Outcome("pass", details=run.details) if run.status == "refused" else run
    value_t, directional, v = run.details["run"]
    if not _close(value_t, value0, 1e-9, 1e-12):
        return Outcome("fail", f"wrong value: jvp gives {value_t!r}, the function gives "
                               f"{value0!r}")
    if not _directional_ok(directional, fd, v):
        verdict = _recheck_directional(probe, rec, args, positions, directional, v, fd, trace0)
        if verdict is not None and not verdict.startswith("FD"):
            return Outcome("fail", verdict)
        if verdict is not None:
            unsettled = _unsettled(program, args, positions, directional, float(np.dot(fd, v)),
                                   lambda reference: float(np.dot(reference, v)))
            if unsettled is not None:
                return unsettled
    return Outcome("pass", details={"jvp": "pass"})


def _directional_ok(directional, fd, v):
    """|jvp - <FD, v>| within the FD tolerance of each entry, carried through the dot product."""
    scale = max(1.0, float(np.max(np.abs(fd))) if fd.size else 1.0)
    tolerance = float(np.sum(np.abs(v))) * ATOL * scale + RTOL * float(np.sum(np.abs(v * fd)))
    return fd.shape == v.shape and abs(directional - float(np.dot(fd, v))) <= tolerance


def _recheck_directional(probe, rec, args, positions, directional, v, fd, trace0):
    """As `_recheck`, for a directional derivative: None, "wrong jvp ..." or "FD ..."."""
    estimates = [float(np.dot(fd, v))]
    for est in _other_estimates(probe, rec, args, positions, fd, trace0):
        if _directional_ok(directional, est, v):
            return None
        estimates.append(float(np.dot(est, v)))
    error = abs(directional - estimates[0])
    spread = max(abs(e - estimates[0]) for e in estimates)
    scale = max(1.0, float(np.max(np.abs(fd)))) * float(np.sum(np.abs(v)))
    if len(estimates) >= 3 and spread < 0.1 * error and spread < 1e-3 * scale \
            and scale < MAX_GRADIENT:
        return (f"wrong jvp (reverse mode refused; {len(estimates)} finite-difference "
                f"estimates agree with each other to {spread:.1e}, jvp is off by {error:.1e}):"
                f"\n  s2s_ad jvp: {directional!r}\n  <FD, tangent>: {estimates[0]!r}")
    return "FD estimates disagree with each other: inconclusive"
