"""Building and combining lists and tuples: reverse mode moves entries back to their elements,
forward mode combines the tangents the way the values were combined (the literals `[a, b]`,
`(a, b)` themselves are handled by s2s_ad.modes.forward). Combining is linear, declared once by
the move back (rules.linear)."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import (FIELD, adjoint, constant_parameters, d, linear, method,
                          non_differentiable, tangent, transposes)
from s2s_ad.runtime import (concatenator_part_grad, concatenator_tangent, default_grad, element,
                            entries_of, entry_grad, entry_read, entry_tangent, field_grad, field_tangent,
                            from_entries, resequence, scatter, sequenced, spread, unconcatenate, unjoin,
                            unsequence, unstack)
from s2s_ad.runtime import (as_field_list, broadcast_like, deep_copy, entry_replaced,
                            without_entry)
from s2s_ad.runtime import (joined_tangent, leading_part, placed_after, placed_first,
                            rezipped, trailing_part, unzipped)


@linear(np.stack, keywords=True, complex=True)
def stack(y, xs, axis=0):
    d[xs] = unstack(d[y], xs, axis)


@linear(np.concatenate, keywords=True, complex=True)
def concatenate(y, xs, axis=0):
    d[xs] = unconcatenate(d[y], xs, axis)


@linear(np.hstack, complex=True)
def hstack(y, tup, *, dtype=None, casting="same_kind"):
    d[tup] = unjoin(d[y], tup, "h")


@linear(np.vstack, complex=True)
def vstack(y, tup, *, dtype=None, casting="same_kind"):
    d[tup] = unjoin(d[y], tup, "v")


@linear(np.column_stack, complex=True)
def column_stack(y, tup):
    d[tup] = unjoin(d[y], tup, "column")


@linear(np.dstack)
def dstack(y, tup):
    d[tup] = unjoin(d[y], tup, "d")


@linear(element, complex=True)
def element_(y, g, index, like):
    d[g] = scatter(g, index, d[y])


@adjoint("tuple", "list")
def pack(y, *elements):
    d[elements[k]] = element(d[y], k, elements[k])


@adjoint("dict")
def pack_dict(y, keys, *values):
    d[values[k]] = element(d[y], keys[k], values[k])


constant_parameters(("keys",), "dict")


@tangent(list, tuple, dict)
def sequence(y, x):
    d[y] = sequenced(d[x], y, x)


@adjoint(list, tuple, dict)
def sequence_adjoint(y, x):
    d[x] = unsequence(d[y], x)


# `m.get(key, default)` on a dict: the entry where `m` has `key`, else `default`
@adjoint(method("get"))
def get(y, m, key, default=None):
    d[m] = entry_grad(d[y], m, key)
    d[default] = default_grad(d[y], m, key, default)


@tangent(method("get"))
def get_tangent(y, m, key, default=None):
    d[y] = entry_tangent(d[m], m, key, d[default])


constant_parameters(("key",), method("get"))


# the helpers the rules of `get` call, with rules of their own (second derivatives)
@transposes(runtime.entry_grad, runtime.entry_read)
def entry_grad_(r, g, m, key):
    d[g] = entry_read(d[r], m, key)


@linear(runtime.default_grad)
def default_grad_(r, g, m, key, default):
    d[g] = default_grad(d[r], m, key, default)


@adjoint(runtime.entry_tangent)
def entry_tangent_(r, t, m, key, t_default):
    d[t] = entry_grad(d[r], m, key)
    d[t_default] = default_grad(d[r], m, key, t_default)


@tangent(runtime.entry_tangent)
def entry_tangent_tangent(r, t, m, key, t_default):
    d[r] = entry_tangent(d[t], m, key, d[t_default])


constant_parameters(("m", "key"), runtime.entry_grad, runtime.entry_read)
constant_parameters(("m", "key", "default"), runtime.default_grad)
constant_parameters(("m", "key"), runtime.entry_tangent)


# `p.w` on a namedtuple: a rule for any attribute the tables do not name (rules.FIELD); the
# field is checked to be one when it runs
@adjoint(FIELD)
def named_field(y, x, field=None):
    d[x] = field_grad(d[y], x, field)


@tangent(FIELD)
def named_field_tangent(y, x, field=None):
    d[y] = field_tangent(d[x], x, field)


@transposes(field_grad, field_tangent)
def field_grad_(y, g, x, field):
    d[g] = field_tangent(d[y], x, field)


# `Point(a, b)` of a namedtuple or dataclass, made in the function: make_record(Point, (a, b))
@adjoint(runtime.make_record)
def make_record_(y, cls, values):
    d[values] = as_field_list(d[y], values)


@tangent(runtime.make_record)
def make_record_tangent(y, cls, values):
    d[y] = as_field_list(d[values], values)


@linear(runtime.as_field_list)
def as_field_list_(y, g, like):
    d[g] = as_field_list(d[y], like)


# `copy.deepcopy(params)`: the same values, in new objects (passes/lower_builtin_calls.py)
@linear(runtime.deep_copy, complex=True)
def deep_copy_(y, x):
    d[x] = deep_copy(d[y])


# `t = with_entry(t, k, v)`: a write into the array a tuple holds (passes/write_back_views.py)
@adjoint(runtime.with_entry)
def with_entry_(y, t, k, v):
    d[t] = without_entry(d[y], k)
    d[v] = element(d[y], k, v)


@tangent(runtime.with_entry)
def with_entry_tangent(y, t, k, v):
    d[y] = entry_replaced(d[t], t, k, d[v])


@linear(runtime.without_entry)
def without_entry_(y, g, k):
    d[g] = without_entry(d[y], k)


@adjoint(runtime.entry_replaced)
def entry_replaced_(y, dt, t, k, dv):
    d[dt] = without_entry(d[y], k)
    d[dv] = element(d[y], k, dv)


@tangent(runtime.entry_replaced)
def entry_replaced_tangent(y, dt, t, k, dv):
    d[y] = entry_replaced(d[dt], t, k, d[dv])


constant_parameters(("k",), runtime.with_entry, runtime.without_entry)
constant_parameters(("t", "k"), runtime.entry_replaced)
constant_parameters(("cls",), runtime.make_record)
constant_parameters(("like",), runtime.as_field_list)


# `a + b` on two lists or two tuples, where the function knows both hold one
# (passes/lower_sequence_arithmetic.py): the adjoint is cut at len(a), the tangents joined
@adjoint(runtime.joined)
def joined_(y, a, b):
    d[a] = leading_part(d[y], a)
    d[b] = trailing_part(d[y], a)


@tangent(runtime.joined)
def joined_tangent_(y, a, b):
    d[y] = joined_tangent(d[a], d[b], y)


@adjoint(runtime.joined_tangent)
def joined_tangent_adjoint(r, ta, tb, y):
    d[ta] = leading_part(d[r], ta)
    d[tb] = trailing_part(d[r], ta)


@tangent(runtime.joined_tangent)
def joined_tangent_tangent(r, ta, tb, y):
    d[r] = joined_tangent(d[ta], d[tb], y)


@transposes(runtime.leading_part, runtime.placed_first)
def leading_part_(y, g, a):
    d[g] = placed_first(d[y], a)


@transposes(runtime.trailing_part, runtime.placed_after)
def trailing_part_(y, g, a):
    d[g] = placed_after(d[y], a)


constant_parameters(("a",), runtime.leading_part, runtime.trailing_part, runtime.placed_first,
                    runtime.placed_after)
constant_parameters(("y",), runtime.joined_tangent)


@adjoint(method("tolist"))
def tolist(y, x):
    d[x] = from_entries(d[y], x)


@tangent(method("tolist"))
def tolist_tangent(y, x):
    d[y] = np.asarray(d[x]).tolist()


@transposes(from_entries, entries_of)
def from_entries_(y, g, x):
    d[g] = entries_of(d[y], x)


@adjoint(sequenced)
def sequenced_(r, t, y, x):
    d[t] = unsequence(d[r], x)


@tangent(sequenced)
def sequenced_tangent(r, t, y, x):
    d[r] = sequenced(d[t], y, x)


constant_parameters(("y", "x"), sequenced)


@transposes(unsequence, resequence)
def unsequence_(y, g, x):
    d[g] = resequence(d[y], x)


# the builtin sum is linear too, but its tangent broadcasts each part to the result (a start of
# 0 added to arrays), so it is not the plain call
@adjoint(sum)
def sum_(y, xs, start=0):
    d[xs] = spread(d[y], xs)
    d[start] = d[y]


@tangent(sum)
def sum_tangent(y, xs, start=0):
    d[y] = broadcast_like(sum(d[xs]), y) + broadcast_like(d[start], y)


# np.r_[...] and np.c_[...] lay their parts side by side (a concatenate spelled as an index):
# each part's adjoint is the entries of d[y] where that part's entries landed.
@adjoint(np.r_)
def r_(y, *parts):
    d[parts[k]] = concatenator_part_grad(d[y], np.r_, k, *parts)


@tangent(np.r_)
def r_tangent(y, *parts):
    d[y] = concatenator_tangent(np.r_, parts, d[parts])


@adjoint(np.c_)
def c_(y, *parts):
    d[parts[k]] = concatenator_part_grad(d[y], np.c_, k, *parts)


@tangent(np.c_)
def c_tangent(y, *parts):
    d[y] = concatenator_tangent(np.c_, parts, d[parts])


# a dict's keys carry no derivative (its entries do: `for k in d.keys(): v = d[k]`)
non_differentiable(method("keys"))


# zip(*xs) (passes/lower_builtin_calls.py): the tuples' adjoints go back entry by entry
@linear(runtime.zipped)
def zipped_(y, xs):
    d[xs] = unzipped(d[y], xs)


@transposes(runtime.unzipped, runtime.rezipped)
def unzipped_(y, g, xs):
    d[g] = rezipped(d[y], xs)
