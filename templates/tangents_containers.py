"""Tangents of combining lists and tuples (their literals are handled by s2s_ad.modes.forward)."""
import numpy as np

from s2s_ad.rules import d, tangent
from s2s_ad.runtime import broadcast_like, concatenator_tangent


@tangent(sum)
def sum_(y, xs, start=0):
    d[y] = broadcast_like(sum(d[xs]), y) + broadcast_like(d[start], y)


@tangent(np.stack)
def stack(y, xs, axis=0):
    d[y] = np.stack(d[xs], axis=axis)


@tangent(np.concatenate)
def concatenate(y, xs, axis=0):
    d[y] = np.concatenate(d[xs], axis=axis)


@tangent(np.hstack)
def hstack(y, tup, *, dtype=None, casting="same_kind"):
    d[y] = np.hstack(d[tup])


@tangent(np.vstack)
def vstack(y, tup, *, dtype=None, casting="same_kind"):
    d[y] = np.vstack(d[tup])


@tangent(np.column_stack)
def column_stack(y, tup):
    d[y] = np.column_stack(d[tup])


@tangent(np.dstack)
def dstack(y, tup):
    d[y] = np.dstack(d[tup])


@tangent(np.r_)
def r_(y, *parts):
    d[y] = concatenator_tangent(np.r_, parts, d[parts])


@tangent(np.c_)
def c_(y, *parts):
    d[y] = concatenator_tangent(np.c_, parts, d[parts])
