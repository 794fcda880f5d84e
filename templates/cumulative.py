"""Cumulative products and sums (np.cumprod, np.cumulative_prod, np.cumulative_sum,
np.nancumsum, np.nancumprod) and running extrema (np.maximum.accumulate, np.minimum.accumulate). The tangent of a cumulative product is the linear recurrence
dy_i = x_i dy_{i-1} + y_{i-1} dx_i, its adjoint the same recurrence transposed (runtime.scans):
neither divides by x, so both are exact where an entry is zero."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import (adjoint, d, linear, method, non_differentiable, supports_complex,
                          tangent, transposes)
from s2s_ad.runtime import (along_axis_index, drop_initial, exclusive_products, lanes,
                            running_source, scan, scan_back, scatter, shift_along, through_cast,
                            uncumsum, unshift_along, with_initial)
from s2s_ad.runtime import tangent_cast


@adjoint(np.cumprod, method("cumprod"))
def cumprod(y, a, axis=None, dtype=None, out=None):
    d[a] = np.reshape(exclusive_products(y, axis) * scan_back(through_cast(d[y], y), a, axis), np.shape(a))


@tangent(np.cumprod, method("cumprod"))
def cumprod_tangent(y, a, axis=None, dtype=None, out=None):
    d[y] = tangent_cast(scan(exclusive_products(y, axis) * lanes(d[a], axis), a, axis), y)


supports_complex(np.cumprod, method("cumprod"))


# include_initial puts a constant (1 or 0) in front of the same products and sums
@adjoint(np.cumulative_prod)
def cumulative_prod(y, x, axis=None, dtype=None, out=None, include_initial=False):
    d[x] = np.reshape(exclusive_products(drop_initial(y, axis, include_initial), axis) * scan_back(drop_initial(through_cast(d[y], y), axis, include_initial), x, axis), np.shape(x))


@tangent(np.cumulative_prod)
def cumulative_prod_tangent(y, x, axis=None, dtype=None, out=None, include_initial=False):
    d[y] = tangent_cast(with_initial(scan(exclusive_products(drop_initial(y, axis, include_initial), axis) * lanes(d[x], axis), x, axis), axis, include_initial), y)


@adjoint(np.cumulative_sum)
def cumulative_sum(y, x, axis=None, dtype=None, out=None, include_initial=False):
    d[x] = uncumsum(drop_initial(through_cast(d[y], y), axis, include_initial), x, axis)


@tangent(np.cumulative_sum)
def cumulative_sum_tangent(y, x, axis=None, dtype=None, out=None, include_initial=False):
    d[y] = tangent_cast(np.cumulative_sum(d[x], axis=axis, include_initial=include_initial), y)


supports_complex(np.cumulative_prod, np.cumulative_sum)


# NaN entries count as 1 (nancumprod) or 0 (nancumsum): they pass no derivative on
@adjoint(np.nancumprod)
def nancumprod(y, a, axis=None, dtype=None, out=None):
    d[a] = np.where(np.isnan(a), 0, np.reshape(exclusive_products(y, axis) * scan_back(through_cast(d[y], y), np.where(np.isnan(a), 1, a), axis), np.shape(a)))


@tangent(np.nancumprod)
def nancumprod_tangent(y, a, axis=None, dtype=None, out=None):
    d[y] = tangent_cast(scan(exclusive_products(y, axis) * lanes(np.where(np.isnan(a), 0, d[a]), axis), np.where(np.isnan(a), 1, a), axis), y)


@adjoint(np.nancumsum)
def nancumsum(y, a, axis=None, dtype=None, out=None):
    d[a] = np.where(np.isnan(a), 0, uncumsum(through_cast(d[y], y), a, axis))


@tangent(np.nancumsum)
def nancumsum_tangent(y, a, axis=None, dtype=None, out=None):
    d[y] = tangent_cast(np.cumsum(np.where(np.isnan(a), 0, d[a]), axis=axis), y)


@adjoint(np.maximum.accumulate, np.minimum.accumulate)
def running_extremum(y, array, axis=0, dtype=None, out=None):
    """Each entry's derivative goes to the latest entry that reached the running extremum."""
    d[array] = scatter(array, along_axis_index(array, running_source(array, y, axis), axis), d[y])


@tangent(np.maximum.accumulate, np.minimum.accumulate)
def running_extremum_tangent(y, array, axis=0, dtype=None, out=None):
    """Each entry's derivative goes to the latest entry that reached the running extremum."""
    d[y] = d[array][along_axis_index(array, running_source(array, y, axis), axis)]


# ---------------------------------------------------------------------------------------------
# the helpers the rules above call, with rules of their own (hvp and hessian through them)
# ---------------------------------------------------------------------------------------------
@linear(runtime.lanes)
def lanes_(r, v, axis=None):
    d[v] = np.reshape(d[r], np.shape(v))


@linear(runtime.shift_along)
def shift_along_(r, v, axis=None):
    d[v] = np.reshape(unshift_along(d[r], axis), np.shape(v))


@linear(runtime.unshift_along)
def unshift_along_(r, v, axis=None):
    d[v] = np.reshape(shift_along(d[r], axis), np.shape(v))


@transposes(runtime.drop_initial, runtime.with_initial)
def drop_initial_(r, g, axis=None, include_initial=False):
    d[g] = with_initial(d[r], axis, include_initial)


@adjoint(runtime.exclusive_products)
def exclusive_products_(r, y, axis=None):
    d[y] = np.reshape(unshift_along(d[r], axis), np.shape(y))


@tangent(runtime.exclusive_products)
def exclusive_products_tangent(r, y, axis=None):
    d[r] = shift_along(d[y], axis)


# h = scan(b, a): h_i = a_i h_{i-1} + b_i, linear in b; a moves h by a's change times h_{i-1}
# (one term per input in the tangents: forward mode drops the terms of an input without one)
@adjoint(runtime.scan)
def scan_(h, b, a, axis=None):
    d[b] = np.reshape(scan_back(d[h], a, axis), np.shape(b))
    d[a] = np.reshape(scan_back(d[h], a, axis) * shift_along(h, axis), np.shape(a))


@tangent(runtime.scan)
def scan_tangent(h, b, a, axis=None):
    d[h] = scan(lanes(d[b], axis), a, axis) + scan(lanes(d[a], axis) * shift_along(h, axis), a, axis)


# s = scan_back(g, a): s_j = g_j + a_{j+1} s_{j+1}, linear in g
@adjoint(runtime.scan_back)
def scan_back_(s, g, a, axis=None):
    d[g] = np.reshape(scan(d[s], a, axis), np.shape(g))
    d[a] = np.reshape(shift_along(scan(d[s], a, axis), axis) * s, np.shape(a))


@tangent(runtime.scan_back)
def scan_back_tangent(s, g, a, axis=None):
    d[s] = scan_back(d[g], a, axis) + scan_back(unshift_along(lanes(d[a], axis) * s, axis), a, axis)


# holomorphic recurrences: their transposes hold for complex values
supports_complex(runtime.lanes, runtime.shift_along, runtime.unshift_along, runtime.drop_initial,
                 runtime.with_initial, runtime.exclusive_products, runtime.scan, runtime.scan_back)
non_differentiable(runtime.running_source)      # positions, picked by comparing values
