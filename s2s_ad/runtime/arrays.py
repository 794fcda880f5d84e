"""Arrays made like other values: the array module that owns a value, zeros and shapes, an
adjoint summed back to the shape of what was broadcast, copies that later writes cannot change,
and the adjoint of a cast.

Everything in s2s_ad.runtime is backend-neutral: arrays are created *like* an existing array,
so NumPy inputs give NumPy results, CuPy inputs CuPy results and Dask inputs lazy Dask
results. Helpers never modify their arguments, so adjoint arrays may alias each other freely.
"""
import types

import numpy as np

from .checks import _refuse_at, _refuse_sequence_arithmetic, check_complex_seen, is_complex
from .containers import _is_container, _zero_tree, record_fields


ones_like = np.ones_like


def zeros_like(x):
    """Zeros shaped like `x` (an array, a number, or a container of arrays)."""
    if type(x) is np.ndarray and x.flags.c_contiguous:
        return np.zeros(x.shape, x.dtype)       # the common case, first: what zeros_like makes
    if x is None:
        return 0.0
    if isinstance(x, (list, tuple, dict)) or record_fields(x) is not None:
        return _zero_tree(x)
    return np.zeros_like(x)


def read_as_array(x):
    """`x` as a ufunc reads it: a list or tuple as the array NumPy makes of it, anything else
    as it is (a value that only when it runs may be a list: passes/read_sequences_as_arrays.py)."""
    if isinstance(x, (list, tuple)):
        return np.asarray(x)
    return x


def _xp(x):
    """The array module (numpy, cupy or dask.array) that owns `x`."""
    module = type(x).__module__
    if module.startswith("cupy"):
        import cupy
        return cupy
    if module.startswith("dask"):
        import dask.array           # imported only once a Dask array is seen
        return dask.array
    return np


def _host(x):
    """`x` as a NumPy value (a CuPy array is copied to the host)."""
    if type(x).__module__.startswith("cupy"):
        return x.get()
    return np.asarray(x)


_SCALARS = (float, int, complex, bool)
_REAL_SCALARS = frozenset({float, int, bool, np.float64, np.float32, np.float16})
_SEQUENCES = (list, tuple)
_NUMPY_SCALARS = frozenset({np.float64, np.float32, np.float16})   # their dtype: result_type


def shape_of(x):
    """`np.shape(x)`, without its overhead for arrays and Python numbers (a hot path)."""
    if type(x) in _SCALARS:
        return ()
    shape = getattr(x, "shape", None)
    return shape if shape is not None else np.shape(x)


def real_like(g, x):
    """`g`, or its real part where `x` is real and `g` complex: the adjoint of a real input
    that met complex values (README "Complex numbers")."""
    if is_complex(g) and not is_complex(x):
        check_complex_seen()
        return g.real
    return g


def unbroadcast(g, like):
    """Sum `g` over the axes that broadcasting added or stretched, giving `like`'s shape."""
    if type(g) is np.ndarray and type(like) is np.ndarray and g.dtype.kind != "c":
        # the common cases, first: nothing was broadcast, or NumPy arrays summed by their
        # own method (np.sum's dispatch costs more than the sum of a small array)
        return g if g.shape == like.shape else _summed_to(g, like)
    if type(g) in _REAL_SCALARS and type(like) in _REAL_SCALARS:
        return g
    if g is None:
        return zeros_like(like)       # a container adjoint's missing entry is a zero
    if type(like) in _SEQUENCES and _resequenced(g, like):
        _refuse_sequence_arithmetic()
    if _is_container(like) and _is_container(g):
        return g          # entry by entry: a container is never broadcast (its arrays may differ)
    g = real_like(g, like)
    shape = shape_of(like)
    g_shape = shape_of(g)
    if g_shape == shape:
        return g
    extra = len(g_shape) - len(shape)
    if extra > 0:
        g = np.sum(g, axis=tuple(range(extra)))
    stretched = tuple(axis for axis, n in enumerate(shape) if n == 1 and np.shape(g)[axis] != 1)
    if stretched:
        g = np.sum(g, axis=stretched, keepdims=True)
    if np.shape(g) != shape:
        g = broadcast_to_like(g, like)
    return g


def for_its_shape(x):
    """`x` as kept for a backward pass that reads only its type, shape and dtype (the `like`
    of unbroadcast and unreduce): a large NumPy array as a view of one zero broadcast to its
    shape, so that keeping it keeps none of its entries (optimize/shape_stand_ins.py); any
    other value as it is."""
    if type(x) is np.ndarray and x.size >= _FILLED_BELOW:
        return np.broadcast_to(np.zeros((), x.dtype), x.shape)
    return x


def _summed_to(g, like):
    """unbroadcast of a real NumPy array to another NumPy array: `g` summed over the leading
    axes broadcasting added and the axes of length 1 it stretched."""
    shape = like.shape
    extra = g.ndim - len(shape)
    if extra > 0:
        g = g.sum(axis=0 if extra == 1 else tuple(range(extra)))
        if g.shape == shape:
            return g                    # the common case: a bias added to each row
    stretched = tuple(axis for axis, n in enumerate(shape) if n == 1 and g.shape[axis] != 1)
    if stretched:
        g = g.sum(axis=stretched, keepdims=True)
    return g if g.shape == shape else broadcast_to_like(g, like)


def _resequenced(g, like):
    """Is `g`, the adjoint that reached the list or tuple `like`, that of a longer or shorter
    sequence (`+` or `*` on lists): a list of another length, or an array whose first axis
    NumPy broadcasting could not have stretched from `like`'s length (only a length of 1)?"""
    if isinstance(g, (list, tuple)):        # (a tuple's adjoint: a tuple of its entries')
        return len(g) != len(like)
    return len(like) != 1 and np.ndim(g) == np.ndim(like) and len(g) != len(like)


def _unknown(lengths):
    """Whether some length is known only once computed: NaN, as a Dask array selected by a
    mask has."""
    return any(n != n for n in lengths)


_FILLED_BELOW = 4096                    # entries: a filled array is cheaper than a view


def broadcast_to_like(g, like):
    """`g` broadcast to `like`'s shape, also where that shape is known only once `like` is
    computed (broadcast_to refuses a NaN length). A small NumPy array is filled instead:
    np.broadcast_to's fixed cost is that of writing thousands of entries, and a view would be
    copied again where it becomes a gradient."""
    if type(like) is np.ndarray and like.size < _FILLED_BELOW:
        if type(g) is float or type(g) is np.float64:   # the common case, first: a number
            filled = np.empty(like.shape)
            filled.fill(g)
            return filled
        if type(g) is np.ndarray or type(g) in _REAL_SCALARS:
            filled = np.empty(like.shape, g.dtype if type(g) is np.ndarray or
                              type(g) in _NUMPY_SCALARS else np.result_type(g))
            filled[...] = g
            return filled
    shape = shape_of(like)
    if _unknown(shape):
        return g + zeros_like(like)
    chunks = getattr(like, "chunks", None)
    if chunks is not None:
        return _broadcast_in_chunks(g, shape, chunks, _xp(like))
    return np.broadcast_to(g, shape)


def _broadcast_in_chunks(g, shape, chunks, xp):
    """A lazy broadcast chunked like the array it will meet: broadcast_to's default makes one
    chunk of the whole shape, which a cluster builds on one worker and then ships around."""
    g = xp.asarray(g)
    own = chunks[len(shape) - g.ndim:]
    g = g.rechunk(tuple(c if n != 1 else (1,) for n, c in zip(g.shape, own)))
    return xp.broadcast_to(g, shape, chunks=chunks)


def snapshot(value):
    """A copy of `value` that later in-place writes cannot change (arrays in a tuple, list or
    dict are copied too)."""
    if type(value) in (tuple, list):
        return type(value)(snapshot(v) for v in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):          # a namedtuple
        return type(value)(*(snapshot(v) for v in value))
    if type(value) is dict:
        return {k: snapshot(v) for k, v in value.items()}
    copy = getattr(value, "copy", None)
    return copy() if copy is not None else value


class _Absent:
    """What `entry_before` saves for a dict key the write adds. Restoring puts it in the
    key's place, where nothing reads it: the key did not exist when the forward pass read it."""

    def __repr__(self):
        return "<absent>"


_ABSENT = _Absent()


def entry_before(container, key):
    """`snapshot(container[key])` before `container[key] = ...`, or a marker where the write
    adds the key to a dict."""
    if isinstance(container, dict) and key not in container:
        return _ABSENT
    return snapshot(container[key])


def own_copy(value, name, where, **others):
    """The copy of an argument `name` that the function writes into (at `where`), so that the
    caller's array never changes; refused where another argument is that same array or a view
    of it, which the write would change too (`f(t, t)`)."""
    for other, held in others.items():
        if _holds_memory_of(held, value) or _holds_memory_of(value, held):
            same = f"`{name}` and `{other}` are the same array (or views of one)" \
                if getattr(held, "flags", None) is not None is not getattr(value, "flags", None) \
                else f"`{other}` and `{name}` hold the same array (or views of one)"
            _refuse_at(where, f"{same}, and "
                       f"`{name}` is written in place: `{other}` would change too, which the "
                       f"derivative cannot follow", f"pass a copy (`{name}.copy()`) as `{name}`",
                       "UnsupportedSyntax")
    _refuse_entries_sharing(value, name, where)
    return snapshot(value)


def _refuse_entries_sharing(value, name, where):
    """A list, tuple or dict argument holding one array at two entries (or views of one), the
    function writing into it: the copy would hold two arrays, where the write changes both
    entries of the caller's (issue 15: a write into a tuple's array is followed)."""
    entries = list(value.values()) if isinstance(value, dict) else \
        list(value) if isinstance(value, (list, tuple)) else []
    arrays = [e for e in entries if isinstance(e, np.ndarray)]
    for i, first in enumerate(arrays):
        for second in arrays[i + 1:]:
            if np.may_share_memory(first, second) and np.shares_memory(first, second):
                kind = type(value).__name__
                _refuse_at(where, f"the {kind} `{name}` holds one array at two entries (or views "
                           f"of one), and it is written in place: both entries change, which "
                           f"the derivative, given a copy of each, cannot follow",
                           f"pass a copy of each entry (`({name}[0].copy(), ...)`)",
                           "UnsupportedSyntax")


def _holds_memory_of(held, value, depth=4):
    """Is `held` the array `value`, a view of it, or a list, tuple, dict or record (a
    dataclass, a NamedTuple, an object's fields) holding one (`f(t, {'a': t})`)?"""
    if held is value:
        return True
    if getattr(value, "flags", None) is not None and getattr(held, "flags", None) is not None:
        return bool(np.shares_memory(value, held))
    if depth == 0 or held is None or isinstance(held, (bool, int, float, complex, str, np.generic)):
        return False
    if isinstance(held, dict):
        entries = held.values()
    elif isinstance(held, (list, tuple)):
        entries = held
    elif isinstance(held, (type, types.ModuleType, types.FunctionType)):
        return False                  # `np` passed as an argument holds no array of ours
    else:
        entries = getattr(held, "__dict__", {}).values()
    return any(_holds_memory_of(entry, value, depth - 1) for entry in entries)


def shaped_like(g, x, dtype):
    """`g` as an array of its own with `x`'s shape (broadcast), cast to `dtype` unless None;
    a NumPy scalar where `x` is one. A lazy (Dask) `g` stays lazy for a NumPy `x`: making it a
    NumPy array would compute it here."""
    xp = _xp(g) if type(g).__module__.startswith("dask") else _xp(x)
    g = xp.asarray(g)
    if dtype is not None and g.dtype != dtype:
        g = g.astype(dtype)
    if np.shape(g) != np.shape(x):
        g = xp.broadcast_to(g, np.shape(x))
    flags = getattr(g, "flags", None)
    if flags is None or not flags.writeable or g.base is not None:
        g = g.copy()                # a lazy array's copy is a new name for the same graph
    chunks = getattr(x, "chunks", None)
    if chunks is not None and g.chunks != chunks:
        g = g.rechunk(chunks)       # a Dask gradient is split like its argument
    return g[()] if isinstance(x, np.generic) else g


def through_cast(g, y, x=None):
    """The adjoint of a conversion of `x` to `y`: nothing flows back through a cast to
    integers, and only the real part through a cast of a real `x` to complex."""
    dtype = getattr(y, "dtype", None)
    if isinstance(y, (bool, int)) or (dtype is not None and not np.issubdtype(dtype, np.inexact)):
        return _xp(g).zeros(np.shape(g))
    return g if x is None else real_like(_cast_axes(g, y, x), x)


def _cast_axes(g, y, x):
    """`g` of `y`'s shape as `x`'s, where the cast added leading axes of length 1
    (`np.array(x, ndmin=2)`), and `g` of `x`'s shape as `y`'s (the transpose: through_cast
    is its own, for second order)."""
    ndim = getattr(g, "ndim", 0)
    if ndim == 0 or ndim == getattr(x, "ndim", -1):
        return g                        # the common case, first; a list adjoint keeps its own
    try:
        x_shape, y_shape = np.shape(x), np.shape(y)
    except ValueError:                  # a list of arrays of several shapes: no axes added
        return g
    if len(y_shape) <= len(x_shape) or np.size(y) != int(np.prod(x_shape)):
        return g
    g_shape = np.shape(g)
    if g_shape == y_shape:
        return np.reshape(g, x_shape)
    return np.reshape(g, y_shape) if g_shape == x_shape else g
