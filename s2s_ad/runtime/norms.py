"""Derivatives of np.linalg.norm: its direction for every `ord`, and the second derivatives of
the vector and Frobenius norms, and of the spectral and nuclear ones through the SVD's."""
import numpy as np

from .arrays import shape_of
from .checks import is_complex
from .fourier import conj, conj_sign
from .decompositions import _complex_svd_tangent, svd_tangent
from .reductions import divide_or_zero, unreduce


def _norm_axes(axis, ndim):
    """Axes of `np.linalg.norm`, in the caller's order (for matrix norms: rows, columns)."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int) or np.ndim(axis) == 0:
        return (int(axis) % ndim,)
    return tuple(int(a) % ndim for a in axis)


def _norm_kind(x, ord, axis):
    """'euclid' (2-norm, Frobenius), 'p' (other vector p-norms) or 'flat' (piecewise linear
    norms, whose direction is piecewise constant), or 'spectral' (2, -2, 'nuc' on matrices)."""
    axes = _norm_axes(axis, np.ndim(x))
    vector = len(axes) == 1
    if ord is None or (isinstance(ord, str) and ord == "fro") or (vector and ord == 2):
        return "euclid", axes
    if vector:
        return ("flat" if ord == 0 or np.isinf(ord) else "p"), axes
    if isinstance(ord, str) or abs(ord) == 2:
        return "spectral", axes
    return "flat", axes


def _share(hits, axes):
    """`hits` (booleans) as equal shares of one within each reduced group."""
    return hits / np.sum(hits, axis=axes, keepdims=True)


def norm_grad(g, y, x, ord=None, axis=None, keepdims=False):
    """Adjoint of `y = np.linalg.norm(x, ord, axis, keepdims)` with respect to `x` (the norm
    is real: a complex `g` counts by its real part, README "Complex numbers")."""
    return unreduce(np.real(g) if is_complex(g) else g, x, _norm_axes(axis, np.ndim(x)),
                    keepdims) * norm_direction(x, y, ord, axis, keepdims)


def norm_direction(x, y, ord=None, axis=None, keepdims=False):
    """d np.linalg.norm(x, ord, axis, keepdims) / dx, given the norm's value `y`; for a complex
    `x`, D with d norm = Re(sum(D * dx)) (README "Complex numbers")."""
    kind, axes = _norm_kind(x, ord, axis)
    if is_complex(x) and kind != "spectral":     # the norm of |x|, and d|x| = Re(conj_sign dx)
        magnitude = np.abs(x)
        return norm_direction(magnitude, y, ord, axis, keepdims) * conj_sign(x, magnitude)
    y = unreduce(y, x, axes, keepdims)
    if kind == "euclid":
        return divide_or_zero(x, y)
    magnitude = np.abs(x)
    if kind == "p":
        return np.sign(x) * divide_or_zero(magnitude, y) ** (ord - 1)
    if kind == "spectral":                      # from the SVD of each matrix: conj(u v^H)
        return conj(_spectral(x, y, ord, axes, _spectral_direction))
    if ord == 0:                                # a count of the nonzeros
        return np.zeros_like(x)
    if len(axes) == 1:                          # max or min |x|, shared between ties
        return np.sign(x) * _share(magnitude == y, axes)
    # 1 / inf: the largest column / row sum of |x|; -1 / -inf: the smallest
    rows, columns = axes
    sums = np.sum(magnitude, axis=columns if np.isinf(ord) else rows, keepdims=True)
    best = np.max(sums, axis=axes, keepdims=True) if ord > 0 else \
        np.min(sums, axis=axes, keepdims=True)
    return np.sign(x) * _share(sums == best, axes)


def _spectral(x, y, ord, axes, part, *args):
    """`part(ord, factors of the SVD, *args)` of each matrix of `x` (the `args` moved like `x`),
    in `x`'s layout; 0 where the norm is 0 (the zero matrix: no derivative, as for the other
    norms, not one SVD's pick)."""
    rows, columns = axes
    stack = [np.moveaxis(a, (rows, columns), (-2, -1)) for a in (x, *args)]
    factors = np.linalg.svd(stack[0], full_matrices=False)
    result = part(ord, factors, *stack[1:])
    return np.moveaxis(result, (-2, -1), (rows, columns)) * (y != 0)


def _picked(ord, u, vh):
    """The singular vectors that the norm's direction is made of: all ('nuc'), the first (2) or
    the last (-2)."""
    if isinstance(ord, str):
        return u, vh
    k = slice(None, 1) if ord == 2 else slice(-1, None)
    return u[..., :, k], vh[..., k, :]


def _spectral_direction(ord, factors):
    """u v^T summed over the picked singular vectors."""
    return np.matmul(*_picked(ord, factors[0], factors[2]))


def _spectral_direction_tangent(ord, factors, t):
    """The tangent of `_spectral_direction` along `t`."""
    du, _, dvh = svd_tangent(t, *factors)
    u, vh = _picked(ord, factors[0], factors[2])
    du, dvh = _picked(ord, du, dvh)
    return np.matmul(du, vh) + np.matmul(u, dvh)


def norm_direction_tangent(x, y, dx, dy, ord=None, axis=None, keepdims=False):
    """The tangent of `norm_direction(x, y, ...)` along `dx` and `dy` (the norm's value's)."""
    kind, axes = _norm_kind(x, ord, axis)
    if is_complex(x) and kind != "spectral":
        return _complex_direction_tangent(x, y, dx, dy, ord, axis, keepdims)
    if kind == "spectral":                      # the direction reads x alone, through its SVD
        unreduced = unreduce(y, x, axes, keepdims)
        if is_complex(x) or is_complex(dx):     # conj(u v^H), along the complex SVD's tangent
            return conj(_spectral(x, unreduced, ord, axes, _complex_spectral_tangent, dx))
        return _spectral(x, unreduced, ord, axes, _spectral_direction_tangent, dx)
    return (dx * norm_curvature(x, y, ord, axis, keepdims)
            + unreduce(dy, x, axis, keepdims) * norm_slope(x, y, ord, axis, keepdims))


def _complex_spectral_tangent(ord, factors, t):
    """The tangent of `_spectral_direction` along `t` for complex values."""
    du, _, dvh = _complex_svd_tangent(t, *factors)
    u, vh = _picked(ord, factors[0], factors[2])
    du, dvh = _picked(ord, du, dvh)
    return np.matmul(du, vh) + np.matmul(u, dvh)


def _complex_direction_tangent(x, y, dx, dy, ord, axis, keepdims):
    """The tangent of norm_direction(|x|, y) * conj_sign(x, |x|) (norm_direction of a complex
    `x`, not a spectral norm), with d|x| = Re(conj_sign(x) dx) and
    d conj_sign = (conj(dx) - conj_sign d|x|) / |x|."""
    magnitude = np.abs(x)
    unit = conj_sign(x, magnitude)
    d_magnitude = np.real(unit * dx)
    return (norm_direction_tangent(magnitude, y, d_magnitude, dy, ord, axis, keepdims) * unit
            + norm_direction(magnitude, y, ord, axis, keepdims)
            * divide_or_zero(np.conj(dx) - unit * d_magnitude, magnitude))


def _norm_second(x, y, ord, axis, keepdims):
    if is_complex(x):
        raise NotImplementedError("s2s_ad has no reverse-mode second derivative of "
                                  "np.linalg.norm of complex values (grad of grad): use "
                                  "s2s_ad.hvp or s2s_ad.hessian (forward over reverse)")
    kind, axes = _norm_kind(x, ord, axis)
    if kind == "spectral":
        # forward over reverse goes through norm_direction_tangent; reverse over reverse
        # would need the transpose of the SVD's tangent here
        raise NotImplementedError(f"s2s_ad has no reverse-mode second derivative of "
                                  f"np.linalg.norm with ord={ord!r} (grad of grad): use "
                                  f"s2s_ad.hvp or s2s_ad.hessian (forward over reverse)")
    return kind, unreduce(y, x, axes, keepdims)


def norm_curvature(x, y, ord=None, axis=None, keepdims=False):
    """d norm_direction / dx, elementwise, with the norm's value `y` held fixed."""
    kind, y = _norm_second(x, y, ord, axis, keepdims)
    if kind == "euclid":
        return divide_or_zero(1.0, y) + np.zeros_like(x)
    if kind == "p" and ord != 1:                # for ord=1 the direction sign(x) is flat
        ratio = divide_or_zero(np.abs(x), y)
        return divide_or_zero((ord - 1) * ratio ** (ord - 2), y)
    return np.zeros_like(x)


def norm_slope(x, y, ord=None, axis=None, keepdims=False):
    """d norm_direction / dy, elementwise (y: the norm's value, spread over its group)."""
    kind, y = _norm_second(x, y, ord, axis, keepdims)
    if kind == "euclid":
        return -divide_or_zero(x, y * y)
    if kind == "p" and ord != 1:
        ratio = divide_or_zero(np.abs(x), y)
        return divide_or_zero((1 - ord) * np.sign(x) * ratio ** (ord - 1), y)
    return np.zeros_like(x)


def vector_norm_layout(x, axis=None):
    """How np.linalg.vector_norm(x, axis=axis) reads `x`: as a vector norm along one axis of
    `x` with the reduced axes moved last (`np.moveaxis(x, axes, ends)`, of shape `moved`) and
    made one (shape `grouped`). Returns (axes, ends, moved, grouped, kept), `kept` the shape
    of the result without the reduced axes."""
    shape = tuple(shape_of(x))
    axes = _norm_axes(axis, len(shape))
    ends = tuple(range(len(shape) - len(axes), len(shape)))
    kept = tuple(n for a, n in enumerate(shape) if a not in axes)
    reduced = tuple(shape[a] for a in axes)
    return axes, ends, kept + reduced, kept + (int(np.prod(reduced)),), kept


def cond_ord(p=None):
    """The matrix norm np.linalg.cond(x, p) multiplies by that of the inverse (None: 2)."""
    return 2 if p is None else p
