"""The helpers forward-mode (tangent) code calls: tangents made, copied, cast and broadcast
like the values they go with, and handed to the user in the value's type."""
import numpy as np

from .arrays import _ABSENT, _REAL_SCALARS, _xp, broadcast_to_like, shaped_like
from .containers import record_entries, record_fields


def broadcast_like(t, like):
    """`t` broadcast to `like`'s shape (the tangent of a value some other input stretched)."""
    if type(t) is np.ndarray and type(like) is np.ndarray and t.shape == like.shape or \
            type(t) in _REAL_SCALARS and type(like) in _REAL_SCALARS:
        return t                      # the common cases, first: nothing to broadcast
    if isinstance(t, (list, tuple)) and type(like) is np.ndarray:
        t = np.asarray(t)             # [a] + arr is an array: its tangent too ([da] * 2 would
                                      # repeat the list where NumPy doubles the array)
    if isinstance(t, (list, tuple, dict)) or isinstance(like, (list, tuple, dict)):
        if isinstance(t, list) and type(like) is list and len(t) != len(like):
            raise NotImplementedError(
                "s2s_ad cannot differentiate joining a list with a constant list in forward "
                "mode; build the result with append instead")
        return t
    if np.shape(t) == np.shape(like):
        return t
    return broadcast_to_like(t, like)


def tangent_copy(t):
    """A copy of the tangent `t` that can be written into (before `dx[i] = dv`)."""
    if isinstance(t, (list, dict)):
        return type(t)(t)
    copy = getattr(t, "copy", None)
    return copy() if copy is not None else t


def zero_tangent(x):
    """The zero tangent of `x`: zeros shaped like it (float even when `x` is an integer)."""
    if type(x) is np.ndarray:           # the common cases, first (np.zeros: np.zeros_like's
        # dispatch costs more than zeros of a small array)
        return np.zeros(x.shape, x.dtype if x.dtype.kind in "fc" else float)
    if type(x) is float:
        return 0.0
    if x is None or isinstance(x, str):
        return None
    if x is _ABSENT:
        return x
    if isinstance(x, list):
        return type(x)(zero_tangent(e) for e in x)
    if isinstance(x, tuple):
        return tuple(zero_tangent(e) for e in x)
    if isinstance(x, dict):
        return type(x)((k, zero_tangent(v)) for k, v in x.items())
    if record_fields(x) is not None:                      # a dataclass: its fields in order
        return tuple(zero_tangent(e) for e in record_entries(x))
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


_OWN_SCALARS = (float, np.float64, np.float32, np.float16)


def tangent_out(t, y):
    """A tangent as handed to the user: same structure, type, dtype and shape as the value `y`."""
    if type(t) is type(y) and (type(y) in _OWN_SCALARS or type(y) is np.ndarray and
                               t.dtype == y.dtype and y.dtype.kind == "f" and
                               t.shape == y.shape and t.base is None and t.flags.writeable):
        return t                        # the common cases, first: nothing to convert
    if isinstance(y, tuple):
        return tuple(tangent_out(a, b) for a, b in zip(t, y))
    if isinstance(y, list):
        return [tangent_out(a, b) for a, b in zip(t, y)]
    if isinstance(y, dict):
        return {k: tangent_out(t[k], v) for k, v in y.items()}
    if record_fields(y) is not None:                    # a dataclass: its fields in order
        return [tangent_out(a, b) for a, b in zip(t, record_entries(y))]
    if t is None or y is None or isinstance(y, (str, bool)):
        return t
    if isinstance(y, np.generic) and np.issubdtype(y.dtype, np.inexact):
        return np.asarray(t, dtype=y.dtype)[()]
    if isinstance(y, (int, float)) and not isinstance(y, bool):
        return float(t)
    if isinstance(y, complex):
        return complex(t)
    dtype = getattr(y, "dtype", None)
    return shaped_like(t, y, dtype if dtype is not None and np.issubdtype(dtype, np.inexact)
                       else None)
