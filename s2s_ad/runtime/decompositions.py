"""Pieces of the derivatives of np.linalg's decompositions (eigh, svd): the inverse gaps
between eigenvalues, and the symmetric matrix eigh reads from one triangle of its input."""
import numpy as np

from .arrays import _xp, shape_of, zeros_like
from .indexing import element
from .linalg import _swap
from .reductions import divide_or_zero


def inverse_gaps(w):
    """`f[..., i, j] = 1 / (w[j] - w[i])`, 0 on the diagonal. Where two values are equal the
    decomposition has no derivative; 0 there keeps what does not depend on the choice (the
    derivative of the eigenvalues, or of a symmetric function of them) right, as a nan would not."""
    return divide_or_zero(1.0, np.expand_dims(w, -2) - np.expand_dims(w, -1))


def _lower(uplo):
    uplo = uplo.upper()
    if uplo not in ("L", "U"):
        raise ValueError(f"UPLO must be 'L' or 'U', not {uplo!r}")
    return uplo == "L"


def _triangle(a, UPLO, k=0):
    return np.tril(a, -k) if _lower(UPLO) else np.triu(a, k)


def _real_diagonal(a):
    return np.real(a) * _xp(a).eye(np.shape(a)[-1], dtype=bool)


def symmetric_from(a, UPLO="L"):
    """The symmetric matrix np.linalg.eigh(a, UPLO) decomposes: the triangle of `a` it reads,
    mirrored (linear in `a`); for a complex `a`, the Hermitian one (the mirror conjugated, the
    diagonal's imaginary part unread, as LAPACK reads it)."""
    if np.iscomplexobj(a):
        strict = _triangle(a, UPLO, 1)
        return strict + np.conj(_swap(strict)) + _real_diagonal(a)
    return _triangle(a, UPLO) + _swap(_triangle(a, UPLO, 1))


def symmetric_from_grad(g, UPLO="L"):
    """The transpose of `symmetric_from`: an adjoint of the symmetric matrix, given to the one
    triangle of the input that was read (an entry off the diagonal stands for two); in the
    pairing Re(sum(g * t)) for a complex `g` (README "Complex numbers")."""
    if np.iscomplexobj(g):
        return _triangle(g, UPLO, 1) + _triangle(np.conj(_swap(g)), UPLO, 1) + _real_diagonal(g)
    return _triangle(g, UPLO) + _triangle(_swap(g), UPLO, 1)


def _refuse(message, hint):
    from .checks import _refuse_at_user_line
    _refuse_at_user_line(3, message, hint, "UnsupportedSyntax")


def _check_reduced(a, full_matrices):
    """With full_matrices=True a non-square matrix has more singular vectors than singular
    values: the extra ones are any orthonormal completion, with no derivative."""
    rows, columns = shape_of(a)[-2:]
    if full_matrices and rows != columns:
        _refuse(f"cannot differentiate np.linalg.svd with full_matrices=True of a {rows}x{columns} "
                f"matrix: the singular vectors beyond the first {min(rows, columns)} are not "
                f"unique, so they have no derivative",
                "pass full_matrices=False (the vectors of the nonzero singular values)")


def svd_factors(y, a, full_matrices=True, compute_uv=True, hermitian=False):
    """(u, s, vh) of `y = np.linalg.svd(a, full_matrices, compute_uv, hermitian)`: `y` itself,
    or where it holds the singular values only, the reduced SVD of `a` computed again."""
    if not compute_uv:
        return np.linalg.svd(a, full_matrices=False, hermitian=hermitian)
    _check_reduced(a, full_matrices)
    return y


def _cotangents(g, factors, only):
    """The adjoint `g` of a factorization's result as one array per factor: where the result
    is factor `only` alone, zeros for the others."""
    if only is not None:
        return tuple(g if k == only else zeros_like(f) for k, f in enumerate(factors))
    return tuple(element(g, k, f) for k, f in enumerate(factors))


def _cotangents_back(r, factors, only):
    """The transpose of `_cotangents`: per-factor adjoints back as one of the result."""
    if only is not None:
        return element(r, only, factors[only])
    return tuple(element(r, k, f) for k, f in enumerate(factors))


def svd_cotangents(g, factors, compute_uv=True):
    """The adjoint `g` of np.linalg.svd's result as one array per factor (zeros for the vectors
    when only the singular values were computed)."""
    return _cotangents(g, factors, None if compute_uv else 1)


def svd_cotangents_back(r, factors, compute_uv=True):
    """The transpose of `svd_cotangents`: its adjoint back as an adjoint of the SVD's result."""
    return _cotangents_back(r, factors, None if compute_uv else 1)


def hermitian_read(a, hermitian=False):
    """The matrix np.linalg.svd decomposes: with hermitian=True, the lower triangle of `a`
    mirrored (svd then calls eigh); `a` itself otherwise (linear in `a`). A complex `a` with
    hermitian=True is refused (its mirror is the conjugate, which the rules do not follow)."""
    if hermitian and np.iscomplexobj(a):
        raise NotImplementedError("s2s_ad differentiates hermitian=True for real matrices only; "
                                  "pass hermitian=False for a complex one")
    return symmetric_from(a) if hermitian else a


def hermitian_read_grad(g, hermitian=False):
    """The transpose of `hermitian_read`."""
    return symmetric_from_grad(g) if hermitian else g


def svd_tangent(t, u, s, vh):
    """The tangent (du, ds, dvh) of the reduced SVD `u, s, vh` of a matrix along `t` (distinct
    nonzero singular values; a zero one gives 0 where it would divide, as JAX does):
    with P = u^T t v and F = inverse_gaps(s**2),
    ds = diag(P), du = u (F * (P S + S P^T)) + (1 - u u^T) t v / S,
    dv = v (F * (S P + P^T S)) + (1 - v v^T) t^T u / S."""
    v = _swap(vh)
    tv = np.matmul(t, v)
    tu = np.matmul(_swap(t), u)
    p = np.matmul(_swap(u), tv)
    gaps = inverse_gaps(s * s)
    row, column = np.expand_dims(s, -1), np.expand_dims(s, -2)
    du = np.matmul(u, gaps * (p * column + row * _swap(p))) + \
        divide_or_zero(tv - np.matmul(u, np.matmul(_swap(u), tv)), column)
    dv = np.matmul(v, gaps * (row * p + _swap(p) * column)) + \
        divide_or_zero(tu - np.matmul(v, np.matmul(vh, tu)), column)
    return du, np.diagonal(p, 0, -2, -1), _swap(dv)


def _complex_svd_tangent(t, u, s, vh):
    """svd_tangent for complex values, as JAX takes it: with P = u^H t v,
    ds = Re(diag(P)), du = u (F * (P S + S P^H) + i Im(diag(P)) / S) + (1 - u u^H) t v / S,
    dv = v (F * (S P + P^H S)) + (1 - v v^H) t^H u / S (each pair of singular vectors' common
    phase has no derivative: functions of u, vh that depend on it are not differentiated)."""
    v = _swap(np.conj(vh))
    tv = np.matmul(t, v)
    tu = np.matmul(_swap(np.conj(t)), u)
    p = np.matmul(_swap(np.conj(u)), tv)
    ph = _swap(np.conj(p))
    gaps = inverse_gaps(s * s)
    row, column = np.expand_dims(s, -1), np.expand_dims(s, -2)
    phase = 1j * np.imag(np.diagonal(p, 0, -2, -1))
    du = np.matmul(u, gaps * (p * column + row * ph)) + u * divide_or_zero(np.expand_dims(phase, -2), column) + \
        divide_or_zero(tv - np.matmul(u, np.matmul(_swap(np.conj(u)), tv)), column)
    dv = np.matmul(v, gaps * (row * p + ph * column)) + \
        divide_or_zero(tu - np.matmul(v, np.matmul(vh, tu)), column)
    return du, np.real(np.diagonal(p, 0, -2, -1)), _swap(np.conj(dv))


def svd_result_tangent(t, factors, compute_uv=True, hermitian=False):
    """The tangent of np.linalg.svd's result along `t`, from the reduced SVD `factors`."""
    t = hermitian_read(t, hermitian)
    if not compute_uv:                       # the singular values only: Re(diag(u^H t v))
        return np.real(np.sum(np.conj(factors[0]) * np.matmul(t, _swap(np.conj(factors[2]))),
                              axis=-2))
    if np.iscomplexobj(t) or np.iscomplexobj(factors[0]):
        return _complex_svd_tangent(t, *factors)
    return svd_tangent(t, *factors)


def svd_factors_tangent(dy, da, factors, compute_uv=True, hermitian=False):
    """The tangent of `svd_factors`: that of the SVD's result, or where the vectors were
    computed again, the reduced SVD's tangent along `da`."""
    if compute_uv:
        return tuple(dy)
    return svd_result_tangent(da, factors, True, hermitian)
