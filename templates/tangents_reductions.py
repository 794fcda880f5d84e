"""Tangents of reductions: reduce the tangent the way the value was reduced."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import d, method, tangent
from s2s_ad.runtime import (average_weights, divide_or_zero, extremum_mask, rediff,
                            reduction_count, tangent_cast, unreduce)

prod_others = getattr(runtime, "prod_others", None)
norm_direction = getattr(runtime, "norm_direction", None)


@tangent(np.sum, method("sum"))
def sum(y, x, axis=None, keepdims=False):
    d[y] = np.sum(d[x], axis=axis, keepdims=keepdims)


@tangent(np.mean, method("mean"))
def mean(y, x, axis=None, keepdims=False):
    d[y] = np.mean(d[x], axis=axis, keepdims=keepdims)


if prod_others is not None:
    @tangent(np.prod, method("prod"))
    def prod(y, x, axis=None, keepdims=False):
        d[y] = np.sum(prod_others(x, axis) * d[x], axis=axis, keepdims=keepdims)


@tangent(np.max, np.amax, method("max"), np.min, np.amin, method("min"))
def extremum(y, x, axis=None, keepdims=False):
    d[y] = np.sum(d[x] * extremum_mask(x, y, axis, keepdims), axis=axis, keepdims=keepdims)


@tangent(np.var, method("var"))
def var(y, x, axis=None, keepdims=False, ddof=0):
    d[y] = np.sum(2 * (x - np.mean(x, axis=axis, keepdims=True)) * d[x], axis=axis, keepdims=keepdims) / reduction_count(x, axis, ddof)


@tangent(np.std, method("std"))
def std(y, x, axis=None, keepdims=False, ddof=0):
    d[y] = divide_or_zero(np.sum((x - np.mean(x, axis=axis, keepdims=True)) * d[x], axis=axis, keepdims=keepdims), reduction_count(x, axis, ddof) * y)


if norm_direction is not None:
    @tangent(np.linalg.norm)
    def norm(y, x, ord=None, axis=None, keepdims=False):
        d[y] = np.sum(norm_direction(x, y, ord, axis, keepdims) * d[x], axis=axis, keepdims=keepdims)


@tangent(np.cumsum, method("cumsum"))
def cumsum(y, x, axis=None, dtype=None, out=None):
    d[y] = tangent_cast(np.cumsum(d[x], axis=axis), y)


@tangent(np.trace, method("trace"))
def trace(y, x, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d[y] = tangent_cast(np.trace(d[x], offset, axis1, axis2), y)


@tangent(np.average)
def average(y, a, axis=None, weights=None, returned=False, *, keepdims=False):
    w = average_weights(a, axis, weights, returned)
    d[y] = np.sum(w * d[a], axis=axis, keepdims=keepdims) / np.sum(w, axis=axis, keepdims=keepdims) + np.sum(average_weights(a, axis, d[weights]) * (a - unreduce(y, a, axis, keepdims)), axis=axis, keepdims=keepdims) / np.sum(w, axis=axis, keepdims=keepdims)


@tangent(np.ptp)
def ptp(y, a, axis=None, out=None, keepdims=False):
    d[y] = np.sum(d[a] * (extremum_mask(a, np.max(a, axis=axis, keepdims=keepdims), axis, keepdims) - extremum_mask(a, np.min(a, axis=axis, keepdims=keepdims), axis, keepdims)), axis=axis, keepdims=keepdims)


@tangent(np.nansum)
def nansum(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = np.sum(np.where(np.isnan(a), 0, d[a]), axis=axis, keepdims=keepdims)


@tangent(np.nanmean)
def nanmean(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = divide_or_zero(np.sum(np.where(np.isnan(a), 0, d[a]), axis=axis, keepdims=keepdims), np.sum(~np.isnan(a), axis=axis, keepdims=keepdims))


@tangent(np.diff)
def diff(y, a, n=1, axis=-1, prepend=None, append=None):
    d[y] = rediff(d[a], a, n, axis, prepend, append, "a") + rediff(d[prepend], a, n, axis, prepend, append, "prepend") + rediff(d[append], a, n, axis, prepend, append, "append")
