"""The ends of a reverse-mode derivative: the seed that starts the backward pass, and the
gradients handed back, each shaped, typed and owned like its argument."""
import numpy as np

from .arrays import _unknown, _xp, real_like, shaped_like
from .checks import is_complex
from .containers import (
    CONVERTED_KINDS, GradDict, GradList, GradTuple, _is_container, as_adjoint, converted,
    record_entries, record_fields)


_FLOAT_SCALARS = (float, np.float64, np.float32, np.float16)
HAS_AUX = type("HasAux", (), {"__repr__": lambda self: "HAS_AUX"})()


class ScalarSeed:
    """The seed a transform that needs a scalar output passes (hvp, hessian): 1 for a scalar,
    and for an array an error that names that transform, not grad, and what to use instead."""

    def __init__(self, transform, instead):
        self.transform = transform
        self.instead = instead

    def __repr__(self):
        return self.transform.upper()


GRAD = ScalarSeed("grad", "use s2s_ad.vjp(...) and pass seed= (for example seed=ones_like(y) "
                          "to differentiate the sum of the outputs)")
HVP = ScalarSeed("hvp", "for the second derivatives of each output, use "
                        "s2s_ad.jacobian(s2s_ad.jacobian(f)); for those of a sum, differentiate "
                        "a function that returns the sum")
HESSIAN = ScalarSeed("hessian", "for the second derivatives of each output (shape out.shape + "
                                "x.shape + x.shape), use s2s_ad.jacobian(s2s_ad.jacobian(f))")


def seed_like(out, seed, function_name="f"):
    """The initial adjoint of `out`: `seed`, or 1 when `out` is a scalar and no seed is given."""
    if type(seed) is np.ndarray and type(out) is np.ndarray and seed.shape == out.shape \
            and seed.dtype.kind == "f":
        return seed                   # the common case, first: a callee's backward pass
    if seed is None and type(out) in _FLOAT_SCALARS:
        return type(out)(1)           # ... and grad of a function returning a number
    if out is None:
        # also what a name that Python would find unbound (a loop that ran zero times) holds
        raise TypeError(f"{function_name} returned None (or a name that was never assigned); "
                        f"there is nothing to differentiate")
    if seed is None or isinstance(seed, ScalarSeed):
        asked = GRAD if seed is None else seed
        if _is_container(out) or np.ndim(out) != 0:
            raise TypeError(
                f"{asked.transform} requires {function_name} to return a scalar, but it returned "
                f"an array of shape {np.shape(out)}; {asked.instead}")
        if is_complex(out):
            # as autograd and JAX: a complex output has no gradient (README "Complex numbers")
            raise TypeError(
                f"{asked.transform} requires {function_name} to return a real scalar, but it "
                f"returned a complex one; differentiate its real part or its modulus, or, for "
                f"the derivative of a holomorphic function, use s2s_ad.vjp(...) with seed=1.0")
        return np.ones_like(out)
    if seed is HAS_AUX:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError(f"has_aux=True requires {function_name} to return a pair "
                            f"(loss, aux), but it returned {type(out).__name__}")
        return GradList([seed_like(out[0], None, function_name), None])
    record = record_fields(out) is not None      # a dataclass's adjoint: one entry a field
    if not _is_container(out) and not record and isinstance(seed, (list, tuple)):
        # a seed written as a list for an array output: an array on the output's backend
        dtype = getattr(out, "dtype", None)
        dtype = dtype if dtype is not None and np.issubdtype(dtype, np.inexact) else None
        seed = _xp(out).asarray(seed, dtype=dtype)
    if _is_container(out) or _is_container(seed) or record:
        return as_adjoint(seed)
    if is_complex(seed) and not is_complex(out):
        raise TypeError(f"the seed for {function_name} is complex, but its value is real; "
                        f"pass a real seed")
    if np.shape(seed) != np.shape(out) and not _unknown(np.shape(out)):
        raise ValueError(f"the seed has shape {np.shape(seed)} but {function_name} returned "
                         f"shape {np.shape(out)}; the seed must have the output's shape")
    return seed


def _is_own(g, x):
    """Is `g` a gradient for the NumPy array `x` as it is: a float array of x's dtype (the same
    dtype object, as NumPy's operations give it; another equal one takes the long way) and
    shape, of its own?"""
    return type(g) is np.ndarray and type(x) is np.ndarray and g.dtype is x.dtype and \
        g.shape == x.shape and g.base is None and g.flags.writeable and g.dtype.kind == "f"


def gradient_like(g, x):
    """`g` as a gradient for `x`: the same type, dtype and shape, an array of its own."""
    if _is_own(g, x):
        return g                      # the common case, first: nothing to convert
    if type(g) in CONVERTED_KINDS and g.like is x:
        return g                      # ... and a callee's gradient for a container
    if _is_container(x) or record_fields(x) is not None:
        return tree_gradient(g, x)
    g = real_like(g, x)           # a real argument that met complex values: the real part
    if isinstance(x, float):
        return float(g)
    if isinstance(x, complex):
        return complex(g)
    if np.ndim(x) == 0 and not hasattr(x, "shape"):
        return float(g)
    return shaped_like(g, x, getattr(x, "dtype", None))


def callee_gradient(g, x):
    """gradient_like for the gradient a callee's backward pass hands its caller, which adds
    it into its own adjoints and converts the sum once: an entry of a dict, list or tuple
    that got no gradient stays absent (None, a zero), where gradient_like fills zeros shaped
    like it. A callee reading one entry of a dict of parameters at each step of a loop then
    hands back that entry alone, not zeros for all the others, which the caller would add."""
    if _is_own(g, x):
        return g
    if type(g) in CONVERTED_KINDS and g.like is x:
        return g
    if type(x) is dict and isinstance(g, dict):
        # (a loop, not a call a leaf: it runs at every call of a callee, once an entry) in
        # the argument's order, not the order the backward pass filled `g` in: a caller
        # updating `zip(params.values(), grads.values())` pairs them by position
        entries = [(k, gk if _is_own(gk, xk) else callee_gradient(gk, xk))
                   for k, xk in x.items() if (gk := g.get(k)) is not None]
        return converted(GradDict, entries, x) if len(entries) == len(x) else GradDict(entries)
    if (type(x) is list or type(x) is tuple) and isinstance(g, (list, tuple)) and \
            len(g) == len(x):
        return converted(GradTuple if type(x) is tuple else GradList,
                         [gi if gi is None or _is_own(gi, xi) else callee_gradient(gi, xi)
                          for gi, xi in zip(g, x)], x)
    return gradient_like(g, x)


def tree_gradient(g, x):
    """`gradient_like` applied leaf by leaf, filling zeros where `g` has no entry."""
    # the adjoint kinds of list, tuple and dict: a caller that passed the same container to
    # two functions adds their gradients with `+`, which must add leaf by leaf
    if type(g) in CONVERTED_KINDS and g.like is x:
        return g
    if isinstance(x, dict):
        g = g if isinstance(g, dict) else {}
        out = GradDict()
        for k, v in x.items():              # (a loop: it runs at every call, once a leaf)
            gk = g.get(k)
            out[k] = gk if _is_own(gk, v) else gradient_like(gk, v) \
                if type(v) is np.ndarray and gk is not None else tree_gradient(gk, v)
        return out
    if type(x) is not list and not isinstance(x, tuple) and record_fields(x) is not None:
        x = record_entries(x)                 # a dataclass: one entry a field, as field_grad
    if isinstance(x, (list, tuple)):
        if not isinstance(g, (list, tuple)):
            # an array adjoint of a list NumPy read as an array (np.sin(xs)): one row an entry
            g = list(g) if np.ndim(g) >= 1 and len(g) == len(x) else [None] * len(x)
        elif len(g) < len(x):
            g = list(g) + [None] * (len(x) - len(g))
        kind = GradTuple if isinstance(x, tuple) else GradList
        return kind([gi if _is_own(gi, xi) else gradient_like(gi, xi)
                     if type(xi) is np.ndarray and gi is not None else tree_gradient(gi, xi)
                     for gi, xi in zip(g, x)])
    if x is None:
        return None                   # a None leaf (an absent seed entry) has no gradient
    return gradient_like(0.0 if g is None else g, x)
