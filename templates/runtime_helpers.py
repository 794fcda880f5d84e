"""Adjoints of the helpers generated code calls, so that derivatives can be differentiated again."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, index_argument, non_differentiable, tangent
from s2s_ad.runtime import (across_linspace, concatenator_part_grad, concatenator_place,
                            divide_or_zero, dot_grad_a, dot_grad_b, einsum_grad_swap, einsum_swap,
                            element, last_writes,
                            matmul_grad_a, matmul_grad_b, norm_curvature, norm_direction,
                            norm_grad, norm_slope, overwrite_at, prod_grad, prod_hvp, prod_others,
                            reshape_as, scatter, through_cast, transpose_by, unbroadcast, unreduce,
                            unreshape, untranspose, zero_at)


@adjoint(runtime.unbroadcast)
def unbroadcast_(y, g, like):
    d[g] = np.broadcast_to(d[y], np.shape(g))


@adjoint(runtime.unreduce)
def unreduce_(y, g, x, axis=None, keepdims=False):
    d[g] = np.reshape(np.sum(d[y], axis=axis, keepdims=True), np.shape(g))


@adjoint(runtime.scatter)
def scatter_(y, x, index, g):
    # a container adjoint holds None for an entry nobody wrote into: element reads it as zero
    d[g] = unbroadcast(element(d[y], index, g), g)


@adjoint(runtime.zero_at)
def zero_at_(y, g, index):
    d[g] = zero_at(d[y], index)


@adjoint(runtime.last_writes)
def last_writes_(y, g, index):
    d[g] = overwrite_at(g, index, d[y])


@adjoint(runtime.overwrite_at)
def overwrite_at_(y, x, index, g):
    d[g] = unbroadcast(last_writes(d[y], index), g)


@adjoint(runtime.through_cast)
def through_cast_(r, g, y):
    d[g] = through_cast(d[r], y)


@adjoint(runtime.truncate)
def truncate_(y, g, length):
    d[g] = d[y]                  # the entries cut off were zeros


@adjoint(runtime.matmul_grad_a)
def matmul_grad_a_(y, g, a, b):
    d[g] = np.matmul(d[y], b)
    d[b] = matmul_grad_b(g, d[y], b)


@adjoint(runtime.matmul_grad_b)
def matmul_grad_b_(y, g, a, b):
    d[g] = np.matmul(a, d[y])
    d[a] = matmul_grad_a(g, a, d[y])


@adjoint(runtime.seed_like)
def seed_like_(y, out, seed, function_name="f"):
    d[seed] = d[y]


@adjoint(runtime.gradient_like)
def gradient_like_(y, g, x):
    d[g] = unbroadcast(d[y], g)


@adjoint(runtime.dot_grad_a)
def dot_grad_a_(y, g, a, b):
    d[g] = np.dot(d[y], b)
    d[b] = dot_grad_b(g, d[y], b)


@adjoint(runtime.dot_grad_b)
def dot_grad_b_(y, g, a, b):
    d[g] = np.dot(a, d[y])
    d[a] = dot_grad_a(g, a, d[y])


@adjoint(runtime.einsum_grad)
def einsum_grad_(y, g, subscripts, k, *operands):
    d[g] = einsum_swap(subscripts, k, d[y], *operands)
    d[operands[j]] = einsum_grad_swap(g, subscripts, j, k, d[y], *operands)
    d[subscripts] = einsum_grad_swap(g, subscripts, -1, k, d[y], *operands)


@adjoint(runtime.untranspose)
def untranspose_(y, g, axes=None):
    d[g] = transpose_by(d[y], axes)


@adjoint(runtime.transpose_by)
def transpose_by_(y, g, axes=None):
    d[g] = untranspose(d[y], axes)


@adjoint(runtime.unreshape)
def unreshape_(y, g, x, order="C"):
    d[g] = reshape_as(d[y], g, x, order)


@adjoint(runtime.reshape_as)
def reshape_as_(y, t, like, x, order="C"):
    d[t] = unreshape(d[y], x, order)


@adjoint(runtime.prod_grad)
def prod_grad_(r, g, y, x, axis=None, keepdims=False):
    d[g] = np.reshape(np.sum(d[r] * prod_others(x, axis), axis=axis, keepdims=True),
                      np.shape(g))
    d[x] = prod_hvp(d[r] * unreduce(g, x, axis, keepdims), x, axis)


@adjoint(runtime.norm_grad)
def norm_grad_(r, g, y, x, ord=None, axis=None, keepdims=False):
    d[g] = np.reshape(np.sum(d[r] * norm_direction(x, y, ord, axis, keepdims),
                             axis=axis, keepdims=True), np.shape(g))
    d[x] = d[r] * unreduce(g, x, axis, keepdims) * norm_curvature(x, y, ord, axis, keepdims)
    d[y] = np.reshape(np.sum(d[r] * unreduce(g, x, axis, keepdims)
                             * norm_slope(x, y, ord, axis, keepdims), axis=axis, keepdims=True),
                      np.shape(y))


@adjoint(runtime.divide_or_zero)
def divide_or_zero_(z, a, b):
    d[a] = unbroadcast(divide_or_zero(d[z], b), a)
    d[b] = unbroadcast(-divide_or_zero(d[z] * z, b), b)


# Tangents of the helpers the rules above and in reductions.py / shapes.py emit, so that
# forward-over-reverse (hvp, hessian) runs through them.
@tangent(runtime.prod_grad)
def prod_grad_tangent(r, g, y, x, axis=None, keepdims=False):
    d[r] = (prod_grad(d[g], y, x, axis, keepdims)
            + unreduce(g, x, axis, keepdims) * prod_hvp(d[x], x, axis))


@tangent(runtime.norm_grad)
def norm_grad_tangent(r, g, y, x, ord=None, axis=None, keepdims=False):
    d[r] = (norm_grad(d[g], y, x, ord, axis, keepdims)
            + unreduce(g, x, axis, keepdims) * (
                d[x] * norm_curvature(x, y, ord, axis, keepdims)
                + unreduce(d[y], x, axis, keepdims) * norm_slope(x, y, ord, axis, keepdims)))


@tangent(runtime.unreshape)
def unreshape_tangent(y, g, x, order="C"):
    d[y] = unreshape(d[g], x, order)


@tangent(runtime.reshape_as)
def reshape_as_tangent(y, t, like, x, order="C"):
    d[y] = reshape_as(d[t], like, x, order)


@tangent(runtime.transpose_by)
def transpose_by_tangent(y, g, axes=None):
    d[y] = transpose_by(d[g], axes)


non_differentiable(runtime.extremum_mask, runtime.took_default, runtime.reduction_count, runtime.tie_share,
                   runtime.zeros_like, runtime.ones_like, np.zeros_like, np.ones_like,
                   runtime.check_rebinds, runtime.check_not_view,
                   runtime.check_method_owner)


# the helpers of the rules for max/min, cumsum, hstack and friends, repeat, tile, diag, diagonal, trace, average
# and pad (all linear in their first argument)
from s2s_ad.runtime import (average_weights, pad_value_grad, pad_values, pick_grad, rejoin, unjoin,
                            unpick, unweight)  # noqa: E402


@adjoint(runtime.pick_grad)
def pick_grad_(r, g, z, x, args, key=None):
    d[g] = unpick(d[r], z, x, args, key)


@adjoint(runtime.unpick)
def unpick_(r, u, z, x, args, key=None):
    d[u] = pick_grad(d[r], z, x, args, key)


@adjoint(runtime.uncumsum)
def uncumsum_(r, g, x, axis=None):
    d[g] = np.cumsum(d[r], axis=axis)


@adjoint(runtime.unjoin)
def unjoin_(r, g, xs, kind):
    d[g] = rejoin(d[r], xs, kind)


@adjoint(runtime.rejoin)
def rejoin_(r, u, xs, kind):
    d[u] = unjoin(d[r], xs, kind)


@adjoint(runtime.unrepeat)
def unrepeat_(r, g, a, repeats, axis=None):
    d[g] = np.repeat(d[r], repeats, axis)


@adjoint(runtime.untile)
def untile_(r, g, a, reps):
    d[g] = np.tile(d[r], reps)


@adjoint(runtime.undiag)
def undiag_(r, g, v, k=0):
    d[g] = np.diag(d[r], k)


@adjoint(runtime.undiagonal)
def undiagonal_(r, g, a, offset=0, axis1=0, axis2=1):
    d[g] = unbroadcast(np.diagonal(d[r], offset, axis1, axis2), g)


@adjoint(runtime.average_weights)
def average_weights_(r, a, axis=None, weights=None, returned=False):
    d[weights] = unweight(d[r], weights, axis)


@adjoint(runtime.unweight)
def unweight_(r, g, weights, axis=None):
    d[g] = average_weights(g, axis, d[r])


@adjoint(runtime.pad_value_grad)
def pad_value_grad_(r, g, array, pad_width, constant_values=0):
    d[g] = pad_values(d[r], array, pad_width)


@adjoint(runtime.pad_values)
def pad_values_(r, values, array, pad_width):
    d[values] = pad_value_grad(d[r], array, pad_width, values)


non_differentiable(runtime.take_index, runtime.along_axis_index, runtime.sort_index,
                   runtime.column_shape, runtime.tensordot_subscripts, runtime.inner_subscripts,
                   runtime.kron_parts, runtime.pad_interior, runtime.constant_pad_width,
                   runtime.item_index)
# how far along np.linspace each entry is: reads only the shape and kind of its first argument
non_differentiable(runtime.linspace_fraction)


@adjoint(runtime.across_linspace)
def across_linspace_(r, value, y, axis):
    d[value] = unbroadcast(np.sum(d[r], axis=axis), value)


@tangent(runtime.across_linspace)
def across_linspace_tangent(r, value, y, axis):
    d[r] = across_linspace(d[value], y, axis)


# the helpers of the rule for np.diff (linear in their first argument)
from s2s_ad.runtime import rediff, undiff  # noqa: E402


@adjoint(runtime.undiff)
def undiff_(r, g, a, n=1, axis=-1, prepend=None, append=None, part="a"):
    d[g] = rediff(d[r], a, n, axis, prepend, append, part)


@adjoint(runtime.rediff)
def rediff_(r, u, a, n=1, axis=-1, prepend=None, append=None, part="a"):
    d[u] = undiff(d[r], a, n, axis, prepend, append, part)


@adjoint(runtime.concatenator_part_grad)
def concatenator_part_grad_(y, g, concatenator, k, *parts):
    d[g] = concatenator_place(d[y], concatenator, k, *parts)


@adjoint(runtime.concatenator_place)
def concatenator_place_(y, u, concatenator, k, *parts):
    d[u] = concatenator_part_grad(d[y], concatenator, k, *parts)
# the copies and broadcasts generated code makes, so that a derivative of a derivative runs
# through them (reverse over forward: grad of a function calling jvp)
@adjoint(runtime.snapshot)
def snapshot_(y, value):
    d[value] = d[y]


@adjoint(runtime.tangent_copy)
def tangent_copy_(y, t):
    d[t] = d[y]


@adjoint(runtime.broadcast_like)
def broadcast_like_(y, t, like):
    d[t] = unbroadcast(d[y], t)

# where these helpers put or read a value: the index carries no derivative
index_argument(1, runtime.scatter, runtime.add_at, runtime.element, runtime.zero_at,
               runtime.last_writes, runtime.overwrite_at, runtime.container_scatter,
               runtime.put_entry)

# the adjoints of np.concatenate, np.stack and the builtin sum hand out one piece per element:
# their transposes put the pieces back together (an element without an adjoint gives zeros)
from s2s_ad.runtime import broadcast_like, tree_gradient  # noqa: E402


@adjoint(runtime.unconcatenate)
def unconcatenate_(r, g, xs, axis=0):
    d[g] = np.concatenate(tree_gradient(d[r], xs), axis=axis)


@adjoint(runtime.unstack)
def unstack_(r, g, xs, axis=0):
    d[g] = np.stack(tree_gradient(d[r], xs), axis=axis)


@adjoint(runtime.spread)
def spread_(r, g, xs):
    d[g] = broadcast_like(sum(tree_gradient(d[r], xs)), g)


# the layout helpers of the rules for np.linalg.cholesky: each linear and its own transpose,
# so one helper gives both rules
from s2s_ad.runtime import lower_half, lower_oriented  # noqa: E402


@adjoint(runtime.lower_half)
def lower_half_(r, x):
    d[x] = lower_half(d[r])


@tangent(runtime.lower_half)
def lower_half_tangent(r, x):
    d[r] = lower_half(d[x])


@adjoint(runtime.lower_oriented)
def lower_oriented_(r, x, upper=False):
    d[x] = lower_oriented(d[r], upper)


@tangent(runtime.lower_oriented)
def lower_oriented_tangent(r, x, upper=False):
    d[r] = lower_oriented(d[x], upper)
