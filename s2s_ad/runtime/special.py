"""What the rules of SciPy's special functions and distributions call (templates/scipy_*.py):
the weights of a log-sum-exp, and the refusal of a derivative the rules do not give; and the
derivatives of np.sinc, with their limits at 0. Nothing here imports SciPy."""
import numpy as np

from .reductions import divide_or_zero


# below this |x| the closed forms lose digits to cancellation (cos(pi x) - sinc(x) is a
# difference of numbers near 1); their Taylor series are exact to rounding there
_SINC_SERIES_BELOW = 1e-2


def sinc_slope(x):
    """The derivative of np.sinc, (cos(pi x) - sinc(x)) / x; near 0 its Taylor series
    -pi^2 x / 3 + pi^4 x^3 / 30 - pi^6 x^5 / 840 (0 at x = 0)."""
    small = np.abs(x) < _SINC_SERIES_BELOW
    p2 = np.pi ** 2 * x * x
    series = -np.pi ** 2 * x * (1 / 3 - p2 / 30 + p2 * p2 / 840)
    closed = divide_or_zero(np.cos(np.pi * x) - np.sinc(x), np.where(small, 1.0, x))
    return np.where(small, series, closed)


def sinc_curvature(x):
    """The second derivative of np.sinc, -pi^2 sinc(x) - 2 sinc'(x) / x; near 0 its Taylor
    series -pi^2 / 3 + pi^4 x^2 / 10 - pi^6 x^4 / 168."""
    small = np.abs(x) < _SINC_SERIES_BELOW
    p2 = np.pi ** 2 * x * x
    series = -np.pi ** 2 * (1 / 3 - p2 / 10 + p2 * p2 / 168)
    safe = np.where(small, 1.0, x)
    return np.where(small, series, -np.pi ** 2 * np.sinc(x) - 2 * sinc_slope(x) / safe)


def sinc_third(x):
    """The third derivative of np.sinc, (-pi^2 cos(pi x) - 3 sinc''(x)) / x (from
    x sinc(x) = sin(pi x) / pi differentiated three times); near 0 its Taylor series
    pi^4 x / 5 - pi^6 x^3 / 42 + pi^8 x^5 / 1080."""
    small = np.abs(x) < _SINC_SERIES_BELOW
    p2 = np.pi ** 2 * x * x
    series = np.pi ** 4 * x * (1 / 5 - p2 / 42 + p2 * p2 / 1080)
    safe = np.where(small, 1.0, x)
    closed = (-np.pi ** 2 * np.cos(np.pi * x) - 3 * sinc_curvature(x)) / safe
    return np.where(small, series, closed)


def _reduced_axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if np.ndim(axis) == 0 else axis
    return tuple(sorted(int(a) % ndim for a in axes))


def expand_reduced(r, a, b=None, axis=None, keepdims=False):
    """`r`, a reduction over `axis` of the broadcast of `a` and `b` (b may be None), with the
    reduced axes put back at length 1, so that it broadcasts against what was reduced."""
    if keepdims:
        return r
    ndim = max(np.ndim(a), np.ndim(b) if b is not None else 0)
    if ndim == 0:
        return r
    return np.expand_dims(r, _reduced_axes(axis, ndim))      # CuPy and Dask dispatch on r


def exp_shares(a, like, r, axis=None, keepdims=False):
    """`exp(a - r)` in the broadcast shape of `a` and `like` (read for its shape only; None
    reads as a scalar), with `r` = scipy.special.logsumexp(a, axis, b=like, keepdims): the
    derivative of `r` in each weight b."""
    shares = np.exp(a - expand_reduced(r, a, like, axis, keepdims))
    return shares if like is None else shares * np.ones_like(like)


def exp_weights(a, b, r, axis=None, keepdims=False):
    """`b * exp(a - r)` (b None: 1), with `r` = scipy.special.logsumexp(a, axis, b, keepdims):
    each entry's share of the sum, the derivative of `r` in `a`."""
    shares = np.exp(a - expand_reduced(r, a, b, axis, keepdims))
    return shares if b is None else b * shares


def refuse_derivative(value, what):
    """Raised where a derivative reaches an argument that a rule does not differentiate in."""
    raise NotImplementedError(
        f"s2s_ad does not differentiate {what}; wrap it in s2s_ad.stop_gradient(...) if it "
        f"should be a constant")


def gaussian_centered(x, mean, cov):
    """`x` read as scipy.stats.multivariate_normal reads it, one point of the size of `cov`
    (a matrix: see expand_covariance) per row, less `mean` (None: 0). `cov` gives only that
    size."""
    points = np.reshape(x, (-1, np.shape(cov)[-1]))
    return points if mean is None else points - mean


def expand_covariance(cov, ndim, size):
    """The (size, size) covariance matrix scipy.stats.multivariate_normal reads `cov` as: a
    number c is c I, a vector v is diag(v), a matrix itself (`ndim` is cov's). Linear in cov."""
    if ndim == 0:
        return cov * np.eye(size)
    if ndim == 1:
        return np.diag(cov)
    if ndim == 2:
        return cov
    raise NotImplementedError(
        "s2s_ad differentiates scipy.stats.multivariate_normal.logpdf with cov a number, a "
        "vector (the diagonal) or a (d, d) matrix, not a scipy.stats.Covariance object")


def contract_covariance(m, ndim, size):
    """The transpose of expand_covariance: the adjoint `m` of the matrix as the adjoint of
    `cov` (its trace for a number, its diagonal for a vector)."""
    if ndim == 0:
        return np.trace(m)
    if ndim == 1:
        return np.diagonal(m).copy()
    return m


def point_size(x, cov):
    """The size of one point: cov's where it is a vector or a matrix, else x's last axis."""
    return np.shape(cov)[-1] if np.ndim(cov) > 0 else (np.shape(x)[-1] if np.ndim(x) else 1)
