"""np.linalg's decompositions: eigh and eigvalsh, svd and svdvals. Eigenvalues (singular values)
are assumed distinct: where two are equal the vectors have no derivative (see inverse_gaps).
The adjoints are written in NumPy operations that have rules of their own, so that forward
over reverse (hvp, hessian) differentiates them without a rule per adjoint."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, supports_complex, tangent, transposes
from s2s_ad.runtime import conj
from s2s_ad.runtime import (divide_or_zero, element, hermitian_read, hermitian_read_grad,
                            inverse_gaps, svd_cotangents, svd_cotangents_back, svd_factors,
                            svd_factors_tangent, svd_result_tangent, symmetric_from, symmetric_from_grad)


# eigh reads one triangle of `a`: S = symmetric_from(a). With S = V diag(w) V^T and
# F = inverse_gaps(w): dw = diag(V^T dS V), dV = V (F * (V^T dS V)), and so
# adjoint of S = V (diag(adjoint of w) + F * (V^T adjoint of V)) V^T.
# For a complex (Hermitian) `a`, S = V diag(w) V^H: dw = Re(diag(V^H dS V)) and
# dV = V (F * (V^H dS V)) (the phase of each vector taken as JAX takes it: a function of the
# vectors that depends on their phases has no derivative), and the adjoint of S is
# conj(V) (diag(Re adjoint of w) + F * (V^T adjoint of V)) V^T.
@adjoint(np.linalg.eigh)
def eigh(y, a, UPLO="L"):
    """Distinct eigenvalues. For a complex `a` (Hermitian, read from one triangle), functions
    of the eigenvectors that do not depend on their phases."""
    turned = inverse_gaps(y[0]) * np.matmul(np.swapaxes(y[1], -1, -2), element(d[y], 1, y[1]))
    d[a] = symmetric_from_grad(np.matmul(conj(y[1]) * np.expand_dims(np.real(element(d[y], 0, y[0])), -2) + np.matmul(conj(y[1]), turned), np.swapaxes(y[1], -1, -2)), UPLO)


@tangent(np.linalg.eigh)
def eigh_tangent(y, a, UPLO="L"):
    """Distinct eigenvalues. For a complex `a` (Hermitian, read from one triangle), functions
    of the eigenvectors that do not depend on their phases."""
    turned = np.matmul(np.swapaxes(conj(y[1]), -1, -2), np.matmul(symmetric_from(d[a], UPLO), y[1]))
    d[y] = (np.real(np.diagonal(turned, 0, -2, -1)), np.matmul(y[1], inverse_gaps(y[0]) * turned))


@transposes(runtime.symmetric_from_grad, runtime.symmetric_from, complex=True)
def symmetric_from_grad_(r, g, UPLO="L"):
    d[g] = symmetric_from(d[r], UPLO)


@tangent(runtime.inverse_gaps)
def inverse_gaps_tangent(f, w):
    d[f] = -f * f * (np.expand_dims(d[w], -2) - np.expand_dims(d[w], -1))


@adjoint(runtime.inverse_gaps)
def inverse_gaps_(f, w):
    d[w] = np.sum(d[f] * f * f, axis=-1) - np.sum(d[f] * f * f, axis=-2)


@adjoint(np.linalg.eigvalsh)
def eigvalsh(y, a, UPLO="L"):
    vectors = np.linalg.eigh(a, UPLO)[1]
    d[a] = symmetric_from_grad(np.matmul(conj(vectors) * np.expand_dims(np.real(d[y]), -2), np.swapaxes(vectors, -1, -2)), UPLO)


@tangent(np.linalg.eigvalsh)
def eigvalsh_tangent(y, a, UPLO="L"):
    vectors = np.linalg.eigh(a, UPLO)[1]
    d[y] = np.real(np.sum(conj(vectors) * np.matmul(symmetric_from(d[a], UPLO), vectors), axis=-2))


# The adjoint of the reduced SVD a = U diag(s) Vh (distinct nonzero singular values), with
# F = inverse_gaps(s**2), L = U^T adjoint(U), R = Vh adjoint(Vh)^T:
#   U (F * (L - L^T) S + diag(adjoint(s)) + S F * (R - R^T)) Vh
#   + (1 - U U^T) adjoint(U) S^-1 Vh + U S^-1 adjoint(Vh) (1 - Vh^T Vh)
# (the last two vanish for square matrices; a zero singular value gives 0 there, as in JAX).
# For complex values (runtime.svd_result_tangent's complex form transposed): U^T becomes U^H
# where the tangent has it, L - L^T becomes L - L^H, R becomes conj(R), the outer factors are
# conj(U) and conj(Vh), and diag(adjoint(s)) gains i Im(diag(L)) / S.
@adjoint(np.linalg.svd)
def svd(y, a, full_matrices=True, compute_uv=True, hermitian=False):
    f = svd_factors(y, a, full_matrices, compute_uv, hermitian)
    g = svd_cotangents(d[y], f, compute_uv)
    left = np.matmul(np.swapaxes(f[0], -1, -2), g[0])
    right = np.matmul(f[2], np.swapaxes(g[2], -1, -2))
    gaps = inverse_gaps(f[1] * f[1])
    core = gaps * (left - np.swapaxes(conj(left), -1, -2)) * np.expand_dims(f[1], -2) + np.expand_dims(f[1], -1) * gaps * (conj(right) - np.swapaxes(right, -1, -2))
    beside_u = divide_or_zero(g[0] - np.matmul(conj(f[0]), left), np.expand_dims(f[1], -2))
    beside_v = divide_or_zero(g[2] - np.matmul(np.swapaxes(right, -1, -2), conj(f[2])), np.expand_dims(f[1], -1))
    d[a] = hermitian_read_grad(np.matmul(np.matmul(conj(f[0]), core) + conj(f[0]) * np.expand_dims(np.real(g[1]) + divide_or_zero(np.diagonal(left - conj(left), 0, -2, -1) / 2, f[1]), -2) + beside_u, conj(f[2])) + np.matmul(conj(f[0]), beside_v), hermitian)


@tangent(np.linalg.svd)
def svd_tangent_(y, a, full_matrices=True, compute_uv=True, hermitian=False):
    d[y] = svd_result_tangent(d[a], svd_factors(y, a, full_matrices, compute_uv, hermitian), compute_uv, hermitian)


@adjoint(np.linalg.svdvals)
def svdvals(y, x):
    factors = np.linalg.svd(x, full_matrices=False)
    d[x] = conj(np.matmul(factors[0] * np.expand_dims(np.real(d[y]), -2), factors[2]))


@tangent(np.linalg.svdvals)
def svdvals_tangent(y, x):
    factors = np.linalg.svd(x, full_matrices=False)
    d[y] = np.real(np.sum(conj(factors[0]) * np.matmul(d[x], np.swapaxes(conj(factors[2]), -1, -2)), axis=-2))


# complex values: eigh and eigvalsh of a Hermitian matrix, and the singular values
supports_complex(np.linalg.eigh, np.linalg.eigvalsh, np.linalg.svdvals, runtime.inverse_gaps,
                 np.linalg.svd, runtime.svd_factors, runtime.svd_cotangents,
                 runtime.svd_cotangents_back)


# the helpers of the SVD's rules (forward over reverse: hvp and hessian through np.linalg.svd)
@tangent(runtime.svd_factors)
def svd_factors_tangent_(r, y, a, full_matrices=True, compute_uv=True, hermitian=False):
    d[r] = svd_factors_tangent(d[y], d[a], r, compute_uv, hermitian)


@transposes(runtime.svd_cotangents, runtime.svd_cotangents_back)
def svd_cotangents_(r, g, factors, compute_uv=True):
    d[g] = svd_cotangents_back(d[r], factors, compute_uv)


@transposes(runtime.hermitian_read_grad, runtime.hermitian_read, complex=True)
def hermitian_read_grad_(r, g, hermitian=False):
    d[g] = hermitian_read(d[r], hermitian)
