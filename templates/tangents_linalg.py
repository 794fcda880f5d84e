"""Tangents of products: dot, outer, einsum, tensordot, inner, kron, vdot (bilinear: one term
per factor), and of np.linalg's inv, det, slogdet, solve and cholesky."""
import numpy as np

from s2s_ad.rules import d, method, tangent
from s2s_ad.runtime import cholesky_tangent, column_shape, einsum_swap
from s2s_ad.runtime_forward import einsum_tangent


@tangent(np.dot, method("dot"))
def dot(z, x, y):
    d[z] = np.dot(d[x], y) + np.dot(x, d[y])


@tangent(np.outer)
def outer(z, x, y):
    d[z] = np.outer(d[x], y) + np.outer(x, d[y])


@tangent(np.einsum)
def einsum(y, subscripts, *operands, optimize=False):
    d[y] = einsum_tangent(subscripts, operands, d[operands]) + einsum_swap(subscripts, -1, d[subscripts], *operands)


@tangent(np.tensordot)
def tensordot(z, a, b, axes=2):
    d[z] = np.tensordot(d[a], b, axes) + np.tensordot(a, d[b], axes)


@tangent(np.inner)
def inner(z, a, b):
    d[z] = np.inner(d[a], b) + np.inner(a, d[b])


@tangent(np.kron)
def kron(z, a, b):
    d[z] = np.kron(d[a], b) + np.kron(a, d[b])


@tangent(np.linalg.inv)
def inv(y, a):
    d[y] = -np.matmul(y, np.matmul(d[a], y))


@tangent(np.linalg.det)
def det(y, a):
    d[y] = y * np.sum(np.swapaxes(np.linalg.inv(a), -1, -2) * d[a], axis=(-2, -1))


@tangent(np.linalg.slogdet)
def slogdet(y, a):
    d[y] = (np.zeros_like(y[0]), np.sum(np.swapaxes(np.linalg.inv(a), -1, -2) * d[a], axis=(-2, -1)))


@tangent(np.linalg.solve)
def solve(x, a, b):
    d[x] = np.linalg.solve(a, d[b]) - np.reshape(np.linalg.solve(a, np.matmul(d[a], np.reshape(x, column_shape(x, b)))), np.shape(x))


@tangent(np.vdot)
def vdot(z, a, b):
    d[z] = np.vdot(d[a], b) + np.vdot(a, d[b])


@tangent(np.linalg.cholesky)
def cholesky(y, a, *, upper=False):
    d[y] = cholesky_tangent(d[a], y, upper)
