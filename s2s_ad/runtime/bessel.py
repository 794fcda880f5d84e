"""The modified Bessel function of order 1, I1: the derivative of np.i0, which NumPy does not
have (scipy.special.i1 does; SciPy stays optional). Its own derivative, I0(x) - I1(x) / x, is
written with np.i0 and this function (templates/special_elementwise.py), so every order
follows."""
import numpy as np

# below this |x| the power series (no cancellation: every term is positive) is exact to
# rounding within _SERIES_TERMS terms; above it the asymptotic expansion is, within
# _ASYMPTOTIC_TERMS terms (its terms shrink until k ~ 2|x|, far past the last one taken)
_SERIES_BELOW = 30.0
_SERIES_TERMS = 90
_ASYMPTOTIC_TERMS = 30


def i1(x):
    """I1(x) = sum over k of (x/2)^(2k+1) / (k! (k+1)!), elementwise; odd in x, inf where
    np.i0 is inf."""
    x = np.asarray(x, dtype=np.result_type(x, 1.0))
    result = np.zeros_like(x)
    small = np.abs(x) < _SERIES_BELOW
    result[small] = _series(x[small])
    large = np.abs(x[~small])
    with np.errstate(over="ignore"):           # e^x overflows where np.i0 does: inf, as there
        result[~small] = np.sign(x[~small]) * _asymptotic(large)
    return result[()] if result.ndim == 0 else result


def _series(x):
    half_square = (x / 2) ** 2
    term = x / 2
    total = term.copy()
    for k in range(_SERIES_TERMS):
        term = term * half_square / ((k + 1) * (k + 2))
        total = total + term
    return total


def _asymptotic(x):
    """e^x / sqrt(2 pi x) (1 - 3/(8x) - 15/(128x^2) - ...): the k-th term's factor
    (4 - (2k-1)^2) / (8k x) times the one before."""
    term = np.ones_like(x)
    total = term.copy()
    for k in range(1, _ASYMPTOTIC_TERMS + 1):
        term = -term * (4 - (2 * k - 1) ** 2) / (8 * k * x)
        total = total + term
    return np.exp(x) / np.sqrt(2 * np.pi * x) * total
