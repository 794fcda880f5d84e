"""Tangents of products: dot, outer, einsum, tensordot, inner, kron, vdot (bilinear: one term
per factor), and of np.linalg's inv, det, slogdet, solve and cholesky."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import d, method, tangent
from s2s_ad.runtime import (cholesky_tangent, column_shape, einsum_swap, einsum_tangent,
                            lower_half, lower_oriented)


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


# The tangent of cholesky_grad (forward over reverse: hvp and hessian through cholesky). In the
# lower factor L's orientation, with M = lower_half(L^T g) and F(X) = lower_half(L^-T (X + X^T)
# L^-1) (which is cholesky_grad(g) for X = M):
#   d cholesky_grad = F(lower_half(L^T dg)) + F(lower_half(dL^T g) - K^T M - M K), K = L^-1 dL
@tangent(runtime.cholesky_grad)
def cholesky_grad(r, g, y, upper=False):
    lower = lower_oriented(y, upper)
    grad_lower = lower_oriented(g, upper)
    middle = lower_half(np.matmul(np.swapaxes(lower, -1, -2), grad_lower))
    by_g = lower_half(np.matmul(np.swapaxes(lower, -1, -2), lower_oriented(d[g], upper)))
    turn = np.linalg.solve(lower, lower_oriented(d[y], upper))
    by_y = (lower_half(np.matmul(np.swapaxes(lower_oriented(d[y], upper), -1, -2), grad_lower))
            - np.matmul(np.swapaxes(turn, -1, -2), middle) - np.matmul(middle, turn))
    d[r] = (lower_oriented(lower_half(np.linalg.solve(np.swapaxes(lower, -1, -2), np.swapaxes(
                np.linalg.solve(np.swapaxes(lower, -1, -2), by_g + np.swapaxes(by_g, -1, -2)),
                -1, -2))), upper)
            + lower_oriented(lower_half(np.linalg.solve(np.swapaxes(lower, -1, -2), np.swapaxes(
                np.linalg.solve(np.swapaxes(lower, -1, -2), by_y + np.swapaxes(by_y, -1, -2)),
                -1, -2))), upper))
