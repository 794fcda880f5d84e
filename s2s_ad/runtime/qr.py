"""Pieces of the derivatives of np.linalg.qr: the factors a rule reads whatever the mode, the
adjoint of the result per factor, and the tangent of the reduced QR."""
import numpy as np

from .arrays import shape_of
from .decompositions import _cotangents, _cotangents_back, _refuse
from .linalg import _swap


def _check_qr(a, mode):
    """The QR s2s_ad differentiates: that of any matrix whose leading square block is
    invertible (full rank); for a tall one the reduced factors only (the extra columns of its
    complete Q are any orthonormal completion, with no derivative). A wide matrix [X | Y] has
    q, u = qr(X) and r = [u | q^T Y]."""
    rows, columns = shape_of(a)[-2:]
    if mode not in ("reduced", "complete", "r"):
        _refuse(f"cannot differentiate np.linalg.qr with mode={mode!r}",
                "use mode='reduced' (the default) or mode='r'")
    if mode == "complete" and rows > columns:
        _refuse(f"cannot differentiate np.linalg.qr with mode='complete' of a {rows}x{columns} "
                f"matrix: the columns of q beyond the first {columns} are not unique, so they "
                f"have no derivative", "use mode='reduced' (the default)")


def qr_factors(y, a, mode="reduced"):
    """(q, r) of `y = np.linalg.qr(a, mode)`: `y` itself, or where it holds R alone (mode='r'),
    the reduced QR of `a` computed again."""
    _check_qr(a, mode)
    if mode == "r":
        return tuple(np.linalg.qr(a))
    return tuple(y)


def qr_cotangents(g, factors, mode="reduced"):
    """The adjoint `g` of np.linalg.qr's result as (adjoint of q, adjoint of r)."""
    return _cotangents(g, factors, 1 if mode == "r" else None)


def qr_cotangents_back(r, factors, mode="reduced"):
    """The transpose of `qr_cotangents`."""
    return _cotangents_back(r, factors, 1 if mode == "r" else None)


def qr_tangent(t, q, r):
    """The tangent (dq, dr) of the QR `q, r` of a matrix along `t`. For the square leading block
    u of r (invertible): with C = q^T t r^-1 and Omega = tril(C, -1) - tril(C, -1)^T (q^T dq,
    antisymmetric), du = (C - Omega) u (upper triangular) and dq = t u^-1 - q (C - Omega). A
    wide matrix's trailing block V = q^T Y of r moves by dV = dq^T q V + q^T dY."""
    size = shape_of(q)[-1]
    u, v, leading, trailing = r[..., :size], r[..., size:], t[..., :size], t[..., size:]
    t_by_u = _swap(np.linalg.solve(_swap(u), _swap(leading)))
    if np.iscomplexobj(q) or np.iscomplexobj(t):
        return _complex_qr_tangent(t_by_u, q, u, v, trailing)
    c = np.matmul(_swap(q), t_by_u)
    kept = np.triu(c) + _swap(np.tril(c, -1))
    dq = t_by_u - np.matmul(q, kept)
    du = np.matmul(kept, u)
    if shape_of(v)[-1] == 0:
        return dq, du
    dv = np.matmul(_swap(dq), np.matmul(q, v)) + np.matmul(_swap(q), trailing)
    return dq, np.concatenate([du, dv], axis=-1)


def _complex_qr_tangent(t_by_u, q, u, v, trailing):
    """qr_tangent for complex values (LAPACK's r has a real diagonal): with C = q^H t u^-1,
    q^H dq is anti-Hermitian and du u^-1 upper triangular with a real diagonal, so
    du u^-1 = triu(C, 1) + tril(C, -1)^H + Re(diag(C)); dV = dq^H q V + q^H dY."""
    qh = _swap(np.conj(q))
    c = np.matmul(qh, t_by_u)
    diagonal = np.real(c) * np.eye(shape_of(c)[-1], dtype=bool)
    kept = np.triu(c, 1) + np.conj(_swap(np.tril(c, -1))) + diagonal
    dq = t_by_u - np.matmul(q, kept)
    du = np.matmul(kept, u)
    if shape_of(v)[-1] == 0:
        return dq, du
    dv = np.matmul(_swap(np.conj(dq)), np.matmul(q, v)) + np.matmul(qh, trailing)
    return dq, np.concatenate([du, dv], axis=-1)


def qr_result_tangent(t, factors, mode="reduced"):
    """The tangent of np.linalg.qr's result along `t`, from the reduced QR `factors`."""
    dq, dr = qr_tangent(t, *factors)
    return dr if mode == "r" else (dq, dr)


def qr_factors_tangent(dy, da, factors, mode="reduced"):
    """The tangent of `qr_factors`: that of the result, or where q was computed again, the
    reduced QR's tangent along `da`."""
    if mode == "r":
        return qr_tangent(da, *factors)
    return tuple(dy)
