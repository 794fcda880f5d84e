"""Shape changes and indexing: reverse mode moves the adjoint back to where the values came from,
forward mode moves the tangent exactly as the value moved. Most are linear, declared once by the
move back (rules.linear: the tangent is the function itself applied to the tangent); the ones
whose tangent is not their own call give both rules, side by side."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import (SUBSCRIPT, adjoint, attribute, constant_parameters, d, linear, method,
                          non_differentiable, supports_complex, tangent)
from s2s_ad.runtime import (across_linspace, along_axis_index, item_index, linspace_fraction,
                            reshape_as, scatter, sort_index, sorted_grad, sorted_tangent,
                            stop_gradient, take_index, through_cast, transpose_by, unbroadcast,
                            undiag, undiagonal, unrepeat, unreshape, untile, untranspose)
from s2s_ad.runtime import broadcast_like, tangent_cast


@linear(np.transpose, complex=True)
def transpose(y, x, axes=None):
    d[x] = untranspose(d[y], axes)


@linear(np.swapaxes, method("swapaxes"), complex=True)
def swapaxes(y, x, axis1, axis2):
    d[x] = np.swapaxes(d[y], axis1, axis2)


@linear(np.moveaxis, complex=True)
def moveaxis(y, x, source, destination):
    d[x] = np.moveaxis(d[y], destination, source)


@linear(np.flip, complex=True)
def flip(y, m, axis=None):
    d[m] = np.flip(d[y], axis)


@linear(np.fliplr, complex=True)
def fliplr(y, m):
    d[m] = np.fliplr(d[y])


@linear(np.flipud, complex=True)
def flipud(y, m):
    d[m] = np.flipud(d[y])


@linear(np.diag, complex=True)
def diag(y, v, k=0):
    d[v] = undiag(d[y], v, k)


@linear(np.diagonal, method("diagonal"), complex=True)
def diagonal(y, a, offset=0, axis1=0, axis2=1):
    d[a] = undiagonal(d[y], a, offset, axis1, axis2)


@linear(np.roll, complex=True)
def roll(y, a, shift, axis=None):
    d[a] = np.roll(d[y], np.negative(shift), axis)


@linear(np.repeat, method("repeat"), complex=True)
def repeat(y, a, repeats, axis=None):
    d[a] = unrepeat(d[y], a, repeats, axis)


@linear(np.tile, complex=True)
def tile(y, A, reps):
    d[A] = untile(d[y], A, reps)


@linear(np.tril, complex=True)
def tril(y, m, k=0):
    d[m] = unbroadcast(np.tril(d[y], k), m)


@linear(np.triu, complex=True)
def triu(y, m, k=0):
    d[m] = unbroadcast(np.triu(d[y], k), m)


@linear(np.broadcast_to, complex=True)
def broadcast_to(y, x, shape):
    d[x] = unbroadcast(d[y], x)


@linear(np.take_along_axis)
def take_along_axis(y, arr, indices, axis=-1):
    d[arr] = scatter(arr, along_axis_index(arr, indices, axis), d[y])


@adjoint(SUBSCRIPT)
def getitem(y, x, index):
    d[x] = scatter(x, index, d[y])


@tangent(SUBSCRIPT)
def getitem_tangent(y, x, index):
    d[y] = d[x][index]


supports_complex(SUBSCRIPT, np.reshape, method("reshape"), np.ravel, method("ravel"),
                 method("flatten"), np.squeeze, method("squeeze"), np.expand_dims, method("transpose"),
                 attribute("T"), attribute("mT"), method("copy"), np.copy, np.array, np.asarray,
                 method("astype"), np.take, method("take"), np.atleast_1d, np.atleast_2d,
                 np.atleast_3d, runtime.read_as_array)
constant_parameters(("index",), SUBSCRIPT)      # a key taken from varied values picks, no more


# reshaping reads x in an order that may follow x's memory layout (order="A"): the tangent is
# read in x's order, not its own, so its tangent is not the plain call
@adjoint(np.reshape)
def reshape(y, x, shape=None, order="C", **options):
    d[x] = unreshape(d[y], x, order)


@tangent(np.reshape)
def reshape_tangent(y, x, shape=None, order="C", **options):
    d[y] = reshape_as(d[x], y, x, order)


@adjoint(method("reshape"))
def reshape_method(y, x, *shape, order="C", **options):
    d[x] = unreshape(d[y], x, order)


@tangent(method("reshape"))
def reshape_method_tangent(y, x, *shape, order="C", **options):
    d[y] = reshape_as(d[x], y, x, order)


@adjoint(np.ravel, method("ravel"), method("flatten"))
def ravel(y, x, order="C"):
    d[x] = unreshape(d[y], x, order)


@tangent(np.ravel, method("ravel"), method("flatten"))
def ravel_tangent(y, x, order="C"):
    d[y] = reshape_as(d[x], y, x, order)


@adjoint(np.squeeze, method("squeeze"), np.expand_dims, np.atleast_1d, np.atleast_2d,
         np.atleast_3d)
def squeeze(y, x, *axis, **options):
    d[x] = np.reshape(d[y], np.shape(x))


@tangent(np.squeeze, method("squeeze"), np.expand_dims, np.atleast_1d, np.atleast_2d,
         np.atleast_3d)
def squeeze_tangent(y, x, *axis, **options):
    d[y] = np.reshape(d[x], np.shape(y))


@adjoint(method("transpose"))
def transpose_method(y, x, *axes):
    d[x] = untranspose(d[y], axes)


@tangent(method("transpose"))
def transpose_method_tangent(y, x, *axes):
    d[y] = transpose_by(d[x], axes)


@adjoint(attribute("T"))
def T(y, x):
    d[x] = np.transpose(d[y])


@tangent(attribute("T"))
def T_tangent(y, x):
    d[y] = np.transpose(d[x])


@adjoint(attribute("mT"))
def mT(y, x):
    d[x] = np.swapaxes(d[y], -1, -2)


@tangent(attribute("mT"))
def mT_tangent(y, x):
    d[y] = np.swapaxes(d[x], -1, -2)


# `x.flat` read by an index (`x.flat[k]`): the entries of x in order, as np.ravel(x) holds them
@adjoint(attribute("flat"))
def flat(y, x):
    d[x] = np.reshape(d[y], np.shape(x))


@tangent(attribute("flat"))
def flat_tangent(y, x):
    d[y] = np.ravel(d[x])


@adjoint(method("copy"), np.copy, np.array, np.asarray, np.ascontiguousarray, np.asfortranarray,
         method("astype"), float, np.float64, np.float32, np.float16, np.longdouble,
         runtime.read_as_array)
def copy(y, x, *args, **options):
    d[x] = through_cast(d[y], y, x)


@tangent(method("copy"), np.copy, np.array, np.asarray, np.ascontiguousarray, np.asfortranarray,
         method("astype"), float, np.float64, np.float32, np.float16, np.longdouble,
         runtime.read_as_array)
def copy_tangent(y, x, *args, **options):
    d[y] = tangent_cast(d[x], y)


@adjoint(np.full)
def full(y, shape, fill_value, dtype=None, **options):
    d[fill_value] = unbroadcast(through_cast(d[y], y), fill_value)


@adjoint(np.full_like)
def full_like(y, a, fill_value, dtype=None, **options):
    d[fill_value] = unbroadcast(through_cast(d[y], y), fill_value)


@tangent(np.full, np.full_like)
def full_tangent(y, shape_or_like, fill_value, dtype=None, **options):
    d[y] = tangent_cast(np.broadcast_to(d[fill_value], np.shape(y)), y)


constant_parameters(("a", "shape_or_like"), np.full_like)     # read for its shape and dtype


@adjoint(np.linspace)
def linspace(y, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    # an integer dtype truncates: nothing flows back through it
    t = linspace_fraction(y, num, endpoint, axis)
    d[start] = unbroadcast(np.sum(through_cast(d[y], y) * (1 - t), axis=axis), start)
    d[stop] = unbroadcast(np.sum(through_cast(d[y], y) * t, axis=axis), stop)


@tangent(np.linspace)
def linspace_tangent(y, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    t = linspace_fraction(y, num, endpoint, axis)
    d[y] = tangent_cast(broadcast_like(across_linspace(d[start], y, axis) * (1 - t), y) + broadcast_like(across_linspace(d[stop], y, axis) * t, y), y)


@adjoint(np.take, method("take"))
def take(y, a, indices, axis=None, out=None, mode="raise"):
    d[a] = scatter(a, take_index(a, indices, axis, mode), d[y])


@tangent(np.take, method("take"))
def take_tangent(y, a, indices, axis=None, out=None, mode="raise"):
    d[y] = np.take(d[a], indices, axis, mode=mode)


@adjoint(np.sort)
def sort(y, a, axis=-1, kind=None, order=None, *, stable=None):
    d[a] = scatter(a, sort_index(a, axis, kind), d[y])


@tangent(np.sort)
def sort_tangent(y, a, axis=-1, kind=None, order=None, *, stable=None):
    d[y] = d[a][sort_index(a, axis, kind)]


supports_complex(np.sort)    # NumPy orders complex values by real part, then imaginary part


@adjoint(sorted)
def builtin_sorted(y, iterable, key=None, reverse=False):
    """Ties keep the order sorted gives them (Python's sort is stable)."""
    d[iterable] = sorted_grad(d[y], iterable, key, reverse)


@tangent(sorted)
def builtin_sorted_tangent(y, iterable, key=None, reverse=False):
    """Ties keep the order sorted gives them (Python's sort is stable)."""
    d[y] = sorted_tangent(d[iterable], iterable, key, reverse)


constant_parameters(("key", "reverse"), sorted)


@adjoint(method("item"))
def item(y, x, *args):
    d[x] = scatter(x, item_index(x, *args), through_cast(d[y], y))


@tangent(method("item"))
def item_tangent(y, x, *args):
    d[y] = tangent_cast(d[x][item_index(x, *args)], y)


non_differentiable(
    stop_gradient, np.shape, np.ndim, np.size, len, range, np.arange, np.zeros, np.ones,
    np.empty, np.eye, np.identity, np.zeros_like, np.ones_like, np.empty_like, attribute("shape"), attribute("ndim"), attribute("size"),
    attribute("dtype"), print, isinstance, type, np.isclose, np.allclose, np.array_equal,
    np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.intp,
    np.bool_, np.searchsorted, np.digitize, np.tri, np.tril_indices, np.triu_indices,
    np.diag_indices, np.indices, np.unravel_index, np.ravel_multi_index,
)
