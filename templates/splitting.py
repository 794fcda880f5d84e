"""Splitting an array into pieces (np.split, np.array_split, np.hsplit, np.vsplit, np.dsplit,
np.unstack). Each is linear, declared once by the move back (rules.linear: the tangent is the
function applied to the tangent): the adjoint joins the pieces' adjoints again, a piece nobody
read (None in the list adjoint) as zeros shaped like that piece."""
import numpy as np

from s2s_ad.rules import d, linear
from s2s_ad.runtime import tree_gradient


@linear(np.split, np.array_split)
def split(y, ary, indices_or_sections, axis=0):
    d[ary] = np.concatenate(tree_gradient(d[y], y), axis=axis)


@linear(np.hsplit)
def hsplit(y, ary, indices_or_sections):
    d[ary] = np.hstack(tree_gradient(d[y], y))


@linear(np.vsplit)
def vsplit(y, ary, indices_or_sections):
    d[ary] = np.vstack(tree_gradient(d[y], y))


@linear(np.dsplit)
def dsplit(y, ary, indices_or_sections):
    d[ary] = np.dstack(tree_gradient(d[y], y))


@linear(np.unstack, keywords=True)
def unstack(y, x, axis=0):
    d[x] = np.stack(tree_gradient(d[y], y), axis=axis)
