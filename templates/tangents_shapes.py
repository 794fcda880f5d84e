"""Tangents of shape changes and indexing: move the tangent exactly as the value moved."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import SUBSCRIPT, attribute, d, method, tangent
from s2s_ad.runtime import (across_linspace, broadcast_like, constant_pad_width, item_index,
                            linspace_fraction, pad_values, sort_index, tangent_cast)

reshape_as = getattr(runtime, "reshape_as", None)
transpose_by = getattr(runtime, "transpose_by", None)


@tangent(SUBSCRIPT)
def getitem(y, x, index):
    d[y] = d[x][index]


if reshape_as is not None:
    @tangent(np.reshape)
    def reshape(y, x, shape=None, order="C", **options):
        d[y] = reshape_as(d[x], y, x, order)


    @tangent(method("reshape"))
    def reshape_method(y, x, *shape, order="C", **options):
        d[y] = reshape_as(d[x], y, x, order)


    @tangent(np.ravel, method("ravel"), method("flatten"))
    def ravel(y, x, order="C"):
        d[y] = reshape_as(d[x], y, x, order)


@tangent(np.squeeze, method("squeeze"), np.expand_dims, np.atleast_1d, np.atleast_2d,
         np.atleast_3d)
def squeeze(y, x, *axis, **options):
    d[y] = np.reshape(d[x], np.shape(y))


@tangent(np.transpose)
def transpose(y, x, axes=None):
    d[y] = np.transpose(d[x], axes)


if transpose_by is not None:
    @tangent(method("transpose"))
    def transpose_method(y, x, *axes):
        d[y] = transpose_by(d[x], axes)


@tangent(np.swapaxes, method("swapaxes"))
def swapaxes(y, x, axis1, axis2):
    d[y] = np.swapaxes(d[x], axis1, axis2)


@tangent(np.moveaxis)
def moveaxis(y, x, source, destination):
    d[y] = np.moveaxis(d[x], source, destination)


@tangent(attribute("T"))
def T(y, x):
    d[y] = np.transpose(d[x])


@tangent(np.broadcast_to)
def broadcast_to(y, x, shape):
    d[y] = np.broadcast_to(d[x], np.shape(y))


@tangent(method("copy"), np.copy, np.array, np.asarray, method("astype"), float, np.float64,
         np.float32, np.float16, np.longdouble)
def copy(y, x, *args, **options):
    d[y] = tangent_cast(d[x], y)


@tangent(np.full, np.full_like)
def full(y, shape_or_like, fill_value, dtype=None, **options):
    d[y] = tangent_cast(np.broadcast_to(d[fill_value], np.shape(y)), y)


@tangent(np.linspace)
def linspace(y, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    t = linspace_fraction(y, num, endpoint, axis)
    d[y] = broadcast_like(across_linspace(d[start], y, axis) * (1 - t), y) + \
        broadcast_like(across_linspace(d[stop], y, axis) * t, y)


@tangent(list, tuple)
def sequence(y, x):
    d[y] = type(y)(d[x])


@tangent(np.flip)
def flip(y, m, axis=None):
    d[y] = np.flip(d[m], axis)


@tangent(np.fliplr)
def fliplr(y, m):
    d[y] = np.fliplr(d[m])


@tangent(np.flipud)
def flipud(y, m):
    d[y] = np.flipud(d[m])


@tangent(np.diag)
def diag(y, v, k=0):
    d[y] = np.diag(d[v], k)


@tangent(np.diagonal, method("diagonal"))
def diagonal(y, a, offset=0, axis1=0, axis2=1):
    d[y] = np.diagonal(d[a], offset, axis1, axis2)


@tangent(np.roll)
def roll(y, a, shift, axis=None):
    d[y] = np.roll(d[a], shift, axis)


@tangent(np.repeat, method("repeat"))
def repeat(y, a, repeats, axis=None):
    d[y] = np.repeat(d[a], repeats, axis)


@tangent(np.tile)
def tile(y, A, reps):
    d[y] = np.tile(d[A], reps)


@tangent(np.tril)
def tril(y, m, k=0):
    d[y] = np.tril(d[m], k)


@tangent(np.triu)
def triu(y, m, k=0):
    d[y] = np.triu(d[m], k)


@tangent(np.take, method("take"))
def take(y, a, indices, axis=None, out=None, mode="raise"):
    d[y] = np.take(d[a], indices, axis, mode=mode)


@tangent(np.take_along_axis)
def take_along_axis(y, arr, indices, axis=-1):
    d[y] = np.take_along_axis(d[arr], indices, axis)


@tangent(np.sort)
def sort(y, a, axis=-1, kind=None, order=None, *, stable=None):
    d[y] = d[a][sort_index(a, axis, kind)]


@tangent(np.pad)
def pad(y, array, pad_width, mode="constant", constant_values=0, **options):
    d[y] = np.pad(d[array], constant_pad_width(pad_width, mode)) + pad_values(d[constant_values], array, pad_width)


@tangent(method("item"))
def item(y, x, *args):
    d[y] = tangent_cast(d[x][item_index(x, *args)], y)
