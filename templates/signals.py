"""Signals: np.convolve and np.correlate (bilinear), np.interp, and the finite differences
np.ediff1d and np.trapezoid (np.gradient has a definition: s2s_ad/definitions.py); with the
rules of the helpers their adjoints call, so that derivatives of derivatives (hvp, hessian)
work through them."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, bilinear, d, linear, non_differentiable, tangent, transposes
from s2s_ad.runtime import (full_signal, interp_values,
                            outside, pair_means, reediff1d, signal_window, slopes_at, spacing_of,
                            trapezoid_widths, unbroadcast, unediff1d, uninterp, unit_differences_transposed,
                            unpair_means, unslope, unspacing, uses_dx, widths_of_dx)


# z = window(a * v) of the full convolution: the adjoint puts d[z] back in the full output, then
# correlates it with the other input (np.correlate reads its second input reversed)
@bilinear(np.convolve)
def convolve(z, a, v, mode="full"):
    full = full_signal(d[z], a, v, "convolve", mode)
    d[a] = np.reshape(np.correlate(full, np.ravel(v), "valid"), np.shape(a))
    d[v] = np.reshape(np.correlate(full, np.ravel(a), "valid"), np.shape(v))


@bilinear(np.correlate)
def correlate(z, a, v, mode="valid"):
    full = full_signal(d[z], a, v, "correlate", mode)
    d[a] = np.reshape(np.convolve(full, np.ravel(v), "valid"), np.shape(a))
    d[v] = np.reshape(np.correlate(full, np.ravel(a), "valid")[::-1], np.shape(v))


@transposes(runtime.full_signal, runtime.signal_window)
def full_signal_(y, g, a, v, kind, mode):
    d[g] = signal_window(d[y], a, v, kind, mode)


# linear in fp, left and right; piecewise linear in x (runtime/interpolation.py: at a sample
# point the slope of the segment to its right, as JAX). In the sample points: on x's segment
# [xp_i, xp_i+1] with slope s, at t = (x - xp_i) / (xp_i+1 - xp_i) along it, y moves by
# -s ((1 - t) dxp_i + t dxp_i+1): the slope times the interpolation of -dxp (0 outside the
# samples, where y is an end value); at a sample point, the segment to its right again
@adjoint(np.interp)
def interp(y, x, xp, fp, left=None, right=None):
    d[x] = d[y] * slopes_at(fp, x, xp)
    d[xp] = -uninterp(d[y] * slopes_at(fp, x, xp), x, xp, left, right)
    d[fp] = uninterp(d[y], x, xp, left, right)
    d[left] = np.sum(d[y] * outside(x, xp, "left"))
    d[right] = np.sum(d[y] * outside(x, xp, "right"))


@tangent(np.interp)
def interp_tangent(y, x, xp, fp, left=None, right=None):
    d[y] = d[x] * slopes_at(fp, x, xp) - slopes_at(fp, x, xp) * interp_values(d[xp], x, xp, left, right) + interp_values(d[fp], x, xp, left, right) + d[left] * outside(x, xp, "left") + d[right] * outside(x, xp, "right")


# interp_values(t, ...) is np.interp's part linear in fp, so it moves with x and xp as np.interp
@adjoint(runtime.interp_values)
def interp_values_(r, t, x, xp, left=None, right=None):
    d[t] = uninterp(d[r], x, xp, left, right)
    d[x] = d[r] * slopes_at(t, x, xp)
    d[xp] = -uninterp(d[r] * slopes_at(t, x, xp), x, xp, left, right)


@tangent(runtime.interp_values)
def interp_values_tangent(r, t, x, xp, left=None, right=None):
    d[r] = interp_values(d[t], x, xp, left, right) + d[x] * slopes_at(t, x, xp) - slopes_at(t, x, xp) * interp_values(d[xp], x, xp, left, right)


# uninterp's weights move with x: <h, uninterp(g, x)> = sum(g * interp_values(h, x)); with xp,
# each weight moves by -interp_values(dxp) / width along its segment: -unslope(g * that)
@adjoint(runtime.uninterp)
def uninterp_(r, g, x, xp, left=None, right=None):
    d[g] = interp_values(d[r], x, xp, left, right)
    d[x] = g * slopes_at(d[r], x, xp)
    d[xp] = -uninterp(g * slopes_at(d[r], x, xp), x, xp, left, right)


@tangent(runtime.uninterp)
def uninterp_tangent(r, g, x, xp, left=None, right=None):
    d[r] = uninterp(d[g], x, xp, left, right) + unslope(g * d[x], x, xp) - unslope(g * interp_values(d[xp], x, xp, left, right), x, xp)


# the slopes are constant in x between the sample points; in xp each moves by -slope / width
# times the change of its segment's width: -slope times the slopes of dxp
@adjoint(runtime.slopes_at)
def slopes_at_(r, fp, x, xp):
    d[fp] = unslope(d[r], x, xp)
    d[xp] = -unslope(d[r] * r, x, xp)


@tangent(runtime.slopes_at)
def slopes_at_tangent(r, fp, x, xp):
    d[r] = slopes_at(d[fp], x, xp) - r * slopes_at(d[xp], x, xp)


# unslope's weights are 1 / width: they move by -slopes_at(dxp) / width (a symmetric map)
@adjoint(runtime.unslope)
def unslope_(r, g, x, xp):
    d[g] = slopes_at(d[r], x, xp)
    d[xp] = -unslope(g * slopes_at(d[r], x, xp), x, xp)


@tangent(runtime.unslope)
def unslope_tangent(r, g, x, xp):
    d[r] = unslope(d[g], x, xp) - unslope(g * slopes_at(d[xp], x, xp), x, xp)


# np.gradient at unit spacing along the first axis (the definition of np.gradient divides it by
# an even spacing): linear in f
@transposes(runtime.unit_differences, runtime.unit_differences_transposed, complex=True)
def unit_differences_(r, f, edge_order=1):
    d[f] = unit_differences_transposed(d[r], edge_order)


# linear in ary, to_end and to_begin together: unediff1d hands each its part, reediff1d takes
# it back
@adjoint(np.ediff1d)
def ediff1d(y, ary, to_end=None, to_begin=None):
    d[ary] = unediff1d(d[y], ary, to_end, to_begin, "ary")
    d[to_end] = unediff1d(d[y], ary, to_end, to_begin, "to_end")
    d[to_begin] = unediff1d(d[y], ary, to_end, to_begin, "to_begin")


@tangent(np.ediff1d)
def ediff1d_tangent(y, ary, to_end=None, to_begin=None):
    d[y] = reediff1d(d[ary], ary, to_end, to_begin, "ary") + reediff1d(d[to_end], ary, to_end, to_begin, "to_end") + reediff1d(d[to_begin], ary, to_end, to_begin, "to_begin")


@transposes(runtime.unediff1d, runtime.reediff1d)
def unediff1d_(r, g, ary, to_end=None, to_begin=None, part="ary"):
    d[g] = reediff1d(d[r], ary, to_end, to_begin, part)


# r = sum(widths * pair_means(y)) along axis: linear in y, and in the widths (np.diff(x), or dx)
@adjoint(np.trapezoid)
def trapezoid(r, y, x=None, dx=1.0, axis=-1):
    d[y] = unpair_means(np.expand_dims(d[r], axis) * trapezoid_widths(y, x, dx, axis), axis)
    d[x] = unspacing(np.expand_dims(d[r], axis) * pair_means(y, axis), x, y, axis)
    d[dx] = np.sum(np.expand_dims(d[r], axis) * pair_means(y, axis)) * uses_dx(x)


@tangent(np.trapezoid)
def trapezoid_tangent(r, y, x=None, dx=1.0, axis=-1):
    d[r] = np.trapezoid(d[y], x, dx, axis) + np.sum(spacing_of(d[x], x, y, axis) * pair_means(y, axis), axis=axis) + np.sum(d[dx] * uses_dx(x) * pair_means(y, axis), axis=axis)


@transposes(runtime.pair_means, runtime.unpair_means)
def pair_means_(r, y, axis=-1):
    d[y] = unpair_means(d[r], axis)


@transposes(runtime.spacing_of, runtime.unspacing)
def spacing_of_(r, t, x, y, axis=-1):
    d[t] = unspacing(d[r], x, y, axis)


@adjoint(runtime.trapezoid_widths)
def trapezoid_widths_(w, y, x=None, dx=1.0, axis=-1):
    d[x] = unspacing(d[w], x, y, axis)
    d[dx] = np.sum(d[w]) * uses_dx(x)


@tangent(runtime.trapezoid_widths)
def trapezoid_widths_tangent(w, y, x=None, dx=1.0, axis=-1):
    d[w] = spacing_of(d[x], x, y, axis) + widths_of_dx(d[dx], x, y, axis)


@linear(runtime.widths_of_dx)
def widths_of_dx_(r, t, x, y, axis=-1):
    d[t] = unbroadcast(d[r] * uses_dx(x), t)


non_differentiable(runtime.uses_dx, runtime.outside)
