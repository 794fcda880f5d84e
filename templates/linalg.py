"""Products (dot, outer, einsum, tensordot, inner, kron, vdot) and np.linalg's inv, det, slogdet,
solve and cholesky. A product is bilinear: its tangent is one product per factor, derived from
the adjoint (rules.bilinear); the others give both rules, side by side."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, bilinear, d, method, supports_complex, tangent
from s2s_ad.runtime import (cholesky_grad, cholesky_tangent, column_shape, dot_grad_a, dot_grad_b,
                            einsum_grad, einsum_swap, element, inner_subscripts, kron_parts,
                            lower_half, lower_oriented, tensordot_grad_a, tensordot_grad_b,
                            unbroadcast)
from s2s_ad.runtime import conj, einsum_tangent


@bilinear(np.dot, method("dot"), complex=True)
def dot(z, x, y):
    d[x] = dot_grad_a(d[z], x, y)
    d[y] = dot_grad_b(d[z], x, y)


@bilinear(np.outer, complex=True)
def outer(z, x, y):
    d[x] = unbroadcast(np.reshape(d[z] @ np.ravel(y), np.shape(x)), x)
    d[y] = unbroadcast(np.reshape(np.ravel(x) @ d[z], np.shape(y)), y)


@bilinear(np.tensordot, complex=True)
def tensordot(z, a, b, axes=2):
    d[a] = tensordot_grad_a(d[z], a, b, axes)
    d[b] = tensordot_grad_b(d[z], a, b, axes)


@bilinear(np.inner, complex=True)
def inner(z, a, b):
    d[a] = einsum_grad(d[z], inner_subscripts(a, b), 0, a, b)
    d[b] = einsum_grad(d[z], inner_subscripts(a, b), 1, a, b)


@bilinear(np.kron, complex=True)
def kron(z, a, b):
    shape_a, shape_b, subscripts, split = kron_parts(a, b)
    d[a] = np.reshape(einsum_grad(np.reshape(d[z], split), subscripts, 0, np.reshape(a, shape_a), np.reshape(b, shape_b)), np.shape(a))
    d[b] = np.reshape(einsum_grad(np.reshape(d[z], split), subscripts, 1, np.reshape(a, shape_a), np.reshape(b, shape_b)), np.shape(b))


@bilinear(np.vdot, complex=True)
def vdot(z, a, b):
    """np.vdot conjugates `a` first: its adjoint is conjugated."""
    d[a] = unbroadcast(conj(d[z] * np.reshape(b, np.shape(a))), a)
    d[b] = unbroadcast(d[z] * np.reshape(conj(a), np.shape(b)), b)


# einsum takes any number of operands (and, in the sublist form, an array among the subscripts)
@adjoint(np.einsum)
def einsum(y, subscripts, *operands, optimize=False):
    d[operands[k]] = einsum_grad(d[y], subscripts, k, *operands)
    d[subscripts] = einsum_grad(d[y], subscripts, -1, *operands)    # the sublist form's first array


supports_complex(np.einsum)


@tangent(np.einsum)
def einsum_tangent_(y, subscripts, *operands, optimize=False):
    d[y] = einsum_tangent(subscripts, operands, d[operands]) + einsum_swap(subscripts, -1, d[subscripts], *operands)


@adjoint(np.linalg.inv)
def inv(y, a):
    d[a] = -unbroadcast(np.matmul(np.swapaxes(y, -1, -2), np.matmul(d[y], np.swapaxes(y, -1, -2))), a)


@tangent(np.linalg.inv)
def inv_tangent(y, a):
    d[y] = -np.matmul(y, np.matmul(d[a], y))


@adjoint(np.linalg.det)
def det(y, a):
    d[a] = unbroadcast(np.expand_dims(d[y] * y, (-2, -1)) * np.swapaxes(np.linalg.inv(a), -1, -2), a)


@tangent(np.linalg.det)
def det_tangent(y, a):
    d[y] = y * np.sum(np.swapaxes(np.linalg.inv(a), -1, -2) * d[a], axis=(-2, -1))


# inv, det and solve are holomorphic: their adjoints are the transposes, no conjugate
supports_complex(np.linalg.inv, np.linalg.det, np.linalg.solve, np.linalg.slogdet)
# cholesky of a Hermitian matrix (the lower factor; first order: its grad's tangent rule below
# is written for real values)
supports_complex(np.linalg.cholesky)


# slogdet: with t = tr(a^-1 da), d logabsdet = Re(t) and d sign = sign * i Im(t) (zero for a
# real `a`, whose sign is constant); i Im(w) is written (w - conj(w)) / 2, which stays real
# (and zero) for real values
@adjoint(np.linalg.slogdet)
def slogdet(y, a):
    d[a] = unbroadcast(np.expand_dims(np.real(element(d[y], 1, y[1])) + (element(d[y], 0, y[0]) * y[0] - conj(element(d[y], 0, y[0]) * y[0])) / 2, (-2, -1)) * np.swapaxes(np.linalg.inv(a), -1, -2), a)


@tangent(np.linalg.slogdet)
def slogdet_tangent(y, a):
    d[y] = (y[0] * (np.sum(np.swapaxes(np.linalg.inv(a), -1, -2) * d[a], axis=(-2, -1)) - conj(np.sum(np.swapaxes(np.linalg.inv(a), -1, -2) * d[a], axis=(-2, -1)))) / 2, np.real(np.sum(np.swapaxes(np.linalg.inv(a), -1, -2) * d[a], axis=(-2, -1))))


@adjoint(np.linalg.solve)
def solve(x, a, b):
    columns = np.linalg.solve(np.swapaxes(a, -1, -2), np.reshape(d[x], column_shape(x, b)))
    d[a] = -unbroadcast(np.matmul(columns, np.swapaxes(np.reshape(x, column_shape(x, b)), -1, -2)), a)
    d[b] = unbroadcast(np.reshape(columns, np.shape(x)), b)


@tangent(np.linalg.solve)
def solve_tangent(x, a, b):
    d[x] = np.linalg.solve(a, d[b]) - np.reshape(np.linalg.solve(a, np.matmul(d[a], np.reshape(x, column_shape(x, b)))), np.shape(x))


@adjoint(np.linalg.cholesky)
def cholesky(y, a, *, upper=False):
    d[a] = cholesky_grad(d[y], y, upper)


@tangent(np.linalg.cholesky)
def cholesky_tangent_(y, a, *, upper=False):
    d[y] = cholesky_tangent(d[a], y, upper)


# The tangent of cholesky_grad (forward over reverse: hvp and hessian through cholesky). In the
# lower factor L's orientation, with M = lower_half(L^T g) and F(X) = lower_half(L^-T (X + X^T)
# L^-1) (which is cholesky_grad(g) for X = M):
#   d cholesky_grad = F(lower_half(L^T dg)) + F(lower_half(dL^T g) - K^T M - M K), K = L^-1 dL
@tangent(runtime.cholesky_grad)
def cholesky_grad_tangent(r, g, y, upper=False):
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
