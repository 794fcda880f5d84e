"""Adjoints of the finite-difference functions np.ediff1d and np.trapezoid: each is linear in
the array it differences (np.trapezoid in y, and in the spacing of x); and np.gradient at unit
spacing along the first axis, with its transpose, which the definition of np.gradient
(s2s_ad/definitions.py) divides by an even spacing."""
import numpy as np

from .arrays import shape_of, unbroadcast

# np.gradient's one-sided differences at the edges, first and last row: f[:k] and f[-k:]
_EDGES = {1: ((-1.0, 1.0), (-1.0, 1.0)), 2: ((-1.5, 2.0, -0.5), (0.5, -2.0, 1.5))}


def unit_differences(f, edge_order=1):
    """np.gradient of `f` along its first axis at unit spacing: linear in f."""
    return np.gradient(f, axis=0, edge_order=edge_order)


def unit_differences_transposed(g, edge_order=1):
    """The transpose of unit_differences: the adjoint of f, given the result's adjoint `g`."""
    if edge_order not in _EDGES:
        raise ValueError("'edge_order' greater than 2 not supported")
    moved = np.moveaxis(g, 0, -1)
    n = shape_of(moved)[-1]
    inner = moved[..., 1:-1] / 2.0
    out = _pad_last(inner, 2, 0) - _pad_last(inner, 0, 2)
    first, last = _EDGES[edge_order]
    k = len(first)
    out = out + _edge(moved[..., :1], first, 0, n - k) + _edge(moved[..., -1:], last, n - k, 0)
    return np.moveaxis(out, -1, 0)

def _pad_last(x, before, after):
    return np.pad(x, [(0, 0)] * (np.ndim(x) - 1) + [(before, after)])


def _edge(row, weights, before, after):
    """`row` (one entry on the last axis) spread over len(weights) entries, padded."""
    return _pad_last(np.concatenate([row * c for c in weights], axis=-1), before, after)


def _ediff1d_layout(ary, to_end, to_begin, part):
    """(slice of the result that `part` fills, count of entries before it, after it)."""
    begin = 0 if to_begin is None else int(np.prod(shape_of(to_begin)))
    end = 0 if to_end is None else int(np.prod(shape_of(to_end)))
    middle = max(int(np.prod(shape_of(ary))) - 1, 0)
    spans = {"to_begin": (0, begin), "ary": (begin, begin + middle),
             "to_end": (begin + middle, begin + middle + end)}
    start, stop = spans[part]
    return slice(start, stop), start, begin + middle + end - stop


def unediff1d(g, ary, to_end=None, to_begin=None, part="ary"):
    """The adjoint of `part` ('ary', 'to_end' or 'to_begin') of np.ediff1d, given `g`."""
    window, _, _ = _ediff1d_layout(ary, to_end, to_begin, part)
    piece = g[window]
    if part != "ary":
        like = to_end if part == "to_end" else to_begin
        return np.reshape(piece, shape_of(like))
    return np.reshape(np.pad(piece, (1, 0)) - np.pad(piece, (0, 1)), shape_of(ary))


def reediff1d(t, ary, to_end=None, to_begin=None, part="ary"):
    """`part`'s share of np.ediff1d's result at tangent `t` (the transpose of unediff1d)."""
    _, before, after = _ediff1d_layout(ary, to_end, to_begin, part)
    flat = np.ravel(t)
    return np.pad(np.diff(flat) if part == "ary" else flat, (before, after))


def pair_means(y, axis=-1):
    """(y[1:] + y[:-1]) / 2 along `axis`: the trapezoids' mean heights."""
    moved = np.moveaxis(y, axis, -1)
    return np.moveaxis((moved[..., 1:] + moved[..., :-1]) / 2, -1, axis)


def unpair_means(g, axis=-1):
    """The transpose of pair_means."""
    moved = np.moveaxis(g, axis, -1) / 2
    return np.moveaxis(_pad_last(moved, 1, 0) + _pad_last(moved, 0, 1), -1, axis)


def _spread_on(x, ndim, axis):
    """A 1-D x shaped to run along `axis` of an `ndim`-dimensional array."""
    shape = [1] * ndim
    shape[axis] = -1
    return np.reshape(x, shape)


def spacing_of(t, x, y, axis=-1):
    """np.trapezoid's widths np.diff(x) for coordinates `t` shaped like x, ready to broadcast
    against pair_means(y, axis) (a 1-D x runs along `axis`)."""
    if len(shape_of(x)) == 1:
        return _spread_on(np.diff(t), len(shape_of(y)), axis)
    return np.diff(t, axis=axis)


def unspacing(g, x, y, axis=-1):
    """The transpose of spacing_of: the adjoint of x, given the widths' adjoint `g`."""
    if len(shape_of(x)) == 1:
        other = tuple(a for a in range(np.ndim(g)) if a != axis % np.ndim(g))
        g = np.sum(g, axis=other)
        return np.pad(g, (1, 0)) - np.pad(g, (0, 1))
    moved = np.moveaxis(g, axis, -1)
    return unbroadcast(np.moveaxis(_pad_last(moved, 1, 0) - _pad_last(moved, 0, 1), -1, axis), x)


def trapezoid_widths(y, x=None, dx=1.0, axis=-1):
    """The widths np.trapezoid multiplies the mean heights by: np.diff(x), or dx (spread over
    the trapezoids, so that either broadcasts against pair_means(y, axis) alike)."""
    return widths_of_dx(dx, x, y, axis) if x is None else spacing_of(x, x, y, axis)


def widths_of_dx(t, x, y, axis=-1):
    """The widths a spacing `t` gives where np.trapezoid reads dx (no x given); else 0."""
    return 0.0 if x is not None else t * np.ones_like(pair_means(y, axis))


def uses_dx(x):
    """1.0 where np.trapezoid reads dx (no x given), else 0.0."""
    return 1.0 if x is None else 0.0
