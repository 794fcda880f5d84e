"""Adjoints of functions that rearrange entries without combining them: reshape, ravel,
transpose, np.repeat, np.tile, np.diagonal, np.diag, np.diff and np.linspace."""
import numpy as np

from .arrays import _host, _xp, real_like, shape_of, unbroadcast
from .indexing import add_at, index_range


def _layout(x, order):
    """What `order` means for a reshape of `x`: 'C' or 'F', or for `ravel(order='K')` of an
    array that is neither, the axes in memory order (largest |stride| first; NumPy walks each
    axis forwards even where its stride is negative)."""
    flags = getattr(x, "flags", None)
    if order not in ("A", "K") or flags is None or flags.c_contiguous:
        return "F" if order == "F" else "C"
    if flags.f_contiguous:
        return "F"
    if order == "A":
        return "C"
    strides = x.strides
    return tuple(sorted(range(np.ndim(x)), key=lambda a: -abs(strides[a])))


def _reshaped(g, shape, order):
    # order= only where it is not the default: Dask's reshape takes no order
    return np.reshape(g, shape) if order == "C" else np.reshape(g, shape, order=order)


def unreshape(g, x, order="C"):
    """Adjoint of reshaping or raveling `x` in `order`: `g` back to `x`'s shape."""
    layout = _layout(x, order)
    if isinstance(layout, str):
        return _reshaped(g, np.shape(x), layout)
    shape = np.shape(x)
    g = np.reshape(g, tuple(shape[a] for a in layout))
    return np.transpose(g, tuple(int(i) for i in np.argsort(layout)))


def reshape_as(t, like, x, order="C"):
    """`t`, shaped like `x`, reshaped to `like`'s shape as `order` reads `x` (the adjoint of
    unreshape)."""
    layout = _layout(x, order)
    if isinstance(layout, str):
        return _reshaped(t, np.shape(like), layout)
    return np.reshape(np.transpose(t, layout), np.shape(like))


def untranspose(g, axes=None):
    """Adjoint of transposing by `axes`: transpose back by the inverse permutation."""
    if axes is None or axes == () or axes == (None,):
        return np.transpose(g)
    if len(axes) == 1 and np.ndim(axes[0]) == 1:
        axes = tuple(axes[0])
    ndim = np.ndim(g)
    return np.transpose(g, tuple(int(i) for i in np.argsort([a % ndim for a in axes])))


def transpose_by(g, axes=None):
    """`g` transposed by `axes` as `x.transpose(*axes)` takes them (the adjoint of untranspose)."""
    if axes is None or axes == () or axes == (None,):
        return np.transpose(g)
    if len(axes) == 1 and np.ndim(axes[0]) == 1:
        axes = tuple(axes[0])
    return np.transpose(g, tuple(axes))


def unrepeat(g, a, repeats, axis=None):
    """Adjoint of `np.repeat(a, repeats, axis)`: each entry of `a` gets the sum of its copies."""
    shape = tuple(shape_of(a))
    flat = (int(np.prod(shape)),) if axis is None else shape
    axis = 0 if axis is None else axis % len(shape)
    n = flat[axis]
    counts = _host(repeats).reshape(-1)
    if counts.size == 1:                        # every entry repeated as often: a reshape
        r = int(counts[0])
        grouped = np.reshape(g, flat[:axis] + (n, r) + flat[axis + 1:])
        return np.reshape(np.sum(grouped, axis=axis + 1), shape)
    owner = _xp(g).asarray(np.repeat(np.arange(n), counts))
    moved = np.moveaxis(np.reshape(g, flat[:axis] + (-1,) + flat[axis + 1:]), axis, 0)
    out = np.zeros_like(moved, shape=(n,) + np.shape(moved)[1:])
    add_at(out, owner, moved)
    return np.reshape(np.moveaxis(out, 0, axis), shape)


def untile(g, a, reps):
    """Adjoint of `np.tile(a, reps)`: the sum of the copies of `a` in `g`."""
    shape = tuple(shape_of(a))
    reps = tuple(int(r) for r in np.ravel(reps))
    dims = max(len(reps), len(shape))
    padded = (1,) * (dims - len(shape)) + shape
    reps = (1,) * (dims - len(reps)) + reps
    g = np.reshape(g, tuple(n for pair in zip(reps, padded) for n in pair))
    return np.reshape(np.sum(g, axis=tuple(range(0, 2 * dims, 2))), shape)


def undiagonal(g, a, offset=0, axis1=0, axis2=1):
    """Adjoint of `np.diagonal(a, offset, axis1, axis2)`: zeros like `a` with `g` (or `g`
    broadcast along the diagonal, for np.trace) on that diagonal."""
    inner = np.moveaxis(np.zeros_like(a, dtype=np.result_type(g, a)), (axis1, axis2), (-2, -1))
    rows, columns = np.shape(inner)[-2:]
    length = max(0, min(rows - max(-offset, 0), columns - max(offset, 0)))
    i = index_range(inner, length)
    # written into `inner` itself, which is moved back (a moved Dask array is no view), and
    # by add_at: the diagonal's positions are distinct, and item assignment at two index
    # arrays is what Dask refuses
    add_at(inner, (..., i + max(-offset, 0), i + max(offset, 0)), g)
    return np.moveaxis(inner, (-2, -1), (axis1, axis2))


def undiag(g, v, k=0):
    """Adjoint of `np.diag(v, k)`: the k-th diagonal of `g` for a vector `v`; for a matrix `v`,
    zeros like `v` with `g` on its k-th diagonal."""
    if np.ndim(v) == 1:
        return np.diagonal(g, k)
    return undiagonal(g, v, k)


def _diff_layout(a, axis, prepend, append, part):
    """For `np.diff(a, n, axis, prepend=..., append=...)`: the axis, the shape of the array it
    differences (`prepend`, `a` and `append` joined along `axis`), and the index of `part`
    ('a', 'prepend' or 'append') in it."""
    shape = list(shape_of(a))
    axis = axis % len(shape)

    def length(extra):
        return 0 if extra is None else 1 if np.ndim(extra) == 0 else shape_of(extra)[axis]
    before, after = length(prepend), length(append)
    joined = shape[:axis] + [before + shape[axis] + after] + shape[axis + 1:]
    piece = {"prepend": slice(0, before), "a": slice(before, before + shape[axis]),
             "append": slice(before + shape[axis], before + shape[axis] + after)}[part]
    return axis, tuple(joined), (slice(None),) * axis + (piece,)


def undiff(g, a, n=1, axis=-1, prepend=None, append=None, part="a"):
    """Adjoint of `np.diff(a, n, axis, prepend=..., append=...)` with respect to `part` ('a',
    'prepend' or 'append'), given the result's adjoint `g`."""
    axis, joined, index = _diff_layout(a, axis, prepend, append, part)
    edge_shape = tuple(1 if i == axis else s for i, s in enumerate(np.shape(g)))
    for _ in range(n):
        edge = np.zeros_like(g, shape=edge_shape)
        g = np.concatenate([edge, g], axis) - np.concatenate([g, edge], axis)
    g = g[index]
    if part == "a":
        return real_like(g, a)
    return unbroadcast(g, prepend if part == "prepend" else append)


def rediff(u, a, n=1, axis=-1, prepend=None, append=None, part="a"):
    """The adjoint of `undiff` with respect to `g`: `u` (shaped like `part`) placed where
    `part` sits in the joined array, differenced as np.diff does."""
    axis, joined, index = _diff_layout(a, axis, prepend, append, part)
    out = np.zeros_like(u, shape=joined)
    out[index] = u
    return np.diff(out, n, axis)


def linspace_fraction(y, num, endpoint, axis):
    """For `y = np.linspace(start, stop, num)`: how far along each entry is, shaped to broadcast
    against `y` (`y = start + t * (stop - start)`)."""
    t = _xp(y).linspace(0.0, 1.0, num, endpoint=endpoint)
    shape = [1] * np.ndim(y)
    shape[axis] = num
    return t.reshape(shape)


def across_linspace(value, y, axis):
    """`start` or `stop` of `y = np.linspace(...)`, shaped to broadcast against `y`."""
    shape = list(np.shape(y))
    del shape[axis]
    return _xp(y).expand_dims(_xp(y).broadcast_to(value, shape), axis)
