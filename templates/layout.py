"""Layout changes that only move entries: np.rot90, np.rollaxis and np.diagflat. Each is linear,
declared once by the move back (rules.linear: the tangent is the function applied to the
tangent)."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import d, linear, non_differentiable
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


non_differentiable(runtime.rollaxis_order)
