"""np.linalg.eig and np.linalg.eigvals, of real or complex matrices with distinct eigenvalues
(a real matrix with complex eigenvalues is refused when the derivative runs, runtime.eig_factors,
where NumPy returns real arrays for a real spectrum: before NumPy 2.5).
With V the eigenvectors, C = V^-1 dA V and F = inverse_gaps(w): dw = diag(C), and the vectors
move by V (F * C), less the part that keeps each at unit length as NumPy normalizes it
(Re(v^H dv) = 0; the phase of a complex vector, fixed by LAPACK, is not followed, as in JAX and
HIPS autograd: differentiate functions of the vectors that do not depend on it). The values
are holomorphic in A, so each adjoint is the transpose of its tangent (README "Complex
numbers"), written in NumPy operations that have rules of their own (hvp, hessian)."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, linear, supports_complex, tangent
from s2s_ad.runtime import conj, eig_factors, element, inverse_gaps, real_spectrum_checked


# the transpose of the tangent: with adjoint(V)' = adjoint(V) less conj(V) Re(diag(V^T adjoint(V))),
# adjoint(a) = V^-T (diag(adjoint(w)) + F * (V^T adjoint(V)')) V^T
@adjoint(np.linalg.eig)
def eig(y, a):
    """Distinct eigenvalues (complex ones of a real matrix: pass it as complex); the vectors
    normalized to unit length as NumPy returns them, and for complex vectors functions that do
    not depend on their phases."""
    f = eig_factors(y, a)
    gv = element(d[y], 1, f[1])
    turned = inverse_gaps(f[0]) * np.matmul(np.swapaxes(f[1], -1, -2), gv - conj(f[1]) * np.expand_dims(np.real(np.sum(f[1] * gv, axis=-2)), -2))
    d[a] = np.linalg.solve(np.swapaxes(f[1], -1, -2), np.expand_dims(element(d[y], 0, f[0]), -1) * np.swapaxes(f[1], -1, -2) + np.matmul(turned, np.swapaxes(f[1], -1, -2)))


@tangent(np.linalg.eig)
def eig_tangent(y, a):
    """Distinct eigenvalues (complex ones of a real matrix: pass it as complex); the vectors
    normalized to unit length as NumPy returns them, and for complex vectors functions that do
    not depend on their phases."""
    f = eig_factors(y, a)
    turned = np.linalg.solve(f[1], np.matmul(d[a], f[1]))
    moved = np.matmul(f[1], inverse_gaps(f[0]) * turned)
    d[y] = (np.diagonal(turned, 0, -2, -1), moved - f[1] * np.expand_dims(np.real(np.sum(conj(f[1]) * moved, axis=-2)), -2))


@adjoint(np.linalg.eigvals)
def eigvals(y, a):
    """Distinct eigenvalues (complex ones of a real matrix: pass it as complex)."""
    f = eig_factors(np.linalg.eig(a), a)
    d[a] = np.linalg.solve(np.swapaxes(f[1], -1, -2), np.expand_dims(d[y], -1) * np.swapaxes(f[1], -1, -2))


@tangent(np.linalg.eigvals)
def eigvals_tangent(y, a):
    """Distinct eigenvalues (complex ones of a real matrix: pass it as complex)."""
    f = eig_factors(np.linalg.eig(a), a)
    d[y] = np.diagonal(np.linalg.solve(f[1], np.matmul(d[a], f[1])), 0, -2, -1)


@linear(runtime.eig_factors)
def eig_factors_(r, y, a):
    d[y] = d[r]


# np.roots of real coefficients (NumPy 2.5 and later): its eigenvalues made real again
@adjoint(runtime.real_spectrum)
def real_spectrum(r, w):
    d[w] = real_spectrum_checked(d[r], r)


@tangent(runtime.real_spectrum)
def real_spectrum_tangent(r, w):
    d[r] = np.real(real_spectrum_checked(d[w], r))


@linear(runtime.real_spectrum_checked)
def real_spectrum_checked_(r, g, checked):
    d[g] = d[r]


supports_complex(np.linalg.eig, np.linalg.eigvals, runtime.eig_factors, runtime.real_spectrum,
                 runtime.real_spectrum_checked)
