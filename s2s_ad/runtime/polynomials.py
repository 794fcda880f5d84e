"""Derivatives of np.polyval(p, x) = p[0] x^(N-1) + ... + p[N-1]: in x, the derivative
polynomial's value; in p, the sums of the incoming adjoint times each power of x."""
import numpy as np

from .arrays import _xp, shape_of


def _coefficient_array(p):
    """The coefficients (np.polyval takes a list too) as an array."""
    return np.asarray(p) if isinstance(p, (list, tuple)) else p


def _coefficients(p):
    if len(shape_of(p)) != 1:
        raise NotImplementedError("s2s_ad differentiates np.polyval only with a 1-D array of "
                                  "coefficients p (not a 2-D array or an np.poly1d)")
    return shape_of(p)[0]


def _descending_exponents(p, count):
    """N-1, ..., 1 (count of them, N = len(p)) as an array of p's module, in p's dtype."""
    n = _coefficients(p)
    return _xp(p).arange(n - 1, n - 1 - count, -1, dtype=np.result_type(p, 1.0))


def poly_derivative(p):
    """The coefficients of the derivative polynomial (np.polyder(p), one fewer; [] for a
    constant, which np.polyval reads as 0)."""
    p = _coefficient_array(p)
    n = _coefficients(p)
    return p[:n - 1] * _descending_exponents(p, n - 1)


def unpoly_derivative(g):
    """The transpose of poly_derivative: `g` (N - 1 entries) back to N coefficients."""
    n = shape_of(g)[0] + 1
    return np.pad(g * _xp(g).arange(n - 1, 0, -1, dtype=np.result_type(g, 1.0)), (0, 1))


def polyval_grad_p(g, p, x):
    """d<g, np.polyval(p, x)>/dp: entry i is sum(g * x^(N-1-i)) (Horner's scheme, transposed)."""
    n = _coefficients(p)
    weighted = g * np.ones_like(x)          # g over the result's shape, once
    sums = []
    for _ in range(n):
        sums.append(np.sum(weighted))
        weighted = weighted * x
    return np.stack(sums[::-1]) if sums else np.zeros_like(_coefficient_array(p), dtype=float)



def stripped_coefficients(p, first, stop):
    """`p[first:stop]`: the coefficients np.roots keeps, its leading and trailing zeros
    stripped (its rules refuse a derivative through them: refuse_stripped_roots)."""
    return p[first:stop]


def refuse_stripped_roots(t):
    """np.roots has no derivative here with respect to coefficients it strips: a leading zero
    moved brings a root in from infinity (the number of roots changes), a trailing one moves a
    root at 0 that NumPy appends without computing it."""
    raise NotImplementedError(
        "s2s_ad differentiates np.roots where its first and last coefficients are not 0: "
        "NumPy strips zero ones, and the roots have no derivative here with respect to them; "
        "pass the coefficients without them (`p[1:]`, `p[:-1]`, and add the root at 0 "
        "yourself), or wrap p in s2s_ad.stop_gradient(...) if it is a constant")
