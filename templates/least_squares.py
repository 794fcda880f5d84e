"""np.linalg.pinv and np.linalg.lstsq, where the rank of the matrix does not change nearby (full
rank: the pseudo-inverse jumps where the rank does). The adjoints are written in NumPy
operations that have rules of their own, so that forward over reverse (hvp, hessian)
differentiates them."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, bilinear, d, supports_complex, tangent
from s2s_ad.runtime import (column_shape, element, hermitian_read, hermitian_read_grad,
                            lstsq_tangent, pinv_tangent, residual_gather, residual_spread)
from s2s_ad.runtime import conj, unbroadcast


# the transpose of runtime.pinv_tangent: with y = pinv(a), L = adjoint(y)^T y y^H and
# R = y^H y adjoint(y)^T, adjoint(a) = -y^T adjoint(y) y^T + conj((1 - a y) L + R (1 - y a))
# (^H: the conjugate transpose; the terms in t^H pair with the conjugate of the adjoint)
@adjoint(np.linalg.pinv)
def pinv(y, a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    """Assumes the rank of `a` is the same nearby (full rank); rcond and rtol do not enter the
    derivative. With hermitian=True only the lower triangle is read, as NumPy reads it (real
    values only)."""
    read = hermitian_read(a, hermitian)
    left = np.matmul(np.swapaxes(d[y], -1, -2), np.matmul(y, np.swapaxes(conj(y), -1, -2)))
    right = np.matmul(np.matmul(np.swapaxes(conj(y), -1, -2), y), np.swapaxes(d[y], -1, -2))
    d[a] = hermitian_read_grad(unbroadcast(conj(left - np.matmul(read, np.matmul(y, left)) + right - np.matmul(np.matmul(right, y), read)) - np.matmul(np.swapaxes(y, -1, -2), np.matmul(d[y], np.swapaxes(y, -1, -2))), a), hermitian)


@tangent(np.linalg.pinv)
def pinv_tangent_(y, a, rcond=None, hermitian=False, *, rtol=np._NoValue):
    """Assumes the rank of `a` is the same nearby (full rank)."""
    d[y] = pinv_tangent(hermitian_read(d[a], hermitian), y, hermitian_read(a, hermitian))


supports_complex(np.linalg.pinv, np.linalg.lstsq)


# lstsq's result is (x, residuals, rank, singular values). With p = pinv(a), r = b - a x and
# b_x = p^T adjoint(x): adjoint(b) = b_x + 2 conj(r) adjoint(residuals) (per column), and
# adjoint(a) = -adjoint(b) x^T + conj(r (conj(p) b_x)^T + p^H x (adjoint(x) - a^T b_x)^T
#              + u diag(adjoint(s)) vh)        (runtime.lstsq_tangent, transposed; ^H: the
# conjugate transpose, whose terms pair with the conjugate of the adjoint)
@adjoint(np.linalg.lstsq)
def lstsq(y, a, b, rcond=None):
    """Assumes `a` has full rank; the derivative flows through the solution, the residuals and
    the singular values."""
    p = np.linalg.pinv(a)
    x = np.reshape(y[0], column_shape(y[0], b))
    gx = np.reshape(element(d[y], 0, y[0]), column_shape(y[0], b))
    r = np.reshape(b, column_shape(b, b)) - np.matmul(a, x)
    bx = np.matmul(np.swapaxes(p, -1, -2), gx)
    gb = bx + 2 * residual_spread(np.real(element(d[y], 1, y[1])), conj(r))
    factors = np.linalg.svd(a, full_matrices=False)
    d[b] = unbroadcast(np.reshape(gb, np.shape(b)), b)
    d[a] = unbroadcast(conj(np.matmul(r, np.swapaxes(np.matmul(conj(p), bx), -1, -2)) + np.matmul(np.matmul(np.swapaxes(conj(p), -1, -2), x), np.swapaxes(gx - np.matmul(np.swapaxes(a, -1, -2), bx), -1, -2)) + np.matmul(factors[0] * np.expand_dims(np.real(element(d[y], 3, y[3])), -2), factors[2])) - np.matmul(gb, np.swapaxes(x, -1, -2)), a)


@tangent(np.linalg.lstsq)
def lstsq_tangent_(y, a, b, rcond=None):
    """Assumes `a` has full rank."""
    d[y] = lstsq_tangent(d[a], d[b], a, b, y)


# lstsq's residuals: the adjoint spread down the residual matrix's columns and its transpose
@bilinear(runtime.residual_spread, complex=True)
def residual_spread_(s, g, r):
    d[g] = residual_gather(d[s], r, g)
    d[r] = residual_spread(g, d[s])


@bilinear(runtime.residual_gather, complex=True)
def residual_gather_(s, h, r, like):
    d[h] = residual_spread(d[s], r)
    d[r] = residual_spread(d[s], h)
