"""Adjoints of reductions: sums over axes (and the builtin sum of a list), counts, products,
cumulative sums and weighted averages."""
import numpy as np

from .arrays import _REAL_SCALARS, _unknown, _xp, broadcast_to_like, shape_of, unbroadcast
from .containers import GradList, _is_container


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int) or np.ndim(axis) == 0:
        axis = (int(axis),)
    return tuple(sorted(a % ndim for a in axis))


def unreduce(g, x, axis=None, keepdims=False):
    """Broadcast `g`, the adjoint of a reduction of `x` over `axis`, back to `x`'s shape."""
    if axis is None and type(g) in _REAL_SCALARS:
        return broadcast_to_like(g, x)      # the common case, first: a whole sum's number
    shape = np.shape(x)
    if not keepdims and shape:
        g = np.reshape(g, tuple(1 if a in _axes(axis, len(shape)) else n
                                for a, n in enumerate(shape)))
    return broadcast_to_like(g, x)


def reduction_count(x, axis=None, ddof=0):
    """How many elements of `x` a reduction over `axis` combines into each result, less `ddof`
    and never below zero (as np.var counts its degrees of freedom)."""
    if axis is None and ddof == 0 and type(x) is np.ndarray:
        return x.size                   # the common case, first: a whole mean
    shape = np.shape(x)
    axes = _axes(axis, len(shape))
    if _unknown(shape[a] for a in axes):
        # counted lazily, every group holding as many
        return np.maximum(np.max(np.sum(np.ones_like(x), axis=axes)) - ddof, 0)
    count = 1
    for a in axes:
        count *= shape[a]
    return count if ddof == 0 else max(count - ddof, 0)


_HOST_TRUTHS = (np.ndarray, np.bool_, bool)


def divide_or_zero(a, b):
    """`a / b`, and 0 where `b` is 0. The rules' convention where a function is locally
    constant (np.std of one element) or has no derivative (np.std of equal entries, the norm of
    the zero vector): the derivative there is 0, the subgradient JAX picks, not 0 / 0."""
    zero = b == 0
    # the usual case costs one comparison on `b`; not for a lazy (Dask) `b`, which np.any
    # would compute here
    if type(zero) in _HOST_TRUTHS and not np.any(zero):
        return a / b
    xp = _xp(zero)
    return xp.where(zero, 0.0, a / xp.where(zero, 1.0, b))


def _reduction_parts(x, axis):
    """Axes, zero mask, zero count and product of the nonzero factors of each group."""
    if isinstance(x, (list, tuple)):
        x = np.asarray(x)                # np.prod([a, b]): a list of numbers is an array here
    axes = _axes(axis, np.ndim(x))
    zero = x == 0
    zeros = np.sum(zero, axis=axes, keepdims=True)
    nonzero = np.where(zero, 1, x)
    return axes, zero, zeros, nonzero, np.prod(nonzero, axis=axes, keepdims=True)


def prod_others(x, axis=None):
    """d np.prod(x, axis) / dx: each factor's group product without it (exact at zeros)."""
    _, zero, zeros, nonzero, product = _reduction_parts(x, axis)
    return np.where(zeros == 0, product / nonzero, np.where(zero & (zeros == 1), product, 0))


def prod_grad(g, y, x, axis=None, keepdims=False):
    """Adjoint of `y = np.prod(x, axis, keepdims)` with respect to `x`, given `y`'s adjoint `g`."""
    return unreduce(g, x, axis, keepdims) * prod_others(x, axis)


def prod_hvp(v, x, axis=None):
    """The Hessian of np.prod(x, axis) applied to `v` (shaped like `x`), group by group."""
    axes, zero, zeros, nonzero, product = _reduction_parts(x, axis)
    ratio = v / nonzero
    over_nonzero = np.sum(np.where(zero, 0, ratio), axis=axes, keepdims=True)
    at_zeros = np.sum(np.where(zero, v, 0), axis=axes, keepdims=True)
    no_zero = product / nonzero * (over_nonzero - ratio)
    one_zero = np.where(zero, product * over_nonzero, at_zeros * product / nonzero)
    two_zeros = np.where(zero, product * (at_zeros - v), 0)
    return np.where(zeros == 0, no_zero,
                    np.where(zeros == 1, one_zero, np.where(zeros == 2, two_zeros, 0)))


def spread(g, xs):
    """Adjoint of the builtin `sum(xs)`: every element receives `g`, unbroadcast."""
    if not _is_container(xs):
        return unreduce(g, xs, 0)
    return GradList(unbroadcast(g, x) for x in xs)


def uncumsum(g, x, axis=None):
    """Adjoint of `np.cumsum(x, axis)`: sums of `g` from each position to the end (of the
    flattened array when `axis` is None), in `x`'s shape."""
    if axis is None:
        return np.reshape(np.flip(np.cumsum(np.flip(np.ravel(g)))), np.shape(x))
    return np.flip(np.cumsum(np.flip(g, axis), axis), axis)


def average_weights(a, axis=None, weights=None, returned=False):
    """np.average's weights broadcast to `a`'s shape (ones when there are none)."""
    if returned:
        raise NotImplementedError("s2s_ad cannot differentiate np.average(..., returned=True); "
                                  "compute the sum of the weights separately")
    if weights is None:
        return np.ones_like(a, dtype=np.result_type(a, 1.0))
    shape = tuple(shape_of(a))
    if tuple(shape_of(weights)) != shape:       # 1-D weights along `axis`
        axis = axis % len(shape)
        weights = np.reshape(weights, tuple(n if i == axis else 1 for i, n in enumerate(shape)))
    return np.broadcast_to(weights, shape)


def unweight(g, weights, axis=None):
    """Adjoint of `average_weights` with respect to the weights: `g` summed back to their
    shape."""
    if tuple(shape_of(weights)) == tuple(shape_of(g)):
        return g
    axis = axis % np.ndim(g)
    return np.sum(g, axis=tuple(i for i in range(np.ndim(g)) if i != axis))
