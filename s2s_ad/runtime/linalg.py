"""Adjoints of matrix products (`@`, np.dot), of np.linalg.solve's column layout, and of the
Cholesky factorization."""
import numpy as np

from .arrays import _xp, real_like, shape_of, unbroadcast


def _swap(a):
    return np.swapaxes(a, -1, -2)


def _real_matrices(g, a, b):
    """Are `g`, `a` and `b` real 2-D NumPy arrays (the adjoint of `a @ b` is then one
    product, of `a`'s or `b`'s shape already)?"""
    return type(g) is np.ndarray and type(a) is np.ndarray and type(b) is np.ndarray and \
        g.ndim == a.ndim == b.ndim == 2 and g.dtype.kind != "c" and b.dtype.kind != "c" and \
        a.dtype.kind != "c"


def matmul_grad_a(g, a, b):
    """Adjoint of `a @ b` with respect to `a`, for 1-D, 2-D and batched operands."""
    if _real_matrices(g, a, b):
        return g @ b.T                # the common case, first
    if np.ndim(b) == 1:
        if np.ndim(a) == 1:
            return real_like(g * b, a)
        return unbroadcast(np.expand_dims(g, -1) * b, a)
    if np.ndim(a) == 1:
        return unbroadcast(np.matmul(np.expand_dims(g, -2), _swap(b))[..., 0, :], a)
    return unbroadcast(np.matmul(g, _swap(b)), a)


def matmul_grad_b(g, a, b):
    """Adjoint of `a @ b` with respect to `b`, for 1-D, 2-D and batched operands."""
    if _real_matrices(g, a, b):
        return a.T @ g
    if np.ndim(a) == 1:
        if np.ndim(b) == 1:
            return real_like(g * a, b)
        return unbroadcast(np.expand_dims(a, -1) * np.expand_dims(g, -2), b)
    if np.ndim(b) == 1:
        return unbroadcast(np.matmul(_swap(a), np.expand_dims(g, -1))[..., 0], b)
    return unbroadcast(np.matmul(_swap(a), g), b)


def dot_grad_a(g, a, b):
    """Adjoint of `np.dot(a, b)` with respect to `a`, for operands of any dimension.

    `np.dot` contracts the last axis of `a` with the second-to-last of `b` (the only axis of
    a 1-D `b`); its result's axes are `a`'s free axes, then `b`'s.
    """
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * b, a)
    if np.ndim(b) == 1:
        return real_like(np.expand_dims(g, -1) * b, a)
    free_a, nb = np.ndim(a) - 1, np.ndim(b)
    return real_like(np.tensordot(g, b, axes=(list(range(free_a, free_a + nb - 1)),
                                              list(range(nb - 2)) + [nb - 1])), a)


def dot_grad_b(g, a, b):
    """Adjoint of `np.dot(a, b)` with respect to `b`, for operands of any dimension."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * a, b)
    free_a = list(range(np.ndim(a) - 1))
    grad = np.tensordot(a, g, axes=(free_a, free_a))    # the contracted axis comes first
    return real_like(grad if np.ndim(b) == 1 else np.moveaxis(grad, 0, -2), b)


def contracted_axes(a, b, axes):
    """(a's contracted axes, b's), paired in order, as np.tensordot reads `axes`."""
    na, nb = np.ndim(a), np.ndim(b)
    if isinstance(axes, (int, np.integer)):
        return list(range(na - axes, na)), list(range(axes))
    axes_a, axes_b = axes
    axes_a = [axes_a] if isinstance(axes_a, (int, np.integer)) else list(axes_a)
    axes_b = [axes_b] if isinstance(axes_b, (int, np.integer)) else list(axes_b)
    return [i % na for i in axes_a], [j % nb for j in axes_b]


def tensordot_grad_a(g, a, b, axes=2):
    """Adjoint of `np.tensordot(a, b, axes)` with respect to `a`: `g` contracted with `b`
    over b's free axes (one BLAS product, as the product itself), a's axes put back in order."""
    axes_a, axes_b = contracted_axes(a, b, axes)
    free_a = np.ndim(a) - len(axes_a)
    free_b = [j for j in range(np.ndim(b)) if j not in axes_b]
    grad = np.tensordot(g, b, axes=(list(range(free_a, free_a + len(free_b))), free_b))
    # its axes: a's free ones, then those paired with b's contracted ones, in b's order
    order = [i for i in range(np.ndim(a)) if i not in axes_a] + \
        [axes_a[axes_b.index(j)] for j in sorted(axes_b)]
    return real_like(np.transpose(grad, np.argsort(order)) if order != sorted(order) else grad, a)


def tensordot_grad_b(g, a, b, axes=2):
    """Adjoint of `np.tensordot(a, b, axes)` with respect to `b` (as tensordot_grad_a)."""
    axes_a, axes_b = contracted_axes(a, b, axes)
    free_a = [i for i in range(np.ndim(a)) if i not in axes_a]
    grad = np.tensordot(a, g, axes=(free_a, list(range(len(free_a)))))
    # its axes: those paired with a's contracted ones, in a's order, then b's free ones
    order = [axes_b[axes_a.index(i)] for i in sorted(axes_a)] + \
        [j for j in range(np.ndim(b)) if j not in axes_b]
    return real_like(np.transpose(grad, np.argsort(order)) if order != sorted(order) else grad, b)


def column_shape(x, b):
    """The shape of np.linalg.solve's result `x` as a stack of columns (a vector `b` gives
    vectors, which become columns of one)."""
    shape = tuple(shape_of(x))
    return shape + (1,) if np.ndim(b) == 1 else shape


def lower_half(x):
    """The lower triangle of `x` (last two axes) with its diagonal halved: for a symmetric
    `s`, `lower_half(s)` plus its transpose is `s` (linear, and its own transpose)."""
    return np.tril(x) - 0.5 * x * _xp(x).eye(np.shape(x)[-1], dtype=bool)


def _swap_last(x):
    return np.swapaxes(x, -1, -2)


def lower_oriented(x, upper=False):
    """`x` (a Cholesky factor, or an array laid out like one) in the lower factor's orientation:
    transposed when the factor is the upper one (linear, and its own transpose)."""
    return _swap_last(x) if upper else x


def _refuse_complex_upper(y, upper):
    if upper and np.iscomplexobj(y):
        raise NotImplementedError("s2s_ad differentiates np.linalg.cholesky(a, upper=True) for "
                                  "real matrices only; for a complex one, take the conjugate "
                                  "transpose of the lower factor")


def _complex_cholesky_grad(g, lower):
    """cholesky_grad for a complex (Hermitian) matrix, lower factor L: with
    Q = L^-T lower_half(L^T g) conj(L)^-1, the strict lower triangle gets Q + Q^H, the diagonal
    (whose imaginary part NumPy does not read) Re(Q)."""
    step = np.linalg.solve(_swap_last(lower), lower_half(np.matmul(_swap_last(lower), g)))
    full = _swap_last(np.linalg.solve(np.conj(_swap_last(lower)), _swap_last(step)))
    diagonal = np.real(full) * _xp(full).eye(np.shape(full)[-1], dtype=bool)
    return np.tril(full, -1) + np.tril(np.conj(_swap_last(full)), -1) + diagonal


def cholesky_grad(g, y, upper=False):
    """Adjoint of `y = np.linalg.cholesky(a, upper=upper)` with respect to `a`. NumPy reads only
    the lower (upper) triangle of `a`, so only that triangle receives an adjoint."""
    _refuse_complex_upper(y, upper)
    if np.iscomplexobj(y) or np.iscomplexobj(g):
        return _complex_cholesky_grad(g, y)
    lower, g_lower = (_swap_last(y), _swap_last(g)) if upper else (y, g)
    step = np.linalg.solve(_swap_last(lower), lower_half(np.matmul(_swap_last(lower), g_lower)))
    full = _swap_last(np.linalg.solve(_swap_last(lower), _swap_last(step)))
    if upper:
        return np.triu(full) + np.triu(_swap_last(full), 1)
    return np.tril(full) + np.tril(_swap_last(full), -1)


def cholesky_tangent(t, y, upper=False):
    """Tangent of `y = np.linalg.cholesky(a, upper=upper)` along `t` (only the triangle of `t`
    that NumPy reads counts)."""
    _refuse_complex_upper(y, upper)
    if np.iscomplexobj(y):              # A = L L^H: dL = L lower_half(L^-1 dA L^-H)
        strict = np.tril(t, -1)
        t = strict + np.conj(_swap_last(strict)) + np.real(t) * _xp(t).eye(np.shape(t)[-1], dtype=bool)
        inner = np.linalg.solve(y, np.conj(_swap_last(np.linalg.solve(y, np.conj(_swap_last(t))))))
        return np.matmul(y, lower_half(inner))
    t = np.triu(t) + _swap_last(np.triu(t, 1)) if upper else np.tril(t) + _swap_last(np.tril(t, -1))
    lower = _swap_last(y) if upper else y
    inner = np.linalg.solve(lower, _swap_last(np.linalg.solve(lower, _swap_last(t))))
    dl = np.matmul(lower, lower_half(inner))
    return _swap_last(dl) if upper else dl
