"""np.linalg.qr of square and tall matrices (stacked too), whose r is square and invertible. The
adjoint is written in NumPy operations that have rules of their own, so that forward over
reverse (hvp, hessian) differentiates it."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, tangent, transposes
from s2s_ad.runtime import (qr_cotangents, qr_cotangents_back, qr_factors, qr_factors_tangent,
                            qr_result_tangent, symmetric_from)


# The adjoint of a = q r, from its tangent (runtime.qr_tangent) transposed: with
# M = adjoint(r) r^T - q^T adjoint(q) and S the symmetric matrix of M's upper triangle,
# adjoint(a) = (adjoint(q) + q S) r^-T
@adjoint(np.linalg.qr)
def qr(y, a, mode="reduced"):
    """Square and tall matrices (mode 'complete' on square ones only); the derivative of the
    factors NumPy returns, whatever the signs on r's diagonal."""
    f = qr_factors(y, a, mode)
    g = qr_cotangents(d[y], f, mode)
    m = np.matmul(g[1], np.swapaxes(f[1], -1, -2)) - np.matmul(np.swapaxes(f[0], -1, -2), g[0])
    d[a] = np.swapaxes(np.linalg.solve(f[1], np.swapaxes(g[0] + np.matmul(f[0], symmetric_from(m, "U")), -1, -2)), -1, -2)


@tangent(np.linalg.qr)
def qr_tangent_(y, a, mode="reduced"):
    """Square and tall matrices (mode 'complete' on square ones only)."""
    d[y] = qr_result_tangent(d[a], qr_factors(y, a, mode), mode)


# the helpers of the adjoint (forward over reverse: hvp and hessian through np.linalg.qr)
@tangent(runtime.qr_factors)
def qr_factors_tangent_(r, y, a, mode="reduced"):
    d[r] = qr_factors_tangent(d[y], d[a], r, mode)


@transposes(runtime.qr_cotangents, runtime.qr_cotangents_back)
def qr_cotangents_(r, g, factors, mode="reduced"):
    d[g] = qr_cotangents_back(d[r], factors, mode)
