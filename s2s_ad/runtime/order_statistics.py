"""Derivatives of order statistics (np.quantile, np.percentile, np.median and their NaN-skipping
twins, np.partition) and of the NaN-skipping reductions.

A quantile is (1 - gamma) * s[lo] + gamma * s[hi], with s the sorted lane and lo, hi, gamma
fixed by the lane's length, q and the method: locally a weighted sum of two entries. The weights
are found by asking NumPy for the quantile of the ranks 0, 1, ..., n - 1 themselves (the
"virtual index" lo + gamma), so every method NumPy has is read exactly as NumPy computes it.
Ties go to the entries a stable sort puts at those places, as JAX's sort-based quantile does."""
import warnings

import numpy as np

from .arrays import _xp, shape_of
from .indexing import along_axis_index
from .reductions import _axes, divide_or_zero, unreduce


def _lanes_last(a, axis):
    """`a` with the reduced axes moved last and merged into one, and the axis order used."""
    ndim = np.ndim(a)
    reduced = _axes(axis, ndim)
    order = [i for i in range(ndim) if i not in reduced] + list(reduced)
    moved = np.transpose(a, order)
    kept = tuple(shape_of(moved))[:ndim - len(reduced)]
    return np.reshape(moved, kept + (-1,)), order


def _virtual_index(lanes, q, method, skip_nan):
    """lo + gamma for each q (and each lane, where NaNs are skipped): NumPy's quantile of the
    ranks; NaN where a lane has no number."""
    m = shape_of(lanes)[-1]
    ranks = np.arange(m, dtype=np.float64)
    if not skip_nan:
        index = np.quantile(ranks, q, method=method)
        return np.reshape(index, np.shape(q) + (1,) * (np.ndim(lanes) - 1))
    counts = np.asarray(np.sum(~np.isnan(_host_values(lanes)), axis=-1))
    ranks = np.where(ranks < counts[..., None], ranks, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)        # an all-NaN lane: no weights
        return np.nanquantile(ranks, q, axis=-1, method=method)


def _host_values(x):
    return x.get() if type(x).__module__.startswith("cupy") else np.asarray(x)


def quantile_weights(a, q, axis=None, method="linear", skip_nan=False):
    """Weights w of shape q.shape + a.shape such that np.quantile(a, q, axis, method=method)
    (np.nanquantile where `skip_nan`) is the sum of w * a over `axis`, near `a`."""
    lanes, order = _lanes_last(a, axis)
    host = _host_values(lanes)
    q = np.asarray(q, dtype=np.float64)
    index = np.broadcast_to(_virtual_index(host, q, method, skip_nan),
                            q.shape + host.shape[:-1])
    found = ~np.isnan(index)
    index = np.where(found, index, 0.0)
    lo = np.floor(index)
    gamma = np.where(found, index - lo, 0.0)
    lo = lo.astype(np.intp)
    hi = np.minimum(lo + 1, host.shape[-1] - 1)
    ranked = np.broadcast_to(np.argsort(host, axis=-1, kind="stable"), q.shape + host.shape)
    places = np.arange(host.shape[-1])
    weights = ((places == np.take_along_axis(ranked, lo[..., None], -1)) * (found * (1 - gamma))[..., None]
               + (places == np.take_along_axis(ranked, hi[..., None], -1)) * gamma[..., None])
    reduced_shape = tuple(shape_of(a)[i] for i in order[len(host.shape) - 1:])
    weights = np.reshape(weights, q.shape + host.shape[:-1] + reduced_shape)
    back = list(range(q.ndim)) + [q.ndim + i for i in np.argsort(order)]
    return _xp(a).asarray(np.transpose(weights, back).astype(np.result_type(a, 1.0)))


def _leading(w, like):
    """The axes of the weights `w` in front of `like`'s: the shape of q."""
    return np.ndim(w) - np.ndim(like)


def weighted_reduce(v, w, axis=None, keepdims=False):
    """The sum over `axis` of w * v (`w` from quantile_weights: a quantile's tangent)."""
    lead = _leading(w, v)
    return np.sum(w * v, axis=tuple(lead + i for i in _axes(axis, np.ndim(v))),
                  keepdims=keepdims)


def weighted_unreduce(g, w, like, axis=None, keepdims=False):
    """The transpose of weighted_reduce: `g`, shaped like its result, spread back over the
    reduced axes of `like` with the weights `w` and summed over q's axes."""
    lead = _leading(w, like)
    reduced = _axes(axis, np.ndim(like))
    shape = tuple(shape_of(w))[:lead] + tuple(1 if i in reduced else n
                                             for i, n in enumerate(shape_of(like)))
    return np.sum(w * np.reshape(g, shape), axis=tuple(range(lead)))


def arrangement_index(a, y, axis=-1):
    """An index such that `a[index]` is `y`, a rearrangement of `a` along `axis` (of the
    flattened `a` when `axis` is None), as np.partition makes: the entries of equal rank in
    the two are paired (equal values by the order a stable sort gives them)."""
    source = np.ravel(a) if axis is None else a
    along = -1 if axis is None else axis
    rank_of_place = np.argsort(np.argsort(y, axis=along, kind="stable"), axis=along, kind="stable")
    places = np.take_along_axis(np.argsort(source, axis=along, kind="stable"), rank_of_place, along)
    return along_axis_index(a, places, axis)


def nan_extremum_mask(a, y, axis=None, keepdims=False):
    """Where `a` attains its NaN-skipping max/min `y`, ties sharing equally; 0 in a lane of
    NaNs only (its result is NaN whatever its entries)."""
    hits = a == unreduce(y, a, axis, keepdims)
    return divide_or_zero(hits, np.sum(hits, axis=axis, keepdims=True))


def nan_count(a, axis=None, ddof=0, keepdims=True):
    """How many numbers (not NaN) each reduction over `axis` combines, less `ddof`, never
    below zero: np.nanvar's degrees of freedom."""
    count = np.sum(~np.isnan(a), axis=axis, keepdims=keepdims) - ddof
    return np.maximum(count, 0)


def refuse_q_derivative(q):
    """Raised where a quantile's q carries a derivative: its rule follows only the entries."""
    raise NotImplementedError(
        "s2s_ad differentiates np.quantile/np.percentile only with respect to the array, not q; "
        "wrap q in s2s_ad.stop_gradient(...) if it should be a constant")
