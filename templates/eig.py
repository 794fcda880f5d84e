"""np.linalg.eig and np.linalg.eigvals of a real matrix with real, distinct eigenvalues (a
complex eigenvalue is refused when the derivative runs). With V the eigenvectors, C = V^-1 dA V
and F = inverse_gaps(w): dw = diag(C), and the vectors move by V (F * C), less the part along
each vector that NumPy's normalization to unit length takes out. The adjoints are written in
NumPy operations that have rules of their own (forward over reverse: hvp, hessian)."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, linear, tangent
from s2s_ad.runtime import element, inverse_gaps, real_eig


# the transpose of the tangent: with adjoint(V)' = adjoint(V) less V diag(V^T adjoint(V)),
# adjoint(a) = V^-T (diag(adjoint(w)) + F * (V^T adjoint(V)')) V^T
@adjoint(np.linalg.eig)
def eig(y, a):
    """Real, distinct eigenvalues; the vectors normalized to unit length as NumPy returns them
    (whatever their signs)."""
    f = real_eig(y)
    gv = element(d[y], 1, f[1])
    turned = inverse_gaps(f[0]) * np.matmul(np.swapaxes(f[1], -1, -2), gv - f[1] * np.expand_dims(np.sum(f[1] * gv, axis=-2), -2))
    d[a] = np.linalg.solve(np.swapaxes(f[1], -1, -2), np.expand_dims(element(d[y], 0, f[0]), -1) * np.swapaxes(f[1], -1, -2) + np.matmul(turned, np.swapaxes(f[1], -1, -2)))


@tangent(np.linalg.eig)
def eig_tangent(y, a):
    """Real, distinct eigenvalues."""
    f = real_eig(y)
    turned = np.linalg.solve(f[1], np.matmul(d[a], f[1]))
    moved = np.matmul(f[1], inverse_gaps(f[0]) * turned)
    d[y] = (np.diagonal(turned, 0, -2, -1), moved - f[1] * np.expand_dims(np.sum(f[1] * moved, axis=-2), -2))


@adjoint(np.linalg.eigvals)
def eigvals(y, a):
    """Real, distinct eigenvalues."""
    f = real_eig(np.linalg.eig(a))
    d[a] = np.linalg.solve(np.swapaxes(f[1], -1, -2), np.expand_dims(d[y], -1) * np.swapaxes(f[1], -1, -2))


@tangent(np.linalg.eigvals)
def eigvals_tangent(y, a):
    """Real, distinct eigenvalues."""
    f = real_eig(np.linalg.eig(a))
    d[y] = np.diagonal(np.linalg.solve(f[1], np.matmul(d[a], f[1])), 0, -2, -1)


@linear(runtime.real_eig)
def real_eig_(r, y):
    d[y] = d[r]
