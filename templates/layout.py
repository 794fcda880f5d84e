"""Layout changes that only move entries: np.rot90, np.rollaxis, np.diagflat and the operand of
`ufunc.outer` (passes/lower_ufunc_methods.py). Each is linear,
declared once by the move back (rules.linear: the tangent is the function applied to the
tangent)."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import constant_parameters, d, linear, non_differentiable
from s2s_ad.runtime import rollaxis_order, untranspose


@linear(np.rot90)
def rot90(y, m, k=1, axes=(0, 1)):
    d[m] = np.rot90(d[y], -k, axes)


@linear(np.rollaxis)
def rollaxis(y, a, axis, start=0):
    d[a] = untranspose(d[y], rollaxis_order(a, axis, start))


@linear(np.diagflat)
def diagflat(y, v, k=0):
    d[v] = np.reshape(np.diagonal(d[y], k), np.shape(v))


@linear(runtime.outer_operand)
def outer_operand(y, a, b):
    d[a] = np.reshape(d[y], np.shape(a))


constant_parameters(("b",), runtime.outer_operand)      # read for its number of axes
non_differentiable(runtime.rollaxis_order)
