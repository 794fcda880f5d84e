"""Adjoints of shape changes and indexing: move the adjoint back to where the values came from."""
import numpy as np

from s2s_ad.rules import SUBSCRIPT, adjoint, attribute, d, method, non_differentiable
from s2s_ad.runtime import (linspace_fraction, scatter, stop_gradient, through_cast, unbroadcast,
                            unreshape, untranspose)


@adjoint(SUBSCRIPT)
def getitem(y, x, index):
    d[x] = scatter(x, index, d[y])


@adjoint(np.reshape)
def reshape(y, x, shape=None, order="C", **options):
    d[x] = unreshape(d[y], x, order)


@adjoint(method("reshape"))
def reshape_method(y, x, *shape, order="C", **options):
    d[x] = unreshape(d[y], x, order)


@adjoint(np.ravel, method("ravel"), method("flatten"))
def ravel(y, x, order="C"):
    d[x] = unreshape(d[y], x, order)


@adjoint(np.squeeze, method("squeeze"), np.expand_dims, np.atleast_1d, np.atleast_2d,
         np.atleast_3d)
def squeeze(y, x, *axis, **options):
    d[x] = np.reshape(d[y], np.shape(x))


@adjoint(np.transpose)
def transpose(y, x, axes=None):
    d[x] = untranspose(d[y], axes)


@adjoint(method("transpose"))
def transpose_method(y, x, *axes):
    d[x] = untranspose(d[y], axes)


@adjoint(np.swapaxes, method("swapaxes"))
def swapaxes(y, x, axis1, axis2):
    d[x] = np.swapaxes(d[y], axis1, axis2)


@adjoint(np.moveaxis)
def moveaxis(y, x, source, destination):
    d[x] = np.moveaxis(d[y], destination, source)


@adjoint(attribute("T"))
def T(y, x):
    d[x] = np.transpose(d[y])


@adjoint(np.broadcast_to)
def broadcast_to(y, x, shape):
    d[x] = unbroadcast(d[y], x)


@adjoint(method("copy"), np.copy, np.array, np.asarray, method("astype"), float)
def copy(y, x, *args, **options):
    d[x] = through_cast(d[y], y)


@adjoint(np.full)
def full(y, shape, fill_value, dtype=None, **options):
    d[fill_value] = unbroadcast(through_cast(d[y], y), fill_value)


@adjoint(np.full_like)
def full_like(y, a, fill_value, dtype=None, **options):
    d[fill_value] = unbroadcast(through_cast(d[y], y), fill_value)


@adjoint(np.linspace)
def linspace(y, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    t = linspace_fraction(y, num, endpoint, axis)
    d[start] = unbroadcast(np.sum(d[y] * (1 - t), axis=axis), start)
    d[stop] = unbroadcast(np.sum(d[y] * t, axis=axis), stop)


non_differentiable(
    stop_gradient, np.shape, np.ndim, np.size, len, range, np.arange, np.zeros, np.ones,
    np.empty, np.eye, np.identity, np.zeros_like, np.ones_like, np.empty_like, attribute("shape"), attribute("ndim"), attribute("size"),
    attribute("dtype"), print, isinstance, type, np.isclose, np.allclose, np.array_equal,
)
