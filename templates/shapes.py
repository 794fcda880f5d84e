"""Adjoints of shape changes and indexing: move the adjoint back to where the values came from."""
import numpy as np

from s2s_ad.rules import SUBSCRIPT, adjoint, attribute, d, method, non_differentiable
from s2s_ad.runtime import (along_axis_index, item_index, linspace_fraction, pad_interior,
                            pad_value_grad, scatter, sort_index, stop_gradient, take_index,
                            through_cast, unbroadcast, undiag, undiagonal, unrepeat, unreshape,
                            untile, untranspose)


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


@adjoint(method("copy"), np.copy, np.array, np.asarray, method("astype"), float, np.float64,
         np.float32, np.float16, np.longdouble)
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


@adjoint(np.flip)
def flip(y, m, axis=None):
    d[m] = np.flip(d[y], axis)


@adjoint(np.fliplr)
def fliplr(y, m):
    d[m] = np.fliplr(d[y])


@adjoint(np.flipud)
def flipud(y, m):
    d[m] = np.flipud(d[y])


@adjoint(np.diag)
def diag(y, v, k=0):
    d[v] = undiag(d[y], v, k)


@adjoint(np.diagonal, method("diagonal"))
def diagonal(y, a, offset=0, axis1=0, axis2=1):
    d[a] = undiagonal(d[y], a, offset, axis1, axis2)


@adjoint(np.roll)
def roll(y, a, shift, axis=None):
    d[a] = np.roll(d[y], np.negative(shift), axis)


@adjoint(np.repeat, method("repeat"))
def repeat(y, a, repeats, axis=None):
    d[a] = unrepeat(d[y], a, repeats, axis)


@adjoint(np.tile)
def tile(y, A, reps):
    d[A] = untile(d[y], A, reps)


@adjoint(np.tril)
def tril(y, m, k=0):
    d[m] = unbroadcast(np.tril(d[y], k), m)


@adjoint(np.triu)
def triu(y, m, k=0):
    d[m] = unbroadcast(np.triu(d[y], k), m)


@adjoint(np.take, method("take"))
def take(y, a, indices, axis=None, out=None, mode="raise"):
    d[a] = scatter(a, take_index(a, indices, axis, mode), d[y])


@adjoint(np.take_along_axis)
def take_along_axis(y, arr, indices, axis=-1):
    d[arr] = scatter(arr, along_axis_index(arr, indices, axis), d[y])


@adjoint(np.sort)
def sort(y, a, axis=-1, kind=None, order=None, *, stable=None):
    d[a] = scatter(a, sort_index(a, axis, kind), d[y])


@adjoint(np.pad)
def pad(y, array, pad_width, mode="constant", constant_values=0, **options):
    d[array] = d[y][pad_interior(array, pad_width, mode)]
    d[constant_values] = pad_value_grad(d[y], array, pad_width, constant_values)


@adjoint(method("item"))
def item(y, x, *args):
    d[x] = scatter(x, item_index(x, *args), through_cast(d[y], y))


non_differentiable(
    stop_gradient, np.shape, np.ndim, np.size, len, range, np.arange, np.zeros, np.ones,
    np.empty, np.eye, np.identity, np.zeros_like, np.ones_like, np.empty_like, attribute("shape"), attribute("ndim"), attribute("size"),
    attribute("dtype"), print, isinstance, type, np.isclose, np.allclose, np.array_equal,
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.intp,
    np.bool_, np.searchsorted, np.digitize, np.tri, np.tril_indices, np.triu_indices,
    np.diag_indices, np.indices, np.unravel_index, np.ravel_multi_index,
)
