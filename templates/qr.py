"""np.linalg.qr of square, tall and wide matrices (stacked too) whose leading square block has full rank. The
adjoint is written in NumPy operations that have rules of their own, so that forward over
reverse (hvp, hessian) differentiates it."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, supports_complex, tangent, transposes
from s2s_ad.runtime import conj
from s2s_ad.runtime import (qr_cotangents, qr_cotangents_back, qr_factors, qr_factors_tangent,
                            qr_result_tangent, symmetric_from)


# For complex values (r's diagonal is real) q^T becomes q^H in the tangent, and the adjoint
# below takes conj(q) where the tangent has q^H, and the Hermitian S (runtime.symmetric_from).
# The adjoint of a = q r, from its tangent (runtime.qr_tangent) transposed. With u the square
# leading block of r, M = adjoint(u) u^T - q^T adjoint(q) and S the symmetric matrix of M's upper
# triangle, the leading columns get (adjoint(q) + q S) u^-T. A wide a = [X | Y] has r = [u | V]
# with V = q^T Y: Y gets q adjoint(V), and adjoint(q) gains Y adjoint(V)^T first (for a square
# or tall a, V and Y have no columns, and these terms vanish).
@adjoint(np.linalg.qr)
def qr(y, a, mode="reduced"):
    """Any matrix whose leading square block has full rank (mode 'complete' of a tall matrix
    refused: its extra columns of q have no derivative); the derivative of the factors NumPy
    returns, whatever the signs on r's diagonal."""
    f = qr_factors(y, a, mode)
    g = qr_cotangents(d[y], f, mode)
    k = np.shape(f[0])[-1]
    gq = g[0] + conj(np.matmul(a[..., k:], np.swapaxes(g[1][..., k:], -1, -2)))
    m = np.matmul(g[1][..., :k], np.swapaxes(f[1][..., :k], -1, -2)) - np.matmul(np.swapaxes(f[0], -1, -2), gq)
    d[a] = np.concatenate([np.swapaxes(np.linalg.solve(f[1][..., :k], np.swapaxes(gq + np.matmul(conj(f[0]), symmetric_from(m, "U")), -1, -2)), -1, -2), np.matmul(conj(f[0]), g[1][..., k:])], axis=-1)


@tangent(np.linalg.qr)
def qr_tangent_(y, a, mode="reduced"):
    """Any matrix whose leading square block has full rank (mode 'complete' of a tall matrix
    refused)."""
    d[y] = qr_result_tangent(d[a], qr_factors(y, a, mode), mode)


# the helpers of the adjoint (forward over reverse: hvp and hessian through np.linalg.qr)
@tangent(runtime.qr_factors)
def qr_factors_tangent_(r, y, a, mode="reduced"):
    d[r] = qr_factors_tangent(d[y], d[a], r, mode)


@transposes(runtime.qr_cotangents, runtime.qr_cotangents_back)
def qr_cotangents_(r, g, factors, mode="reduced"):
    d[g] = qr_cotangents_back(d[r], factors, mode)


supports_complex(np.linalg.qr, runtime.qr_factors, runtime.qr_cotangents,
                 runtime.qr_cotangents_back)
