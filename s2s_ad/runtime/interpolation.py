"""Derivatives of np.interp(x, xp, fp, left, right): linear in fp (and in left and right), and
piecewise linear in x and in the sample points xp. Each query point x reads the segment
[xp[lo], xp[hi]] that holds it.

At a sample point x == xp[k] the derivative in x is the slope of the segment to its right, at
xp[-1] that of the last segment, and outside [xp[0], xp[-1]] zero (the value there is a
constant): JAX's convention (jnp.interp picks the segment by searchsorted(..., 'right')); the
derivative in xp reads the same segment."""
import numpy as np

from .arrays import _xp
from .indexing import add_at


def _interp_array(values, like):
    """`values` (np.interp takes lists too) as an array of `like`'s module."""
    return _xp(like).asarray(values) if isinstance(values, (list, tuple)) else values


def _segments(x, xp):
    """(lo, hi, w, inside, below, above): the segment of each x, how far along it x sits
    (clipped to [0, 1], so outside the samples x reads the end value), and where x is."""
    x, xp = _interp_array(x, xp), _interp_array(xp, x)
    n = np.shape(xp)[0]
    hi = np.clip(np.searchsorted(xp, x, side="right"), 1, n - 1)
    lo = hi - 1
    width = xp[hi] - xp[lo]
    flat = width == 0                       # repeated samples: the value of the later one
    w = np.where(flat, 1.0, np.clip((x - xp[lo]) / np.where(flat, 1.0, width), 0.0, 1.0))
    below, above = x < xp[0], x > xp[-1]
    return lo, hi, w, ~(below | above) & ~flat, below, above


def _kept(below, above, left, right):
    """1 where the value comes from fp, 0 where it is the constant `left` or `right`."""
    return 1.0 - below * (left is not None) - above * (right is not None)


def interp_values(t, x, xp, left=None, right=None):
    """np.interp(x, xp, t) with the values `left` and `right` (where given) read as zero: the
    part of np.interp's value that is linear in fp, at fp = t."""
    lo, hi, w, _, below, above = _segments(x, xp)
    t = _interp_array(t, x)
    return (t[lo] * (1 - w) + t[hi] * w) * _kept(below, above, left, right)


def uninterp(g, x, xp, left=None, right=None):
    """The transpose of interp_values: the adjoint of fp, given the result's adjoint `g`."""
    lo, hi, w, _, below, above = _segments(x, xp)
    share = g * _kept(below, above, left, right)
    out = np.zeros_like(_interp_array(xp, x), dtype=np.result_type(_interp_array(xp, x), g))
    add_at(out, lo, share * (1 - w))
    add_at(out, hi, share * w)
    return out


def slopes_at(fp, x, xp):
    """d np.interp(x, xp, fp) / dx: the slope of x's segment inside the samples, 0 outside."""
    lo, hi, _, inside, _, _ = _segments(x, xp)
    fp, xp = _interp_array(fp, x), _interp_array(xp, x)
    width = xp[hi] - xp[lo]
    return inside * (fp[hi] - fp[lo]) / np.where(width == 0, 1.0, width)


def unslope(g, x, xp):
    """The transpose of slopes_at in fp: the adjoint of fp, given the slopes' adjoint `g`."""
    lo, hi, _, inside, _, _ = _segments(x, xp)
    xp = _interp_array(xp, x)
    width = xp[hi] - xp[lo]
    share = g * inside / np.where(width == 0, 1.0, width)
    out = np.zeros_like(xp, dtype=np.result_type(xp, g))
    add_at(out, hi, share)
    add_at(out, lo, -share)
    return out


def outside(x, xp, side):
    """Where np.interp reads `left` (side 'left': x below xp[0]) or `right` (above xp[-1])."""
    x, xp = _interp_array(x, xp), _interp_array(xp, x)
    return x < xp[0] if side == "left" else x > xp[-1]
