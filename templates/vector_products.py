"""Products of vectors along an axis: np.cross (np.linalg.cross) and np.vecdot
(np.linalg.vecdot). Both are bilinear: the tangent is one product per factor."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, bilinear, d, tangent
from s2s_ad.runtime import cross_grad_a, cross_grad_b, unbroadcast


@bilinear(np.cross)
def cross(c, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """2- and 3-vectors, broadcast."""
    d[a] = cross_grad_a(d[c], a, b, axisa, axisb, axisc, axis)
    d[b] = cross_grad_b(d[c], a, b, axisa, axisb, axisc, axis)


@adjoint(np.linalg.cross)
def linalg_cross(y, x1, x2, *, axis=-1):
    d[x1] = cross_grad_a(d[y], x1, x2, -1, -1, -1, axis)
    d[x2] = cross_grad_b(d[y], x1, x2, -1, -1, -1, axis)


@tangent(np.linalg.cross)
def linalg_cross_tangent(y, x1, x2, *, axis=-1):
    d[y] = np.cross(d[x1], x2, axis=axis) + np.cross(x1, d[x2], axis=axis)


# with the vectors moved to the last axis: adjoint(x1) = adjoint(z)[..., None] * x2, summed
# where x1 was broadcast
@adjoint(np.vecdot, np.linalg.vecdot)
def vecdot(z, x1, x2, *, axis=-1):
    d[x1] = np.moveaxis(unbroadcast(np.expand_dims(d[z], -1) * np.moveaxis(x2, axis, -1), np.moveaxis(x1, axis, -1)), -1, axis)
    d[x2] = np.moveaxis(unbroadcast(np.expand_dims(d[z], -1) * np.moveaxis(x1, axis, -1), np.moveaxis(x2, axis, -1)), -1, axis)


@tangent(np.vecdot, np.linalg.vecdot)
def vecdot_tangent(z, x1, x2, *, axis=-1):
    d[z] = np.vecdot(d[x1], x2, axis=axis) + np.vecdot(x1, d[x2], axis=axis)


# the adjoints of np.cross are bilinear too: in the incoming adjoint and the other factor
@bilinear(runtime.cross_grad_a)
def cross_grad_a_(r, g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[g] = np.cross(d[r], b, axisa, axisb, axisc, axis)
    d[b] = cross_grad_b(g, d[r], b, axisa, axisb, axisc, axis)


@bilinear(runtime.cross_grad_b)
def cross_grad_b_(r, g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[g] = np.cross(a, d[r], axisa, axisb, axisc, axis)
    d[a] = cross_grad_a(g, a, d[r], axisa, axisb, axisc, axis)
