"""Adjoints of np.pad: through the padded array (mode 'constant', and the modes that pad with
copies of entries: 'edge', 'reflect', 'symmetric', 'wrap') and through the constant values."""
import numpy as np

from .arrays import _host, real_like, shape_of, unbroadcast
from .checks import _refuse_at_user_line
from .indexing import scatter
from .sources import pad_source_index


def _pad_pairs(array, pad_width):
    return [(int(before), int(after)) for before, after in
            np.broadcast_to(_host(pad_width), (np.ndim(array), 2))]


# the modes whose padding is the constant or copies of entries; 'linear_ramp', 'maximum',
# 'mean', 'median', 'minimum' and a callable compute theirs from the values
_COPYING_MODES = ("edge", "reflect", "symmetric", "wrap")


def _checked_mode(mode):
    """The mode, where 'empty' counts as 'constant': the entries it leaves are whatever the
    memory held, which no input changes (a zero derivative, as a constant's)."""
    if mode == "empty":
        return "constant"
    if not (isinstance(mode, str) and (mode == "constant" or mode in _COPYING_MODES)):
        # 'mean' and its kin compute their padding from the values: differentiated through
        # their definitions, chosen when the code is made, so only where the call names them
        _refuse_at_user_line(
            1, f"np.pad's mode {mode!r} is differentiated where the call names it; here it is "
            f"a value known only when the function runs (modes 'constant', 'empty', 'edge', "
            f"'reflect', 'symmetric' and 'wrap' work either way)",
            f"write the mode in the call: np.pad(..., mode={mode!r})", "UnsupportedSyntax")
    return mode


def _interior(array, pad_width):
    """The index of `array` inside `np.pad(array, pad_width)`."""
    return tuple(slice(before, before + n) for (before, _), n in
                 zip(_pad_pairs(array, pad_width), shape_of(array)))


def unpad(g, array, pad_width, mode="constant"):
    """Adjoint of `np.pad(array, pad_width, mode)` with respect to `array`: the interior of `g`
    (constant mode), or `g` added back to the entry each position copies."""
    if _checked_mode(mode) == "constant":
        return g[_interior(array, pad_width)]
    return scatter(array, pad_source_index(array, pad_width, mode), g)


def repad(u, array, pad_width, mode="constant"):
    """`u` padded as `array` was (zeros in constant mode): the tangent of np.pad through the
    padded array, and the transpose of `unpad`."""
    return np.pad(u, pad_width, _checked_mode(mode))


def _pad_regions(array, pad_width):
    """(axis, side, index) of each padded band of `np.pad(array, pad_width)`, in the order
    NumPy fills them: the band of axis i spans the padded extent of the axes before it and the
    original extent of those after it (so corners hold the last axis's value)."""
    pairs = _pad_pairs(array, pad_width)
    shape = tuple(shape_of(array))
    regions = []
    for axis, (before, after) in enumerate(pairs):
        rest = tuple(slice(b, b + n) for (b, _), n in zip(pairs[axis + 1:], shape[axis + 1:]))
        regions.append((axis, 0, (slice(None),) * axis + (slice(0, before),) + rest))
        end = before + shape[axis]
        regions.append((axis, 1, (slice(None),) * axis + (slice(end, end + after),) + rest))
    return regions


def _pad_value_shape(values, ndim):
    """How np.pad reads `constant_values`: 'all' (one value), 'pair' (before, after for every
    axis) or 'table' (broadcast to (ndim, 2))."""
    shape = tuple(shape_of(values))
    if int(np.prod(shape)) == 1 and len(shape) < 3:
        return "all"
    if int(np.prod(shape)) == 2 and shape != (2, 1):
        return "pair"
    return "table"


def pad_value_grad(g, array, pad_width, constant_values=0):
    """Adjoint of `np.pad(array, pad_width, constant_values=...)` with respect to the constant
    values: the sum of `g` over the bands each value fills, in their shape."""
    ndim = np.ndim(array)
    table = np.zeros_like(g, shape=(ndim, 2))
    for axis, side, index in _pad_regions(array, pad_width):
        table[axis, side] = np.sum(g[index])
    kind = _pad_value_shape(constant_values, ndim)
    table = real_like(table, constant_values)
    if kind == "all":
        return np.reshape(np.sum(table), shape_of(constant_values))
    if kind == "pair":
        return np.reshape(np.sum(table, axis=0), shape_of(constant_values))
    return unbroadcast(table, constant_values)


def pad_values(values, array, pad_width):
    """`np.pad` of zeros like `array` with constant values `values` (the adjoint of
    `pad_value_grad`, and the tangent of np.pad through its constant values)."""
    pairs = _pad_pairs(array, pad_width)
    out = np.pad(np.zeros_like(array, dtype=np.result_type(array, values)), pairs)
    ndim = np.ndim(array)
    kind = _pad_value_shape(values, ndim)
    if kind == "all":
        table = np.broadcast_to(np.reshape(values, (1, 1)), (ndim, 2))
    elif kind == "pair":
        table = np.broadcast_to(np.reshape(values, (1, 2)), (ndim, 2))
    else:
        table = np.broadcast_to(values, (ndim, 2))
    for axis, side, index in _pad_regions(array, pad_width):
        out[index] = table[axis, side]
    return out
