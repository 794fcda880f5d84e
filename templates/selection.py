"""Picking entries: np.select and np.choose (each entry from one of several arrays), np.compress
and np.extract (the entries a condition keeps). The conditions and indices carry no derivative.
All are linear in what they pick from: compress and extract are declared once by the move back
(rules.linear); select and choose, linear in the choices and the default together, give both
rules."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, linear, method, non_differentiable, supports_complex, tangent
from s2s_ad.runtime import (choice_index, choice_taken, choose_grad, chosen, compress_index,
                            extract_index, scatter, select_grad, tree_gradient)


@adjoint(np.select)
def select(y, condlist, choicelist, default=0):
    d[choicelist] = select_grad(d[y], condlist, choicelist)
    d[default] = chosen(d[y], condlist, -1, default)


@tangent(np.select)
def select_tangent(y, condlist, choicelist, default=0):
    d[y] = np.select(condlist, d[choicelist], d[default])


@adjoint(np.choose)
def choose(y, a, choices, mode="raise"):
    d[choices] = choose_grad(d[y], a, choices, mode)


@tangent(np.choose)
def choose_tangent(y, a, choices, mode="raise"):
    d[y] = np.choose(a, d[choices], mode=mode)


@linear(np.compress)
def compress(y, condition, a, axis=None):
    d[a] = scatter(a, compress_index(condition, a, axis), d[y])


# x.compress(condition, axis): the array first (`out=` is left out, so it is refused)
@adjoint(method("compress"))
def compress_method(y, a, condition, axis=None):
    d[a] = scatter(a, compress_index(condition, a, axis), d[y])


@tangent(method("compress"))
def compress_method_tangent(y, a, condition, axis=None):
    d[y] = np.compress(condition, d[a], axis)


@linear(np.extract)
def extract(y, condition, arr):
    d[arr] = scatter(arr, extract_index(condition, arr), d[y])


# the helpers of the adjoints above, linear in the adjoint they carry: their transposes put
# each part back where its choice was picked
@linear(runtime.chosen)
def chosen_(r, g, condlist, k, like):
    d[g] = np.broadcast_to(np.where(choice_taken(condlist) == k, d[r], 0), np.shape(g))


@linear(runtime.select_grad)
def select_grad_(r, g, condlist, choicelist):
    d[g] = np.broadcast_to(np.select(condlist, tree_gradient(d[r], choicelist), 0), np.shape(g))


@linear(runtime.choose_grad)
def choose_grad_(r, g, a, choices, mode="raise"):
    d[g] = np.broadcast_to(np.choose(choice_index(a, len(choices), mode), tree_gradient(d[r], choices)), np.shape(g))


# complex values: picking is linear, and scatter puts complex adjoints back as it does real ones
supports_complex(np.compress, method("compress"), np.extract)
non_differentiable(runtime.choice_taken, runtime.choice_index, runtime.compress_index,
                   runtime.extract_index)
