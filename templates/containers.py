"""Adjoints of building and combining lists and tuples: entries move back to their elements."""
import numpy as np

from s2s_ad.rules import adjoint, d, method, non_differentiable
from s2s_ad.runtime import (concatenator_part_grad, element, scatter, spread, unconcatenate,
                            unjoin, unstack)


@adjoint("tuple", "list")
def pack(y, *elements):
    d[elements[k]] = element(d[y], k, elements[k])


@adjoint(sum)
def sum_(y, xs, start=0):
    d[xs] = spread(d[y], xs)
    d[start] = d[y]


@adjoint(np.stack)
def stack(y, xs, axis=0):
    d[xs] = unstack(d[y], xs, axis)


@adjoint(np.concatenate)
def concatenate(y, xs, axis=0):
    d[xs] = unconcatenate(d[y], xs, axis)


@adjoint(np.hstack)
def hstack(y, tup, *, dtype=None, casting="same_kind"):
    d[tup] = unjoin(d[y], tup, "h")


@adjoint(np.vstack)
def vstack(y, tup, *, dtype=None, casting="same_kind"):
    d[tup] = unjoin(d[y], tup, "v")


@adjoint(np.column_stack)
def column_stack(y, tup):
    d[tup] = unjoin(d[y], tup, "column")


@adjoint(np.dstack)
def dstack(y, tup):
    d[tup] = unjoin(d[y], tup, "d")


@adjoint("dict")
def pack_dict(y, keys, *values):
    d[values[k]] = element(d[y], keys[k], values[k])


@adjoint(element)
def element_(y, g, index, like):
    d[g] = scatter(g, index, d[y])


# np.r_[...] and np.c_[...] lay their parts side by side (a concatenate spelled as an index):
# each part's adjoint is the entries of d[y] where that part's entries landed.
@adjoint(np.r_)
def r_(y, *parts):
    d[parts[k]] = concatenator_part_grad(d[y], np.r_, k, *parts)


@adjoint(np.c_)
def c_(y, *parts):
    d[parts[k]] = concatenator_part_grad(d[y], np.c_, k, *parts)


# a dict's keys carry no derivative (its entries do: `for k in d.keys(): v = d[k]`)
non_differentiable(method("keys"))
