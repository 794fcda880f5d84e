"""The helpers generated code calls, with rules of their own so that derivatives can be
differentiated again: forward over reverse (hvp, hessian), reverse over forward (grad of jvp),
reverse over reverse.

Most are linear in the derivative they carry, declared once by their transpose (rules.linear:
the tangent is the helper applied to the tangent), or as a pair of helpers that are each
other's transposes (rules.transposes)."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import (adjoint, bilinear, constant_parameters, d, elementwise, index_argument,
                          linear, non_differentiable, supports_complex, tangent,
                          transposes)
from s2s_ad.runtime import (average_weights, concatenator_place, container_scatter, divide_or_zero,
                            drop_entry, entries_at, entry_before, insert_entry,
                            dot_grad_a, dot_grad_b, einsum_grad, einsum_grad_swap, einsum_swap,
                            tensordot_grad_a, tensordot_grad_b,
                            element, last_writes, lower_half, lower_oriented, matmul_grad_a,
                            matmul_grad_b, norm_curvature, norm_direction, norm_direction_tangent,
                            norm_grad, norm_slope, overwrite_at, pad_value_grad, pad_values,
                            pick_tangent, prod_grad, prod_hvp, prod_others, put_entry, rediff,
                            scatter_entries, sorted_tangent,
                            rejoin, reshape_as, through_cast, through_update, transpose_by, tree_gradient,
                            unbroadcast, unpick, unreduce, unreshape, unweight, zero_at)
from s2s_ad.runtime import conj, fit_to
from s2s_ad.runtime import broadcast_like, einsum_grad_tangent, extremum_gather, extremum_share, tangent_cast


# ---------------------------------------------------------------------------------------------
# linear in their first argument (or the one the template writes): the transpose
# ---------------------------------------------------------------------------------------------
@linear(runtime.unbroadcast, complex=True)
def unbroadcast_(y, g, like):
    d[g] = broadcast_like(d[y], g)


@linear(runtime.unreduce, complex=True)
def unreduce_(y, g, x, axis=None, keepdims=False):
    d[g] = np.reshape(np.sum(d[y], axis=axis, keepdims=True), np.shape(g))


@linear(runtime.scatter, complex=True)
def scatter_(y, x, index, g):
    # a container adjoint holds None for an entry nobody wrote into: element reads it as zero
    d[g] = unbroadcast(element(d[y], index, g), g)


@linear(runtime.scatter_entries, complex=True)
def scatter_entries_(y, x, keys, gs):
    d[gs] = entries_at(d[y], keys, gs)


@linear(runtime.entries_at, complex=True)
def entries_at_(y, g, keys, likes):
    d[g] = scatter_entries(g, keys, d[y])        # as element's: g gives the container's form


@linear(runtime.scatter_distinct)
def scatter_distinct_(y, x, index, g):
    d[g] = unbroadcast(d[y][index], g)


@linear(runtime.scatter_by_range)
def scatter_by_range_(y, x, index, g, k):
    d[g] = unbroadcast(element(d[y], index, g), g)      # as scatter's: it may be one


@linear(runtime.zero_at)
def zero_at_(y, g, index):
    d[g] = zero_at(d[y], index)


# linear in the list adjoint and the entry together (not one at a time)
@adjoint(runtime.put_entry)
def put_entry_(y, g, index, value):
    d[g] = zero_at(d[y], index)
    d[value] = element(d[y], index, value)


@tangent(runtime.put_entry)
def put_entry_tangent(y, g, index, value):
    d[y] = put_entry(d[g], index, d[value])


# `v = xs.pop(i)` and `xs.insert(i, v)` move the entries after i: these undo that on the list
# adjoint, and are each other's transposes (the entry itself travels with `element`)
@adjoint(runtime.insert_entry)
def insert_entry_(y, g, position, value):
    d[g] = drop_entry(d[y], position)
    d[value] = element(d[y], position, value)


@tangent(runtime.insert_entry)
def insert_entry_tangent(y, g, position, value):
    d[y] = insert_entry(d[g], position, d[value])


@linear(runtime.drop_entry)
def drop_entry_(y, g, position):
    d[g] = insert_entry(d[y], position, None)


@linear(runtime.last_writes)
def last_writes_(y, g, index):
    d[g] = overwrite_at(g, index, d[y])


@linear(runtime.overwrite_at)
def overwrite_at_(y, x, index, g):
    d[g] = unbroadcast(last_writes(d[y], index), g)


@linear(runtime.extremum_share)
def extremum_share_(r, g, x, y, axis=None, keepdims=False):
    d[g] = extremum_gather(d[r], x, y, axis, keepdims)


@linear(runtime.extremum_gather)
def extremum_gather_(r, u, x, y, axis=None, keepdims=False):
    d[u] = extremum_share(d[r], x, y, axis, keepdims)


# `total + extremum_share(g, x, y, ...)`, added into `total` where generated code owns it
# (the tangent is made anew: the tangent of `total` is not the derivative's own)
@tangent(runtime.add_extremum_share)
def add_extremum_share_tangent(r, total, g, x, y, axis=None, keepdims=False):
    d[r] = d[total] + extremum_share(d[g], x, y, axis, keepdims)


constant_parameters(("x", "y", "axis", "keepdims"), runtime.add_extremum_share)


@linear(runtime.through_cast, complex=True)
def through_cast_(r, g, y, x=None):
    d[g] = through_cast(d[r], y, x)


@linear(runtime.truncate)
def truncate_(y, g, length):
    d[g] = d[y]                  # the entries cut off were zeros


@linear(runtime.gradient_like, complex=True)
def gradient_like_(y, g, x):
    d[g] = unbroadcast(d[y], g)


@linear(runtime.callee_gradient, complex=True)
def callee_gradient_(y, g, x):
    d[g] = unbroadcast(d[y], g)


@linear(runtime.unreshape, complex=True)
def unreshape_(y, g, x, order="C"):
    d[g] = reshape_as(d[y], g, x, order)


@linear(runtime.reshape_as, complex=True)
def reshape_as_(y, t, like, x, order="C"):
    d[t] = unreshape(d[y], x, order)


@linear(runtime.uncumsum, complex=True)
def uncumsum_(r, g, x, axis=None):
    d[g] = np.cumsum(d[r], axis=axis)


@linear(runtime.unrepeat, complex=True)
def unrepeat_(r, g, a, repeats, axis=None):
    d[g] = np.repeat(d[r], repeats, axis)


@linear(runtime.untile, complex=True)
def untile_(r, g, a, reps):
    d[g] = np.tile(d[r], reps)


@linear(runtime.undiag, complex=True)
def undiag_(r, g, v, k=0):
    d[g] = np.diag(d[r], k)


@linear(runtime.undiagonal, complex=True)
def undiagonal_(r, g, a, offset=0, axis1=0, axis2=1):
    d[g] = unbroadcast(np.diagonal(d[r], offset, axis1, axis2), g)


@linear(runtime.average_weights)
def average_weights_(r, a, axis=None, weights=None, returned=False):
    d[weights] = unweight(d[r], weights, axis)


@linear(runtime.unweight)
def unweight_(r, g, weights, axis=None):
    d[g] = average_weights(g, axis, d[r])


@linear(runtime.pad_value_grad)
def pad_value_grad_(r, g, array, pad_width, constant_values=0):
    d[g] = pad_values(d[r], array, pad_width)


@linear(runtime.pad_values)
def pad_values_(r, values, array, pad_width):
    d[values] = pad_value_grad(d[r], array, pad_width, values)


@linear(runtime.across_linspace)
def across_linspace_(r, value, y, axis):
    d[value] = unbroadcast(np.sum(d[r], axis=axis), value)


# the adjoints of np.concatenate, np.stack and the builtin sum hand out one piece per element:
# their transposes put the pieces back together (an element without an adjoint gives zeros)
@linear(runtime.unconcatenate, complex=True)
def unconcatenate_(r, g, xs, axis=0):
    d[g] = np.concatenate(tree_gradient(d[r], xs), axis=axis)


@linear(runtime.unstack, complex=True)
def unstack_(r, g, xs, axis=0):
    d[g] = np.stack(tree_gradient(d[r], xs), axis=axis)


@linear(runtime.spread)
def spread_(r, g, xs):
    d[g] = broadcast_like(sum(tree_gradient(d[r], xs)), g)


# the layout helpers of the rules for np.linalg.cholesky: each its own transpose
@linear(runtime.lower_half)
def lower_half_(r, x):
    d[x] = lower_half(d[r])


@linear(runtime.lower_oriented)
def lower_oriented_(r, x, upper=False):
    d[x] = lower_oriented(d[r], upper)


# the copies and broadcasts generated code makes (reverse over forward: grad of a function
# calling jvp)
@linear(runtime.snapshot, complex=True)
def snapshot_(y, value):
    d[value] = d[y]


@linear(runtime.own_copy, complex=True)
def own_copy_(y, value, name, where, **others):
    d[value] = d[y]


@linear(runtime.tangent_copy, complex=True)
def tangent_copy_(y, t):
    d[t] = d[y]


@linear(runtime.broadcast_like, complex=True)
def broadcast_like_(y, t, like):
    d[t] = unbroadcast(d[y], t)


# ---------------------------------------------------------------------------------------------
# pairs of transposes, taking the same arguments after the first
# ---------------------------------------------------------------------------------------------
@transposes(runtime.sorted_grad, runtime.sorted_tangent)
def sorted_grad_(r, g, xs, key=None, reverse=False):
    d[g] = sorted_tangent(d[r], xs, key, reverse)


@transposes(runtime.untranspose, runtime.transpose_by, complex=True)
def untranspose_(y, g, axes=None):
    d[g] = transpose_by(d[y], axes)


@transposes(runtime.pick_grad, runtime.unpick)
def pick_grad_(r, g, z, x, args, key=None):
    d[g] = unpick(d[r], z, x, args, key)


@transposes(runtime.unjoin, runtime.rejoin, complex=True)
def unjoin_(r, g, xs, kind):
    d[g] = rejoin(d[r], xs, kind)


@transposes(runtime.undiff, runtime.rediff, complex=True)
def undiff_(r, g, a, n=1, axis=-1, prepend=None, append=None, part="a"):
    d[g] = rediff(d[r], a, n, axis, prepend, append, part)


@transposes(runtime.concatenator_part_grad, runtime.concatenator_place)
def concatenator_part_grad_(y, g, concatenator, k, *parts):
    d[g] = concatenator_place(d[y], concatenator, k, *parts)


# ---------------------------------------------------------------------------------------------
# products: linear in the adjoint and in the other factor
# ---------------------------------------------------------------------------------------------
@bilinear(runtime.matmul_grad_a, complex=True)
def matmul_grad_a_(y, g, a, b):
    d[g] = np.matmul(d[y], b)
    d[b] = matmul_grad_b(g, d[y], b)


@bilinear(runtime.matmul_grad_b, complex=True)
def matmul_grad_b_(y, g, a, b):
    d[g] = np.matmul(a, d[y])
    d[a] = matmul_grad_a(g, a, d[y])


@bilinear(runtime.dot_grad_a, complex=True)
def dot_grad_a_(y, g, a, b):
    d[g] = np.dot(d[y], b)
    d[b] = dot_grad_b(g, d[y], b)


@bilinear(runtime.dot_grad_b, complex=True)
def dot_grad_b_(y, g, a, b):
    d[g] = np.dot(a, d[y])
    d[a] = dot_grad_a(g, a, d[y])


@bilinear(runtime.tensordot_grad_a, complex=True)
def tensordot_grad_a_(y, g, a, b, axes=2):
    d[g] = np.tensordot(d[y], b, axes)
    d[b] = tensordot_grad_b(g, d[y], b, axes)


@bilinear(runtime.tensordot_grad_b, complex=True)
def tensordot_grad_b_(y, g, a, b, axes=2):
    d[g] = np.tensordot(a, d[y], axes)
    d[a] = tensordot_grad_a(g, a, d[y], axes)


@elementwise(runtime.divide_or_zero, complex=True)
def divide_or_zero_(g, z, a, b):
    d[a] = divide_or_zero(g, b)
    d[b] = -divide_or_zero(g * z, b)


# ---------------------------------------------------------------------------------------------
# not linear in all they take, or not their own tangent: both rules, side by side
# ---------------------------------------------------------------------------------------------
@adjoint(runtime.seed_like)
def seed_like_(y, out, seed, function_name="f"):
    d[seed] = d[y]


@tangent(runtime.seed_like)
def seed_like_tangent(y, out, seed, function_name="f"):
    d[y] = d[seed]


@adjoint(runtime.einsum_grad)
def einsum_grad_(y, g, subscripts, k, *operands):
    d[g] = einsum_swap(subscripts, k, d[y], *operands)
    d[operands[j]] = einsum_grad_swap(g, subscripts, j, k, d[y], *operands)
    d[subscripts] = einsum_grad_swap(g, subscripts, -1, k, d[y], *operands)


@tangent(runtime.einsum_grad)
def einsum_grad_tangent_(y, g, subscripts, k, *operands):
    d[y] = einsum_grad(d[g], subscripts, k, *operands) + einsum_grad_tangent(g, subscripts, k, operands, d[operands]) + einsum_grad_swap(g, subscripts, k, -1, d[subscripts], *operands)


@adjoint(runtime.prod_grad)
def prod_grad_(r, g, y, x, axis=None, keepdims=False):
    d[g] = np.reshape(np.sum(d[r] * prod_others(x, axis), axis=axis, keepdims=True),
                      np.shape(g))
    d[x] = prod_hvp(d[r] * unreduce(g, x, axis, keepdims), x, axis)


@tangent(runtime.prod_grad)
def prod_grad_tangent(r, g, y, x, axis=None, keepdims=False):
    d[r] = (prod_grad(d[g], y, x, axis, keepdims)
            + unreduce(g, x, axis, keepdims) * prod_hvp(d[x], x, axis))


@adjoint(runtime.norm_grad)
def norm_grad_(r, g, y, x, ord=None, axis=None, keepdims=False):
    d[g] = np.reshape(np.sum(d[r] * norm_direction(x, y, ord, axis, keepdims),
                             axis=axis, keepdims=True), np.shape(g))
    d[x] = d[r] * unreduce(g, x, axis, keepdims) * norm_curvature(x, y, ord, axis, keepdims)
    d[y] = np.reshape(np.sum(d[r] * unreduce(g, x, axis, keepdims)
                             * norm_slope(x, y, ord, axis, keepdims), axis=axis, keepdims=True),
                      np.shape(y))


@tangent(runtime.norm_grad)
def norm_grad_tangent(r, g, y, x, ord=None, axis=None, keepdims=False):
    d[r] = (norm_grad(d[g], y, x, ord, axis, keepdims)
            + unreduce(np.real(g), x, axis, keepdims) * norm_direction_tangent(x, y, d[x], d[y], ord, axis, keepdims))


# ---------------------------------------------------------------------------------------------
# helpers only tangent templates call today: their tangents alone
# ---------------------------------------------------------------------------------------------
@tangent(runtime.entry_before)
def entry_before_tangent(y, container, key):
    d[y] = entry_before(d[container], key)


@adjoint(runtime.entry_before)
def entry_before_(y, container, key):
    d[container] = container_scatter(container, key, d[y])


@tangent(runtime.container_scatter)
def container_scatter_(y, x, index, g):
    d[y] = container_scatter(x, index, d[g])


@tangent(runtime.tree_gradient)
def tree_gradient_(y, g, x):
    d[y] = tree_gradient(d[g], x)


@tangent(runtime.pick_tangent)
def pick_tangent_(r, z, args, tangents, key=None):
    d[r] = pick_tangent(z, args, d[tangents], key)


# the factors of the rules for np.prod and np.linalg.norm
@tangent(runtime.prod_others)
def prod_others_(y, x, axis=None):
    d[y] = prod_hvp(d[x], x, axis)


@tangent(runtime.norm_direction)
def norm_direction_(u, x, y, ord=None, axis=None, keepdims=False):
    d[u] = norm_direction_tangent(x, y, d[x], d[y], ord, axis, keepdims)


# `z op= v` and a store `k[i] = v` convert to the array's dtype: no derivative flows into an
# integer or bool array; `z` is read for its dtype and shape only
@adjoint(runtime.updated_in_place)
def updated_in_place_(y, z, result):
    d[result] = through_update(d[y], z)


@linear(runtime.through_update, complex=True)
def through_update_(r, g, z):
    d[g] = through_update(d[r], z)


@tangent(runtime.updated_in_place)
def updated_in_place_tangent(y, z, result):
    d[y] = tangent_cast(d[result], y)


@adjoint(runtime.stored_as)
def stored_as_(y, value, array):
    # read off the array stored into, never rebound: nothing more to keep for the adjoint
    d[value] = through_update(d[y], array)


@tangent(runtime.stored_as)
def stored_as_tangent(y, value, array):
    d[y] = tangent_cast(d[value], y)


constant_parameters(("z",), runtime.updated_in_place)
constant_parameters(("array",), runtime.stored_as)
supports_complex(runtime.updated_in_place, runtime.stored_as)


@tangent(runtime.tangent_cast)
def tangent_cast_(y, t, x):
    d[y] = tangent_cast(d[t], x)


# for_its_shape: a stand-in read for its shape alone (optimize/shape_stand_ins.py)
non_differentiable(runtime.extremum_mask, runtime.took_default, runtime.reduction_count, runtime.tie_share,
                   runtime.for_its_shape,
                   runtime.zeros_like, runtime.ones_like, np.zeros_like, np.ones_like,
                   runtime.check_rebinds, runtime.check_entries_rebind, runtime.check_not_view,
                   runtime.check_view_spared, runtime.check_copied_as_a_copy,
                   runtime.check_fresh_array,
                   runtime.check_method_owner, runtime.check_attribute_owner,
                   runtime.check_not_mapping, runtime.check_bound, runtime.same_array,
                   runtime.other_entries)
non_differentiable(runtime.take_index, runtime.along_axis_index, runtime.sort_index,
                   runtime.column_shape, runtime.tensordot_subscripts, runtime.inner_subscripts,
                   runtime.kron_parts, runtime.item_index)
# how far along np.linspace each entry is: reads only the shape and kind of its first argument
non_differentiable(runtime.linspace_fraction)
non_differentiable(runtime.zero_tangent)
non_differentiable(runtime.inserted_at, runtime.popped_from)      # positions in a list

# where these helpers put or read a value: the index carries no derivative
index_argument(1, runtime.scatter, runtime.scatter_entries, runtime.entries_at, runtime.add_at,
               runtime.element, runtime.zero_at, runtime.last_writes, runtime.overwrite_at, runtime.container_scatter,
               runtime.put_entry, runtime.entry_before, runtime.insert_entry, runtime.drop_entry)


# ---------------------------------------------------------------------------------------------
# np.fft's and complex values' helpers (runtime/fourier.py)
# ---------------------------------------------------------------------------------------------
@linear(runtime.fit_to, complex=True)
def fit_to_(y, g, like):
    d[g] = fit_to(d[y], g)       # cutting and padding are each other's transposes


@linear(runtime.rfft_grad, complex=True)
def rfft_grad_(r, g, a, n=None, axis=-1, norm=None):
    d[g] = np.fft.rfft(d[r], n, axis, norm)


@linear(runtime.irfft_grad, complex=True)
def irfft_grad_(r, g, a, n=None, axis=-1, norm=None):
    d[g] = np.fft.irfft(d[r], np.shape(g)[axis], axis, norm)


@adjoint(runtime.conj_sign)
def conj_sign_(r, x, y):
    d[x] = unbroadcast(conj(divide_or_zero(d[r], y)), x)
    d[y] = unbroadcast(-divide_or_zero(d[r] * r, y), y)


@tangent(runtime.conj_sign)
def conj_sign_tangent(r, x, y):
    d[r] = divide_or_zero(conj(d[x]) - r * d[y], y)


constant_parameters(("like",), runtime.fit_to)
constant_parameters(("a",), runtime.rfft_grad, runtime.irfft_grad)
non_differentiable(runtime.transformed_axes, runtime.angle_unit)
supports_complex(runtime.seed_like, runtime.conj_sign, runtime.tree_gradient)
# the factors of np.prod's rules (holomorphic: no conjugate), and a cast of a tangent
supports_complex(runtime.prod_grad, runtime.prod_others, runtime.prod_hvp, runtime.tangent_cast)
# np.linalg.norm's helpers (forward over reverse; grad of grad of a complex value refused)
supports_complex(runtime.norm_grad, runtime.norm_direction)
