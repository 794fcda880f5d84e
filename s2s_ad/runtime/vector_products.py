"""The adjoints of np.cross: for 3-vectors, that of c = a x b with respect to a is b x
adjoint(c) (the scalar triple product turned around); a 2-vector is one with a zero third
component, and two 2-vectors give the third component alone."""
import numpy as np

from .arrays import shape_of, unbroadcast, zeros_like


def _as_3_vectors(v, axis):
    """`v` with its vectors along the last axis, a zero third component added to 2-vectors."""
    v = np.moveaxis(v, axis, -1)
    if shape_of(v)[-1] == 2:
        v = np.concatenate([v, zeros_like(v[..., :1])], axis=-1)
    return v


def cross_grad_a(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Adjoint of `c = np.cross(a, b, axisa, axisb, axisc, axis)` with respect to `a`, given
    the adjoint `g` of `c`: b x g, cut to the length of a's vectors, summed where `a` was
    broadcast, with the vectors along `axisa`."""
    if axis is not None:
        axisa = axisb = axisc = axis
    length = shape_of(a)[axisa]
    if length == 2 and shape_of(b)[axisb] == 2:   # c is the third component alone
        g = np.stack([zeros_like(g), zeros_like(g), g], axis=-1)
    else:
        g = np.moveaxis(g, axisc, -1)
    full = np.cross(_as_3_vectors(b, axisb), g)[..., :length]
    return np.moveaxis(unbroadcast(full, np.moveaxis(a, axisa, -1)), -1, axisa)


def cross_grad_b(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Adjoint of `c = np.cross(a, b, ...)` with respect to `b`: as a x b = -(b x a)."""
    return -cross_grad_a(g, b, a, axisb, axisa, axisc, axis)
