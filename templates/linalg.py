"""Adjoints of products (dot, outer, einsum, tensordot, inner, kron, vdot) and of np.linalg's
inv, det, slogdet, solve and cholesky."""
import numpy as np

from s2s_ad.rules import adjoint, d, method
from s2s_ad.runtime import (cholesky_grad, column_shape, dot_grad_a, dot_grad_b, einsum_grad,
                            element, inner_subscripts, kron_parts, tensordot_subscripts,
                            unbroadcast)


@adjoint(np.dot, method("dot"))
def dot(z, x, y):
    d[x] = dot_grad_a(d[z], x, y)
    d[y] = dot_grad_b(d[z], x, y)


@adjoint(np.outer)
def outer(z, x, y):
    d[x] = np.reshape(d[z] @ np.ravel(y), np.shape(x))
    d[y] = np.reshape(np.ravel(x) @ d[z], np.shape(y))


@adjoint(np.einsum)
def einsum(y, subscripts, *operands, optimize=False):
    d[operands[k]] = einsum_grad(d[y], subscripts, k, *operands)
    d[subscripts] = einsum_grad(d[y], subscripts, -1, *operands)    # the sublist form's first array


@adjoint(np.tensordot)
def tensordot(z, a, b, axes=2):
    d[a] = einsum_grad(d[z], tensordot_subscripts(a, b, axes), 0, a, b)
    d[b] = einsum_grad(d[z], tensordot_subscripts(a, b, axes), 1, a, b)


@adjoint(np.inner)
def inner(z, a, b):
    d[a] = einsum_grad(d[z], inner_subscripts(a, b), 0, a, b)
    d[b] = einsum_grad(d[z], inner_subscripts(a, b), 1, a, b)


@adjoint(np.kron)
def kron(z, a, b):
    shape_a, shape_b, subscripts, split = kron_parts(a, b)
    d[a] = np.reshape(einsum_grad(np.reshape(d[z], split), subscripts, 0, np.reshape(a, shape_a), np.reshape(b, shape_b)), np.shape(a))
    d[b] = np.reshape(einsum_grad(np.reshape(d[z], split), subscripts, 1, np.reshape(a, shape_a), np.reshape(b, shape_b)), np.shape(b))


@adjoint(np.linalg.inv)
def inv(y, a):
    d[a] = -np.matmul(np.swapaxes(y, -1, -2), np.matmul(d[y], np.swapaxes(y, -1, -2)))


@adjoint(np.linalg.det)
def det(y, a):
    d[a] = np.expand_dims(d[y] * y, (-2, -1)) * np.swapaxes(np.linalg.inv(a), -1, -2)


@adjoint(np.linalg.slogdet)
def slogdet(y, a):
    d[a] = np.expand_dims(element(d[y], 1, y[1]), (-2, -1)) * np.swapaxes(np.linalg.inv(a), -1, -2)


@adjoint(np.linalg.solve)
def solve(x, a, b):
    columns = np.linalg.solve(np.swapaxes(a, -1, -2), np.reshape(d[x], column_shape(x, b)))
    d[a] = -unbroadcast(np.matmul(columns, np.swapaxes(np.reshape(x, column_shape(x, b)), -1, -2)), a)
    d[b] = unbroadcast(np.reshape(columns, np.shape(x)), b)


@adjoint(np.vdot)
def vdot(z, a, b):
    d[a] = d[z] * np.reshape(b, np.shape(a))
    d[b] = d[z] * np.reshape(a, np.shape(b))


@adjoint(np.linalg.cholesky)
def cholesky(y, a, *, upper=False):
    d[a] = cholesky_grad(d[y], y, upper)
