"""Adjoints of reductions: the incoming adjoint is spread back over the reduced axes."""
import numpy as np

from s2s_ad.rules import adjoint, d, method, non_differentiable
from s2s_ad.runtime import (average_weights, divide_or_zero, extremum_mask, norm_grad, prod_grad, reduction_count,
                            through_cast, uncumsum, undiagonal, undiff, unreduce, unweight)


@adjoint(np.sum, method("sum"))
def sum(y, x, axis=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis, keepdims)


@adjoint(np.mean, method("mean"))
def mean(y, x, axis=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis, keepdims) / reduction_count(x, axis)


@adjoint(np.prod, method("prod"))
def prod(y, x, axis=None, keepdims=False):
    d[x] = prod_grad(d[y], y, x, axis, keepdims)


@adjoint(np.max, np.amax, method("max"), np.min, np.amin, method("min"))
def extremum(y, x, axis=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis, keepdims) * extremum_mask(x, y, axis, keepdims)


@adjoint(np.var, method("var"))
def var(y, x, axis=None, keepdims=False, ddof=0):
    d[x] = unreduce(d[y], x, axis, keepdims) * 2 * (x - np.mean(x, axis=axis, keepdims=True)) / reduction_count(x, axis, ddof)


@adjoint(np.std, method("std"))
def std(y, x, axis=None, keepdims=False, ddof=0):
    # 0 where std is 0 (one element, or equal entries: no derivative there; 0 as JAX picks)
    d[x] = unreduce(divide_or_zero(d[y], y), x, axis, keepdims) * (x - np.mean(x, axis=axis, keepdims=True)) / reduction_count(x, axis, ddof)


@adjoint(np.linalg.norm)
def norm(y, x, ord=None, axis=None, keepdims=False):
    d[x] = norm_grad(d[y], y, x, ord, axis, keepdims)


@adjoint(np.cumsum, method("cumsum"))
def cumsum(y, x, axis=None, dtype=None, out=None):
    d[x] = uncumsum(through_cast(d[y], y), x, axis)


@adjoint(np.trace, method("trace"))
def trace(y, x, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d[x] = undiagonal(np.expand_dims(through_cast(d[y], y), -1), x, offset, axis1, axis2)


@adjoint(np.average)
def average(y, a, axis=None, weights=None, returned=False, *, keepdims=False):
    w = average_weights(a, axis, weights, returned)
    share = unreduce(d[y], a, axis, keepdims) / np.sum(w, axis=axis, keepdims=True)
    d[a] = share * w
    d[weights] = unweight(share * (a - unreduce(y, a, axis, keepdims)), weights, axis)


@adjoint(np.ptp)
def ptp(y, a, axis=None, out=None, keepdims=False):
    d[a] = unreduce(d[y], a, axis, keepdims) * (extremum_mask(a, np.max(a, axis=axis, keepdims=keepdims), axis, keepdims) - extremum_mask(a, np.min(a, axis=axis, keepdims=keepdims), axis, keepdims))


@adjoint(np.nansum)
def nansum(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[a] = unreduce(d[y], a, axis, keepdims) * ~np.isnan(a)


@adjoint(np.nanmean)
def nanmean(y, a, axis=None, dtype=None, out=None, keepdims=False):
    # an all-NaN group's mean is NaN whatever its entries: 0, not 0 / 0
    d[a] = unreduce(d[y], a, axis, keepdims) * divide_or_zero(~np.isnan(a), np.sum(~np.isnan(a), axis=axis, keepdims=True))


@adjoint(np.diff)
def diff(y, a, n=1, axis=-1, prepend=None, append=None):
    d[a] = undiff(d[y], a, n, axis, prepend, append, "a")
    d[prepend] = undiff(d[y], a, n, axis, prepend, append, "prepend")
    d[append] = undiff(d[y], a, n, axis, prepend, append, "append")


non_differentiable(
    np.argmax, np.argmin, method("argmax"), method("argmin"), np.argsort, method("argsort"),
    np.all, np.any, method("all"), method("any"), np.count_nonzero, np.nonzero,
)
