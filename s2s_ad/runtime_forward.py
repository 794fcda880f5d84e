"""The helpers forward-mode (tangent) code calls, besides those in s2s_ad.runtime.

Like s2s_ad.runtime, everything is backend-neutral (arrays are made *like* existing ones) and no
helper modifies its arguments, so tangents may alias each other freely.
"""
import numpy as np

from .runtime import _xp, einsum_grad, extremum_mask, unreduce

__all__ = [
    "broadcast_like", "zero_tangent", "tangent_cast", "transpose_tangent", "einsum_tangent",
    "einsum_grad_tangent", "norm_tangent", "clip_inside", "below", "above", "tangent_out",
]


def broadcast_like(t, like):
    """`t` broadcast to `like`'s shape (the tangent of a value some other input stretched)."""
    shape = np.shape(like)
    if np.shape(t) == shape:
        return t
    return _xp(t).broadcast_to(t, shape)


def zero_tangent(x):
    """The zero tangent of `x`: zeros shaped like it (float even when `x` is an integer)."""
    if x is None or isinstance(x, str):
        return None
    if isinstance(x, list):
        return [zero_tangent(e) for e in x]
    if isinstance(x, tuple):
        return tuple(zero_tangent(e) for e in x)
    if isinstance(x, complex):
        return 0j
    if isinstance(x, (bool, int, float)):
        return 0.0
    dtype = getattr(x, "dtype", None)
    if dtype is not None and np.issubdtype(dtype, np.inexact):
        return _xp(x).zeros_like(x)
    return _xp(x).zeros_like(x, dtype=float)


def tangent_cast(t, y):
    """The tangent `t` converted like the primal was (`float(x)`, `x.astype(...)`, `np.array(...)`)."""
    if isinstance(y, bool) or y is None:
        return zero_tangent(y)
    if isinstance(y, float):
        return float(t)
    if isinstance(y, complex):
        return complex(t)
    dtype = getattr(y, "dtype", None)
    if dtype is None:
        return t
    if not np.issubdtype(dtype, np.inexact):
        return zero_tangent(y)
    xp = _xp(y)
    t = xp.asarray(t)
    if t.dtype != dtype:
        t = t.astype(dtype)
    t = broadcast_like(t, y)
    if isinstance(y, np.generic):
        return t[()]
    return t


def transpose_tangent(t, axes=()):
    """`t.transpose(*axes)` for a tangent that may be a plain float."""
    if axes == () or axes == (None,):
        return np.transpose(t)
    if len(axes) == 1 and not isinstance(axes[0], int):
        return np.transpose(t, tuple(axes[0]))
    return np.transpose(t, tuple(axes))


def einsum_tangent(subscripts, operands, tangents):
    """Tangent of `np.einsum(subscripts, *operands)`: one term per operand that has a tangent."""
    total = None
    for k, t in enumerate(tangents):
        if t is None:
            continue
        replaced = list(operands)
        replaced[k] = t
        term = np.einsum(subscripts, *replaced)
        total = term if total is None else total + term
    return total


def einsum_grad_tangent(g, subscripts, k, operands, tangents):
    """Tangent of `einsum_grad(g, subscripts, k, *operands)` through the operands other than k."""
    total = None
    for j, t in enumerate(tangents):
        if t is None or j == k:
            continue
        replaced = list(operands)
        replaced[j] = t
        term = einsum_grad(g, subscripts, k, *replaced)
        total = term if total is None else total + term
    if total is None:
        return zero_tangent(operands[k])
    return total


def _is_vector_norm(x, ord, axis):
    if isinstance(axis, (tuple, list)):
        return len(axis) == 1
    if axis is not None:
        return True
    return np.ndim(x) == 1 or (ord is None and np.ndim(x) != 2)


def norm_tangent(t, x, y, ord=None, axis=None, keepdims=False):
    """Tangent of `np.linalg.norm(x, ord, axis, keepdims)` along `t`."""
    vector = _is_vector_norm(x, ord, axis)
    if ord is None or ord == "fro" or (vector and ord == 2):
        return np.sum(x * t, axis=axis, keepdims=keepdims) / y
    if vector and ord in (np.inf, -np.inf):
        a = np.abs(x)
        best = np.max(a, axis=axis, keepdims=True) if ord > 0 else np.min(a, axis=axis, keepdims=True)
        hits = a == best
        share = hits / np.sum(hits, axis=axis, keepdims=True)
        return np.sum(np.sign(x) * share * t, axis=axis, keepdims=keepdims)
    if vector and isinstance(ord, (int, float)) and ord >= 1:
        p = float(ord)
        scale = unreduce(y, x, axis, keepdims) ** (p - 1)
        return np.sum(np.abs(x) ** (p - 1) * np.sign(x) * t / scale, axis=axis, keepdims=keepdims)
    raise NotImplementedError(
        f"s2s_ad differentiates np.linalg.norm for ord=None, 'fro', inf and p >= 1 vector norms; "
        f"ord={ord!r} on an array of {np.ndim(x)} dimension(s) is not supported")


def clip_inside(x, a_min, a_max):
    """1 where `np.clip` passes `x` through (bounds included), else 0; a bound may be None."""
    inside = np.ones_like(x, dtype=bool) if np.ndim(x) else True
    if a_min is not None:
        inside = inside & (x >= a_min)
    if a_max is not None:
        inside = inside & (x <= a_max)
    return inside


def below(x, bound):
    """Where `x` is below `bound` (False where the bound is None)."""
    return False if bound is None else x < bound


def above(x, bound):
    """Where `x` is above `bound` (False where the bound is None)."""
    return False if bound is None else x > bound


def tangent_out(t, y):
    """A tangent as handed to the user: same structure, type, dtype and shape as the value `y`."""
    if isinstance(y, tuple):
        return tuple(tangent_out(a, b) for a, b in zip(t, y))
    if isinstance(y, list):
        return [tangent_out(a, b) for a, b in zip(t, y)]
    if isinstance(y, dict):
        return {k: tangent_out(t[k], v) for k, v in y.items()}
    if t is None or y is None or isinstance(y, (str, bool)):
        return t
    if isinstance(y, (int, float)) and not isinstance(y, bool):
        return float(t)
    if isinstance(y, complex):
        return complex(t)
    dtype = getattr(y, "dtype", None)
    xp = _xp(y)
    t = xp.asarray(t)
    if dtype is not None and np.issubdtype(dtype, np.inexact) and t.dtype != dtype:
        t = t.astype(dtype)
    if np.shape(t) != np.shape(y):
        t = xp.broadcast_to(t, np.shape(y))
    if not t.flags.writeable or t.base is not None:
        t = t.copy()
    if isinstance(y, np.generic):
        return t[()]
    return t
