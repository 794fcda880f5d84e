"""Reading and writing parts of arrays and containers: the adjoint of `x[index]` and of
`x[index] = v`, in-place accumulation, and the index that np.take, np.take_along_axis, np.sort
and `x.item` read."""
import numpy as np

from .arrays import _REAL_SCALARS, _unknown, _xp, shape_of, unbroadcast, zeros_like
from .checks import _refuse_resizing_slice_assignment, is_complex
from .containers import (GradDict, GradList, GradTuple, _is_container, _zero_tree,
                         container_scatter)


def _has_array_index(index):
    parts = index if isinstance(index, tuple) else (index,)
    for part in parts:
        if isinstance(part, (list, range)) or (hasattr(part, "dtype") and np.ndim(part) > 0
                                              and part.dtype != bool):
            return True
    return False


def scatter(x, index, g):
    """An array like `x`, zero except `g` added at `x[index]` (repeated indices add up)."""
    if _is_container(x):
        return container_scatter(x, index, g)
    out = np.zeros_like(x)
    if not np.issubdtype(out.dtype, np.inexact):
        # read from an integer or bool array (`k[:2]` of `k = np.arange(3)`): the adjoint
        # holds the derivative's values, not the array's
        out = out.astype(np.result_type(g, 1.0))
    if np.ndim(out) == 0:
        # x[None], x[...], x[()] of a 0-d x (or a mask of it) all hold its one entry
        return out + (g if np.ndim(g) == 0 else np.sum(g))
    add_at(out, index, g)
    return out


def scatter_entries(x, keys, gs):
    """`scatter(x, k, g)` summed over the distinct literal keys `keys` and their `gs` (the
    adjoint of an unpacking, optimize/packed_entries.py): for a list, tuple or dict one
    container with every entry in place."""
    if isinstance(x, dict):
        return GradDict(zip(keys, gs))
    if isinstance(x, (list, tuple)):
        out = GradList([None] * max(len(x), max(keys) + 1))   # (as container_scatter)
        for key, g in zip(keys, gs):
            out[key] = g
        return out
    out = scatter(x, keys[0], gs[0])         # an array of its own: the rest added in place
    for key, g in zip(keys[1:], gs[1:]):
        add_at(out, key, g)
    return out


def entries_at(g, keys, likes):
    """The adjoints of the values `scatter_entries(x, keys, likes)` placed: entry `k` of
    the container (or array) adjoint `g`, like each value, a zero where `g` has none."""
    return GradTuple(unbroadcast(element(g, key, like), like) for key, like in zip(keys, likes))


def zipped(xs):
    """`list(zip(*xs))`: the i-th entries of the sequences in `xs`, a tuple for each i."""
    return list(zip(*xs))


def unzipped(g, xs):
    """The adjoint of `zipped(xs)`, for `xs`: entry j of the i-th tuple's adjoint is that of
    xs[j][i]; None (a zero) past the shortest sequence, where zip stopped."""
    def entry(i, j):
        return None if g is None or i >= len(g) or g[i] is None else g[i][j]
    out = GradList()
    for j, x in enumerate(xs):
        entries = [entry(i, j) for i in range(len(x))]
        if isinstance(x, (list, tuple)):
            out.append(GradList(entries))
        else:                           # an array's rows: an array adjoint
            out.append(np.stack([zeros_like(x[i]) if e is None else e
                                 for i, e in enumerate(entries)]).astype(np.result_type(x, 1.0)))
    return np.stack(out) if isinstance(xs, np.ndarray) else out     # zip(*m): m's rows


def rezipped(u, xs):
    """The transpose of `unzipped(., xs)`: for the i-th tuple zip made of `xs`, the entries
    of `u` (shaped like xs's adjoint) at i, a zero where `u` has none."""
    def entry(j, i):
        part = u[j] if u is not None and j < len(u) else None
        return zeros_like(xs[j][i]) if part is None else element(part, i, xs[j][i])
    count = min((len(x) for x in xs), default=0)
    return GradList(GradTuple(entry(j, i) for j in range(len(xs))) for i in range(count))


def scatter_distinct(x, index, g):
    """`scatter(x, index, g)` for an array `x` and an index whose positions never repeat
    (analysis/index_ranges.py): a store into zeros does what np.add.at does, for less. An
    `x` not known to be a NumPy array when the code was made may be another: it is asked."""
    if type(x) is not np.ndarray or x.dtype.kind != "c" and not (
            type(g) is np.ndarray and g.dtype.kind != "c") and is_complex(g):
        return scatter(x, index, g)     # (a store would drop what add_at refuses to cast)
    out = np.zeros(x.shape, x.dtype)    # (np.zeros_like's dispatch costs more, on small arrays)
    out[index] = g
    return out


def scatter_by_range(x, index, g, k):
    """`scatter(x, index, g)` where `index[k]` always holds `np.arange(n)` (analysis/
    index_ranges.py) but the shapes of the other parts were not known when the code was made:
    its positions never repeat where each part is an int or an integer array of the range's
    shape (the range's entries, each once, tell them apart), which is asked here from their
    shapes alone."""
    r = index[k]
    if type(r) is np.ndarray and r.ndim == 1 and all(
            type(p) is int or type(p) is np.ndarray and p.dtype.kind in "iu" and
            p.shape == r.shape for p in index):
        return scatter_distinct(x, index, g)
    return scatter(x, index, g)


def add_at(d, index, g):
    """`d[index] += g` in place, repeated indices adding up; `d` must be an array of its own."""
    if type(index) is int and type(d) is np.ndarray and d.ndim == 1 and type(g) in _REAL_SCALARS:
        d[index] += g                 # the common case, first: a number into a vector
        return
    if isinstance(d, list) and isinstance(index, int) and index >= len(d):
        d.extend([None] * (index + 1 - len(d)))   # a list adjoint cut short by `truncate`
    if isinstance(d, (dict, list)):
        current = d.get(index) if isinstance(d, dict) else d[index]
        d[index] = g if current is None else current + g
        return
    xp = _xp(d)
    if xp.__name__ == "dask.array" and not _is_basic(index):
        _add_at_positions(d, index, g, xp)
        return
    g = unbroadcast(g, d[index])
    if _has_array_index(index):
        if xp is np:
            np.add.at(d, index, g)
        else:
            import cupyx
            cupyx.scatter_add(d, index, g)
    else:
        d[index] += g


def index_range(d, n):
    """`arange(n)`, to index `d` with in add_at: on the GPU for a CuPy `d` (cupyx.scatter_add
    indexes there), a NumPy array otherwise (add_at reads a Dask array's positions at a NumPy
    index eagerly, and at a lazy one only where Dask can index with it)."""
    xp = _xp(d)
    return xp.arange(n) if xp.__name__ == "cupy" else np.arange(n)


def _is_basic(index):
    """Whether `index` holds only integers, slices and `...`: what Dask assigns at (not at an
    array, a mask or a new axis)."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(part is Ellipsis or isinstance(part, (int, np.integer, slice)) for part in parts)


def _add_at_positions(d, index, g, xp):
    """`add_at` for a Dask array, whose item assignment keeps one write where a position
    repeats and cannot assign at a mask: `g` is summed per flat position instead. The index
    reads positions the way the forward pass read `d`'s values."""
    positions = _positions(d, index, xp)
    g = xp.asarray(unbroadcast(g, positions))
    if not _unknown(g.shape) and g.chunks != positions.chunks:
        g = g.rechunk(positions.chunks)     # block by block below (NaN lengths align already)
    if is_complex(g):
        sums = (_sum_at(positions, g.real, d.size, xp)
                + 1j * _sum_at(positions, g.imag, d.size, xp))
    else:
        sums = _sum_at(positions, g, d.size, xp)
    d[...] = d + sums.reshape(d.shape).rechunk(d.chunks).astype(d.dtype)


def _positions(d, index, xp):
    """The flat positions `d[index]` reads. A NumPy index picks them from NumPy positions
    (Dask cannot index with two arrays; this costs an integer per entry of `d` on the host); a
    Dask index (a lazy mask) picks them lazily, from positions chunked like `d`."""
    parts = index if isinstance(index, tuple) else (index,)
    if not any(type(part).__module__.startswith("dask") for part in parts):
        return xp.from_array(np.arange(d.size).reshape(d.shape)[index])
    return xp.arange(d.size, chunks=d.size).reshape(d.shape).rechunk(d.chunks)[index]


def _sum_at(positions, weights, size, xp):
    """The sum of `weights` at each flat position, block by block: blocks selected by a mask
    have lengths known only once computed, which rules out raveling the whole array. Each
    block's sums span all `size` positions (as dask.array.bincount's do)."""
    import dask
    block_sums = dask.delayed(_block_sums)
    parts = [xp.from_delayed(block_sums(p, w, size), (size,), dtype=weights.dtype)
             for p, w in zip(positions.to_delayed().ravel(), weights.to_delayed().ravel())]
    return xp.sum(xp.stack(parts), axis=0)


def _block_sums(positions, weights, size):
    return np.bincount(np.ravel(positions), weights=np.ravel(weights), minlength=size)


def zero_at(g, index):
    """A copy of `g` with `g[index]` set to zero (the adjoint of overwriting `x[index]`)."""
    if isinstance(g, dict):
        return GradDict((k, v) for k, v in g.items() if k != index)
    if isinstance(g, (list, tuple)):
        out = GradList(g)
        if isinstance(index, slice):
            out[index] = [None] * len(out[index])
        elif -len(out) <= index < len(out):
            out[index] = None
        return out
    out = np.array(g, copy=True) if _xp(g) is np else g.copy()
    out[index] = 0
    return out


def last_writes(g, index):
    """`g[index]`, the adjoint that `x[index] = v` hands to `v`, keeping only the writes that
    stay: where `index` names one position more than once, NumPy keeps the last value written
    there, so the earlier entries of `v` get zero."""
    part = g[index]
    if _is_container(g) or not _has_array_index(index):
        return part
    xp = _xp(g)
    order = xp.full(g.shape, -1, dtype=np.intp)
    ids = xp.arange(part.size, dtype=np.intp).reshape(part.shape)
    order[index] = ids                      # the same index, so the same write wins
    kept = order[index] == ids
    if bool(kept.all()):
        return part
    return xp.where(kept, part, 0)


def overwrite_at(x, index, g):
    """Zeros like `x` with `g` written at `x[index]`, the last write winning (the adjoint of
    `last_writes`)."""
    if _is_container(x):
        return container_scatter(x, index, g)
    out = zeros_like(x)
    out[index] = g
    return out


def element(g, index, like):
    """Entry `index` of a container adjoint `g`, as an array like `like` (zero if missing)."""
    if isinstance(g, dict):
        value = g.get(index)
    elif isinstance(g, (list, tuple)) and isinstance(index, slice):
        value = GradList(g[index])     # `xs[i:j] = ys`: entries nobody read stay None (zero)
        if _is_container(like) and len(value) != len(like):
            _refuse_resizing_slice_assignment()
    elif isinstance(g, (list, tuple)) and -len(g) <= index < len(g):
        value = g[index]
    elif isinstance(g, (list, tuple)) or type(index) is int and not -len(g) <= index < len(g):
        value = None                   # past the end: an entry a list gained after NumPy read it
    else:
        value = g[index]
    if value is None:
        return zeros_like(like) if not _is_container(like) else _zero_tree(like)
    return value


def take_index(a, indices, axis=None, mode="raise"):
    """An index such that `a[index]` is `np.take(a, indices, axis, mode=mode)`."""
    shape = tuple(shape_of(a))
    xp = _xp(a)
    n = int(np.prod(shape)) if axis is None else shape[axis]
    if not isinstance(indices, (int, np.integer)):
        indices = xp.asarray(indices)
    if mode == "clip":
        indices = xp.clip(indices, 0, n - 1)
    elif mode == "wrap" or axis is None:
        indices = indices % n
    if axis is None:
        return tuple(xp.unravel_index(indices, shape))
    return (slice(None),) * (axis % len(shape)) + (indices,)


def along_axis_index(a, indices, axis):
    """An index such that `a[index]` is `np.take_along_axis(a, indices, axis)`."""
    shape = tuple(shape_of(a))
    xp = _xp(a)
    if axis is None:
        return tuple(xp.unravel_index(xp.asarray(indices) % int(np.prod(shape)), shape))
    axis = axis % len(shape)
    indices = xp.asarray(indices)
    return tuple(indices if i == axis else
                 xp.arange(n).reshape((1,) * i + (n,) + (1,) * (len(shape) - i - 1))
                 for i, n in enumerate(shape))


def sort_index(a, axis=-1, kind=None):
    """An index such that `a[index]` is `np.sort(a, axis)` (from np.argsort)."""
    if axis is None:
        return tuple(_xp(a).unravel_index(np.argsort(np.ravel(a), kind=kind), np.shape(a)))
    return along_axis_index(a, np.argsort(a, axis=axis, kind=kind), axis)


def sorted_order(xs, key=None, reverse=False):
    """The positions of `xs` in the order `sorted(xs, key=key, reverse=reverse)` lists them
    (Python's sort is stable, so ties keep the order sorted gives them)."""
    items = list(xs)
    if key is None:
        return sorted(range(len(items)), key=items.__getitem__, reverse=reverse)
    return sorted(range(len(items)), key=lambda i: key(items[i]), reverse=reverse)


def sorted_grad(g, xs, key=None, reverse=False):
    """Adjoint of `sorted(xs, ...)`: entry i of `g` (None a zero) goes back to the position of
    `xs` it was taken from."""
    order = sorted_order(xs, key, reverse)
    if isinstance(xs, (list, tuple)):
        out = GradList([None] * len(xs))
        for i, position in enumerate(order):
            out[position] = g[i]
        return out
    out = zeros_like(xs)
    for i, position in enumerate(order):
        if g[i] is not None:
            out[position] = out[position] + g[i]
    return out


def sorted_tangent(t, xs, key=None, reverse=False):
    """Tangent of `sorted(xs, ...)` (and the transpose of sorted_grad): `t`'s entries in the
    sorted order, as a list."""
    return GradList(t[position] for position in sorted_order(xs, key, reverse))


def item_index(x, *args):
    """The index of `x` that `x.item(*args)` reads."""
    shape = tuple(shape_of(x))
    if not args:
        if int(np.prod(shape)) != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return (0,) * len(shape)
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    if len(args) == 1:
        return tuple(int(i) for i in np.unravel_index(int(args[0]) % int(np.prod(shape)), shape))
    return tuple(int(i) for i in args)
