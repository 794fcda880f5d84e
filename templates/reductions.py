"""Reductions. Reverse mode spreads the incoming adjoint back over the reduced axes; forward
mode reduces the tangent the way the value was reduced. Sum and mean are linear, declared once
(rules.linear); the others give both rules, side by side."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import (adjoint, constant_parameters, d, linear, method, non_differentiable,
                          supports_complex, tangent)
from s2s_ad.runtime import (average_weights, divide_or_zero, extremum_mask, norm_direction,
                            norm_grad, prod_grad, prod_others, rediff, reduction_count,
                            through_cast, uncumsum, undiagonal, undiff, unreduce, unweight)
from s2s_ad.runtime import (conj, extremum_gather, extremum_share, position_by_key, tangent_cast,
                            written_through)


@linear(np.sum, method("sum"), keywords=True, complex=True)
def sum(y, x, axis=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis, keepdims)


@linear(np.mean, method("mean"), keywords=True, complex=True)
def mean(y, x, axis=None, keepdims=False):
    d[x] = unreduce(d[y] / reduction_count(x, axis), x, axis, keepdims)


@adjoint(np.prod, method("prod"))
def prod(y, x, axis=None, keepdims=False):
    d[x] = prod_grad(d[y], y, x, axis, keepdims)


@tangent(np.prod, method("prod"))
def prod_tangent(y, x, axis=None, keepdims=False):
    d[y] = np.sum(prod_others(x, axis) * d[x], axis=axis, keepdims=keepdims)


# `initial=` reaches these rules only as the lowest (or highest) value of x's dtype, which
# every entry beats (passes/lower_reduction_keywords.py): it gives an empty group a value
@adjoint(np.max, np.amax, method("max"), np.min, np.amin, method("min"))
def extremum(y, x, axis=None, keepdims=False, initial=None):
    """Entries that tie for the extremum share its derivative equally."""
    d[x] = extremum_share(d[y], x, y, axis, keepdims)


@tangent(np.max, np.amax, method("max"), np.min, np.amin, method("min"))
def extremum_tangent(y, x, axis=None, keepdims=False, initial=None):
    """Entries that tie for the extremum share its derivative equally."""
    d[y] = extremum_gather(d[x], x, y, axis, keepdims)


@adjoint(np.var, method("var"))
def var(y, x, axis=None, keepdims=False, ddof=0):
    d[x] = conj(x - np.mean(x, axis=axis, keepdims=True)) * unreduce(2 * np.real(d[y]) / reduction_count(x, axis, ddof), x, axis, keepdims)


@tangent(np.var, method("var"))
def var_tangent(y, x, axis=None, keepdims=False, ddof=0):
    d[y] = np.real(np.sum(2 * conj(x - np.mean(x, axis=axis, keepdims=True)) * d[x], axis=axis, keepdims=keepdims)) / reduction_count(x, axis, ddof)


@adjoint(np.std, method("std"))
def std(y, x, axis=None, keepdims=False, ddof=0):
    """0 where std is 0 (one element, or equal entries: no derivative there), as JAX picks."""
    d[x] = conj(x - np.mean(x, axis=axis, keepdims=True)) * unreduce(divide_or_zero(np.real(d[y]), y) / reduction_count(x, axis, ddof), x, axis, keepdims)


@tangent(np.std, method("std"))
def std_tangent(y, x, axis=None, keepdims=False, ddof=0):
    d[y] = divide_or_zero(np.real(np.sum(conj(x - np.mean(x, axis=axis, keepdims=True)) * d[x], axis=axis, keepdims=keepdims)), reduction_count(x, axis, ddof) * y)


@adjoint(np.linalg.norm)
def norm(y, x, ord=None, axis=None, keepdims=False):
    """0 at x = 0. Matrix ord 2, -2 and 'nuc': first order only (their second derivative needs
    the SVD's)."""
    d[x] = norm_grad(d[y], y, x, ord, axis, keepdims)


@tangent(np.linalg.norm)
def norm_tangent(y, x, ord=None, axis=None, keepdims=False):
    d[y] = np.real(np.sum(norm_direction(x, y, ord, axis, keepdims) * d[x], axis=axis, keepdims=keepdims))


# cumsum and trace are linear but take a dtype: their derivatives are converted like the result
# (none flows through an integer one), so the tangent is not just their own call
@adjoint(np.cumsum, method("cumsum"))
def cumsum(y, x, axis=None, dtype=None, out=None):
    d[x] = uncumsum(through_cast(d[y], y), x, axis)


@tangent(np.cumsum, method("cumsum"))
def cumsum_tangent(y, x, axis=None, dtype=None, out=None):
    d[y] = tangent_cast(np.cumsum(d[x], axis=axis), y)


@adjoint(np.trace, method("trace"))
def trace(y, x, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d[x] = undiagonal(np.expand_dims(through_cast(d[y], y), -1), x, offset, axis1, axis2)


@tangent(np.trace, method("trace"))
def trace_tangent(y, x, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d[y] = tangent_cast(np.trace(d[x], offset, axis1, axis2), y)


supports_complex(np.cumsum, method("cumsum"), np.trace, method("trace"), np.diff)
# var, std and the norms are real: their adjoints take the real part of the incoming one, and
# meet the complex input through its conjugate (README "Complex numbers")
supports_complex(np.prod, method("prod"), np.var, method("var"), np.std, method("std"),
                 np.linalg.norm)


@adjoint(np.average)
def average(y, a, axis=None, weights=None, returned=False, *, keepdims=False):
    w = average_weights(a, axis, weights, returned)
    share = unreduce(d[y], a, axis, keepdims) / np.sum(w, axis=axis, keepdims=True)
    d[a] = share * w
    d[weights] = unweight(share * (a - unreduce(y, a, axis, keepdims)), weights, axis)


@tangent(np.average)
def average_tangent(y, a, axis=None, weights=None, returned=False, *, keepdims=False):
    w = average_weights(a, axis, weights, returned)
    d[y] = np.sum(w * d[a], axis=axis, keepdims=keepdims) / np.sum(w, axis=axis, keepdims=keepdims) + np.sum(average_weights(a, axis, d[weights]) * (a - unreduce(y, a, axis, keepdims)), axis=axis, keepdims=keepdims) / np.sum(w, axis=axis, keepdims=keepdims)


@adjoint(np.ptp)
def ptp(y, a, axis=None, out=None, keepdims=False):
    d[a] = unreduce(d[y], a, axis, keepdims) * (extremum_mask(a, np.max(a, axis=axis, keepdims=keepdims), axis, keepdims) - extremum_mask(a, np.min(a, axis=axis, keepdims=keepdims), axis, keepdims))


@tangent(np.ptp)
def ptp_tangent(y, a, axis=None, out=None, keepdims=False):
    d[y] = np.sum(d[a] * (extremum_mask(a, np.max(a, axis=axis, keepdims=keepdims), axis, keepdims) - extremum_mask(a, np.min(a, axis=axis, keepdims=keepdims), axis, keepdims)), axis=axis, keepdims=keepdims)


# a dtype converts the result: none flows through an integer one (through_cast, tangent_cast)
@adjoint(np.nansum)
def nansum(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[a] = unreduce(through_cast(d[y], y), a, axis, keepdims) * ~np.isnan(a)


@tangent(np.nansum)
def nansum_tangent(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = tangent_cast(np.sum(np.where(np.isnan(a), 0, d[a]), axis=axis, keepdims=keepdims), y)


@adjoint(np.nanmean)
def nanmean(y, a, axis=None, dtype=None, out=None, keepdims=False):
    # an all-NaN group's mean is NaN whatever its entries: 0, not 0 / 0
    d[a] = unreduce(through_cast(d[y], y), a, axis, keepdims) * divide_or_zero(~np.isnan(a), np.sum(~np.isnan(a), axis=axis, keepdims=True))


@tangent(np.nanmean)
def nanmean_tangent(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = tangent_cast(divide_or_zero(np.sum(np.where(np.isnan(a), 0, d[a]), axis=axis, keepdims=keepdims), np.sum(~np.isnan(a), axis=axis, keepdims=keepdims)), y)


# linear in a, prepend and append together: undiff hands each its part, rediff takes it back
@adjoint(np.diff)
def diff(y, a, n=1, axis=-1, prepend=None, append=None):
    d[a] = undiff(d[y], a, n, axis, prepend, append, "a")
    d[prepend] = undiff(d[y], a, n, axis, prepend, append, "prepend")
    d[append] = undiff(d[y], a, n, axis, prepend, append, "append")


@tangent(np.diff)
def diff_tangent(y, a, n=1, axis=-1, prepend=None, append=None):
    d[y] = rediff(d[a], a, n, axis, prepend, append, "a") + rediff(d[prepend], a, n, axis, prepend, append, "prepend") + rediff(d[append], a, n, axis, prepend, append, "append")


constant_parameters(("initial",), np.max, np.amax, method("max"), np.min, np.amin,
                    method("min"))


non_differentiable(
    runtime.lowest_of, runtime.highest_of,
    np.argmax, np.argmin, method("argmax"), method("argmin"), np.argsort, method("argsort"),
    np.all, np.any, method("all"), method("any"), np.count_nonzero, np.nonzero,
    position_by_key,         # max(xs, key=...): passes/lower_builtin_calls.py
    written_through,         # a write through a view: passes/write_back_views.py
)
