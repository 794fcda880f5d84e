"""Tangents of the helpers generated code calls, so forward mode runs over reverse-mode code
(forward-over-reverse gives Hessian-vector products). Each is linear in the incoming adjoint `g`;
the few that also depend on primal values have a term for those."""
from s2s_ad import runtime, runtime_forward
from s2s_ad.rules import d, non_differentiable, tangent
from s2s_ad.runtime import (concatenator_part_grad, concatenator_place, container_scatter,
                            divide_or_zero, dot_grad_a, dot_grad_b, einsum_grad, einsum_grad_swap,
                            element, gradient_like, last_writes, matmul_grad_a, matmul_grad_b,
                            norm_curvature, norm_slope, overwrite_at, prod_hvp, scatter, snapshot,
                            spread, through_cast, tree_gradient, truncate, unbroadcast,
                            unconcatenate, unreduce, unstack, untranspose, zero_at)
from s2s_ad.runtime_forward import broadcast_like, einsum_grad_tangent, tangent_cast, tangent_copy


@tangent(runtime.unbroadcast)
def unbroadcast_(y, g, like):
    d[y] = unbroadcast(d[g], like)


@tangent(runtime.unreduce)
def unreduce_(y, g, x, axis=None, keepdims=False):
    d[y] = unreduce(d[g], x, axis, keepdims)


@tangent(runtime.scatter)
def scatter_(y, x, index, g):
    d[y] = scatter(x, index, d[g])


@tangent(runtime.zero_at)
def zero_at_(y, g, index):
    d[y] = zero_at(d[g], index)


@tangent(runtime.last_writes)
def last_writes_(y, g, index):
    d[y] = last_writes(d[g], index)


@tangent(runtime.overwrite_at)
def overwrite_at_(y, x, index, g):
    d[y] = overwrite_at(x, index, d[g])


@tangent(runtime.snapshot)
def snapshot_(y, value):
    d[y] = snapshot(d[value])


@tangent(runtime.matmul_grad_a)
def matmul_grad_a_(y, g, a, b):
    d[y] = matmul_grad_a(d[g], a, b) + matmul_grad_a(g, a, d[b])


@tangent(runtime.matmul_grad_b)
def matmul_grad_b_(y, g, a, b):
    d[y] = matmul_grad_b(d[g], a, b) + matmul_grad_b(g, d[a], b)


@tangent(runtime.dot_grad_a)
def dot_grad_a_(y, g, a, b):
    d[y] = dot_grad_a(d[g], a, b) + dot_grad_a(g, a, d[b])


@tangent(runtime.dot_grad_b)
def dot_grad_b_(y, g, a, b):
    d[y] = dot_grad_b(d[g], a, b) + dot_grad_b(g, d[a], b)


@tangent(runtime.einsum_grad)
def einsum_grad_(y, g, subscripts, k, *operands):
    d[y] = einsum_grad(d[g], subscripts, k, *operands) + einsum_grad_tangent(g, subscripts, k, operands, d[operands]) + einsum_grad_swap(g, subscripts, k, -1, d[subscripts], *operands)


@tangent(runtime.untranspose)
def untranspose_(y, g, axes=None):
    d[y] = untranspose(d[g], axes)


@tangent(runtime.through_cast)
def through_cast_(r, g, y):
    d[r] = through_cast(d[g], y)


@tangent(runtime.seed_like)
def seed_like_(y, out, seed, function_name="f"):
    d[y] = d[seed]


@tangent(runtime.gradient_like)
def gradient_like_(y, g, x):
    d[y] = gradient_like(d[g], x)


@tangent(runtime.container_scatter)
def container_scatter_(y, x, index, g):
    d[y] = container_scatter(x, index, d[g])


@tangent(runtime.truncate)
def truncate_(y, g, length):
    d[y] = truncate(d[g], length)


@tangent(runtime.spread)
def spread_(y, g, xs):
    d[y] = spread(d[g], xs)


@tangent(runtime.unstack)
def unstack_(y, g, xs, axis=0):
    d[y] = unstack(d[g], xs, axis)


@tangent(runtime.unconcatenate)
def unconcatenate_(y, g, xs, axis=0):
    d[y] = unconcatenate(d[g], xs, axis)


@tangent(runtime.tree_gradient)
def tree_gradient_(y, g, x):
    d[y] = tree_gradient(d[g], x)


@tangent(runtime.divide_or_zero)
def divide_or_zero_(z, a, b):
    d[z] = divide_or_zero(d[a], b) - divide_or_zero(d[b] * z, b)


# the factors of the rules for np.prod and np.linalg.norm (the tangents of prod_grad and
# norm_grad sit beside their adjoints in runtime_helpers.py)
@tangent(runtime.prod_others)
def prod_others_(y, x, axis=None):
    d[y] = prod_hvp(d[x], x, axis)


@tangent(runtime.norm_direction)
def norm_direction_(u, x, y, ord=None, axis=None, keepdims=False):
    d[u] = (d[x] * norm_curvature(x, y, ord, axis, keepdims)
            + unreduce(d[y], x, axis, keepdims) * norm_slope(x, y, ord, axis, keepdims))


# forward mode's own helpers, so that forward mode can be applied again
@tangent(runtime_forward.broadcast_like)
def broadcast_like_(y, t, like):
    d[y] = broadcast_like(d[t], like)


@tangent(runtime_forward.tangent_cast)
def tangent_cast_(y, t, x):
    d[y] = tangent_cast(d[t], x)


@tangent(runtime_forward.tangent_copy)
def tangent_copy_(y, t):
    d[y] = tangent_copy(d[t])


non_differentiable(runtime_forward.zero_tangent)


# the helpers of the rules for max/min, cumsum, hstack and friends, repeat, tile, diag,
# diagonal, trace, average and pad (all linear in their first argument but pick_tangent's)
from s2s_ad.runtime import (average_weights, pad_value_grad, pad_values, pick_grad, pick_tangent,
                            rejoin, uncumsum, undiag, undiagonal, unjoin, unpick, unrepeat, untile,
                            unweight)  # noqa: E402


@tangent(runtime.pick_grad)
def pick_grad_(r, g, z, x, args, key=None):
    d[r] = pick_grad(d[g], z, x, args, key)


@tangent(runtime.unpick)
def unpick_(r, u, z, x, args, key=None):
    d[r] = unpick(d[u], z, x, args, key)


@tangent(runtime.pick_tangent)
def pick_tangent_(r, z, args, tangents, key=None):
    d[r] = pick_tangent(z, args, d[tangents], key)


@tangent(runtime.uncumsum)
def uncumsum_(r, g, x, axis=None):
    d[r] = uncumsum(d[g], x, axis)


@tangent(runtime.unjoin)
def unjoin_(r, g, xs, kind):
    d[r] = unjoin(d[g], xs, kind)


@tangent(runtime.rejoin)
def rejoin_(r, u, xs, kind):
    d[r] = rejoin(d[u], xs, kind)


@tangent(runtime.unrepeat)
def unrepeat_(r, g, a, repeats, axis=None):
    d[r] = unrepeat(d[g], a, repeats, axis)


@tangent(runtime.untile)
def untile_(r, g, a, reps):
    d[r] = untile(d[g], a, reps)


@tangent(runtime.undiag)
def undiag_(r, g, v, k=0):
    d[r] = undiag(d[g], v, k)


@tangent(runtime.undiagonal)
def undiagonal_(r, g, a, offset=0, axis1=0, axis2=1):
    d[r] = undiagonal(d[g], a, offset, axis1, axis2)


@tangent(runtime.average_weights)
def average_weights_(r, a, axis=None, weights=None, returned=False):
    d[r] = average_weights(a, axis, d[weights], returned)


@tangent(runtime.unweight)
def unweight_(r, g, weights, axis=None):
    d[r] = unweight(d[g], weights, axis)


@tangent(runtime.pad_value_grad)
def pad_value_grad_(r, g, array, pad_width, constant_values=0):
    d[r] = pad_value_grad(d[g], array, pad_width, constant_values)


@tangent(runtime.pad_values)
def pad_values_(r, values, array, pad_width):
    d[r] = pad_values(d[values], array, pad_width)


# the helpers of the rule for np.diff (linear in their first argument)
from s2s_ad.runtime import rediff, undiff  # noqa: E402


@tangent(runtime.undiff)
def undiff_(r, g, a, n=1, axis=-1, prepend=None, append=None, part="a"):
    d[r] = undiff(d[g], a, n, axis, prepend, append, part)


@tangent(runtime.rediff)
def rediff_(r, u, a, n=1, axis=-1, prepend=None, append=None, part="a"):
    d[r] = rediff(d[u], a, n, axis, prepend, append, part)


@tangent(runtime.concatenator_part_grad)
def concatenator_part_grad_(y, g, concatenator, k, *parts):
    d[y] = concatenator_part_grad(d[g], concatenator, k, *parts)


@tangent(runtime.concatenator_place)
def concatenator_place_(y, u, concatenator, k, *parts):
    d[y] = concatenator_place(d[u], concatenator, k, *parts)
