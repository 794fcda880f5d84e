"""Order statistics (np.quantile, np.percentile, np.median, their NaN-skipping twins and
np.partition) and the NaN-skipping reductions np.nanmax, np.nanmin, np.nanprod, np.nanvar and
np.nanstd. NaN entries receive no derivative.

A quantile is, near its input, a weighted sum of the one or two entries it interpolates between
(runtime.quantile_weights, which reads every `method` as NumPy does); weighted_reduce applies the
weights to a tangent and weighted_unreduce, its transpose, to an adjoint. The rules leave out
out=, overwrite_input= and weights=: a call that passes them is refused. They follow the
entries only: a derivative with respect to q is refused when the derivative runs."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, linear, non_differentiable, tangent
from s2s_ad.runtime import (arrangement_index, divide_or_zero, nan_count, nan_extremum_mask,
                            prod_grad, prod_others, quantile_weights, refuse_q_derivative,
                            scatter, unreduce, weighted_reduce, weighted_unreduce)


@adjoint(np.quantile)
def quantile(y, a, q, axis=None, method="linear", keepdims=False):
    d[a] = weighted_unreduce(d[y], quantile_weights(a, q, axis, method), a, axis, keepdims)
    d[q] = refuse_q_derivative(q)


@tangent(np.quantile)
def quantile_tangent(y, a, q, axis=None, method="linear", keepdims=False):
    d[y] = weighted_reduce(d[a], quantile_weights(a, q, axis, method), axis, keepdims) + refuse_q_derivative(d[q])


@adjoint(np.nanquantile)
def nanquantile(y, a, q, axis=None, method="linear", keepdims=False):
    d[a] = weighted_unreduce(d[y], quantile_weights(a, q, axis, method, True), a, axis, keepdims)
    d[q] = refuse_q_derivative(q)


@tangent(np.nanquantile)
def nanquantile_tangent(y, a, q, axis=None, method="linear", keepdims=False):
    d[y] = weighted_reduce(d[a], quantile_weights(a, q, axis, method, True), axis, keepdims) + refuse_q_derivative(d[q])


@adjoint(np.percentile)
def percentile(y, a, q, axis=None, method="linear", keepdims=False):
    d[a] = weighted_unreduce(d[y], quantile_weights(a, np.true_divide(q, 100), axis, method), a, axis, keepdims)
    d[q] = refuse_q_derivative(q)


@tangent(np.percentile)
def percentile_tangent(y, a, q, axis=None, method="linear", keepdims=False):
    d[y] = weighted_reduce(d[a], quantile_weights(a, np.true_divide(q, 100), axis, method), axis, keepdims) + refuse_q_derivative(d[q])


@adjoint(np.nanpercentile)
def nanpercentile(y, a, q, axis=None, method="linear", keepdims=False):
    d[a] = weighted_unreduce(d[y], quantile_weights(a, np.true_divide(q, 100), axis, method, True), a, axis, keepdims)
    d[q] = refuse_q_derivative(q)


@tangent(np.nanpercentile)
def nanpercentile_tangent(y, a, q, axis=None, method="linear", keepdims=False):
    d[y] = weighted_reduce(d[a], quantile_weights(a, np.true_divide(q, 100), axis, method, True), axis, keepdims) + refuse_q_derivative(d[q])


@adjoint(np.median)
def median(y, a, axis=None, keepdims=False):
    d[a] = weighted_unreduce(d[y], quantile_weights(a, 0.5, axis), a, axis, keepdims)


@tangent(np.median)
def median_tangent(y, a, axis=None, keepdims=False):
    d[y] = weighted_reduce(d[a], quantile_weights(a, 0.5, axis), axis, keepdims)


@adjoint(np.nanmedian)
def nanmedian(y, a, axis=None, keepdims=False):
    d[a] = weighted_unreduce(d[y], quantile_weights(a, 0.5, axis, "linear", True), a, axis, keepdims)


@tangent(np.nanmedian)
def nanmedian_tangent(y, a, axis=None, keepdims=False):
    d[y] = weighted_reduce(d[a], quantile_weights(a, 0.5, axis, "linear", True), axis, keepdims)


# np.partition only rearranges: each entry's derivative goes back to where it came from
@adjoint(np.partition)
def partition(y, a, kth, axis=-1, kind="introselect"):
    d[a] = scatter(a, arrangement_index(a, y, axis), d[y])


@tangent(np.partition)
def partition_tangent(y, a, kth, axis=-1, kind="introselect"):
    d[y] = d[a][arrangement_index(a, y, axis)]


# ties share the derivative equally, as np.max's rule does
@adjoint(np.nanmax, np.nanmin)
def nanextremum(y, a, axis=None, keepdims=False):
    d[a] = unreduce(d[y], a, axis, keepdims) * nan_extremum_mask(a, y, axis, keepdims)


@tangent(np.nanmax, np.nanmin)
def nanextremum_tangent(y, a, axis=None, keepdims=False):
    d[y] = np.sum(np.where(np.isnan(a), 0, d[a]) * nan_extremum_mask(a, y, axis, keepdims), axis=axis, keepdims=keepdims)


# NaN entries are factors of 1
@adjoint(np.nanprod)
def nanprod(y, a, axis=None, keepdims=False):
    d[a] = np.where(np.isnan(a), 0, prod_grad(d[y], y, np.where(np.isnan(a), 1, a), axis, keepdims))


@tangent(np.nanprod)
def nanprod_tangent(y, a, axis=None, keepdims=False):
    d[y] = np.sum(prod_others(np.where(np.isnan(a), 1, a), axis) * np.where(np.isnan(a), 0, d[a]), axis=axis, keepdims=keepdims)


@adjoint(np.nanvar)
def nanvar(y, a, axis=None, ddof=0, keepdims=False):
    d[a] = divide_or_zero(unreduce(d[y], a, axis, keepdims) * 2 * np.where(np.isnan(a), 0, a - np.nanmean(a, axis=axis, keepdims=True)), nan_count(a, axis, ddof))


@tangent(np.nanvar)
def nanvar_tangent(y, a, axis=None, ddof=0, keepdims=False):
    d[y] = divide_or_zero(np.sum(2 * np.where(np.isnan(a), 0, (a - np.nanmean(a, axis=axis, keepdims=True)) * d[a]), axis=axis, keepdims=keepdims), nan_count(a, axis, ddof, keepdims))


# 0 where the deviation is 0 (one number, or equal numbers: no derivative; 0 as np.std's rule)
@adjoint(np.nanstd)
def nanstd(y, a, axis=None, ddof=0, keepdims=False):
    d[a] = divide_or_zero(unreduce(divide_or_zero(d[y], y), a, axis, keepdims) * np.where(np.isnan(a), 0, a - np.nanmean(a, axis=axis, keepdims=True)), nan_count(a, axis, ddof))


@tangent(np.nanstd)
def nanstd_tangent(y, a, axis=None, ddof=0, keepdims=False):
    d[y] = divide_or_zero(np.sum(np.where(np.isnan(a), 0, (a - np.nanmean(a, axis=axis, keepdims=True)) * d[a]), axis=axis, keepdims=keepdims), nan_count(a, axis, ddof, keepdims) * y)


# the helpers the rules above call: weighted_reduce and weighted_unreduce are each other's
# transposes, linear in what they carry (the weights hold still: they change only where the
# order of the entries does)
@linear(runtime.weighted_reduce)
def weighted_reduce_(r, v, w, axis=None, keepdims=False):
    d[v] = weighted_unreduce(d[r], w, v, axis, keepdims)


@linear(runtime.weighted_unreduce)
def weighted_unreduce_(r, g, w, like, axis=None, keepdims=False):
    d[g] = weighted_reduce(d[r], w, axis, keepdims)


non_differentiable(runtime.quantile_weights, runtime.refuse_q_derivative,
                   runtime.arrangement_index, runtime.nan_extremum_mask, runtime.nan_count)
