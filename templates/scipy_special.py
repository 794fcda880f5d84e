"""scipy.special: the logistic and error functions, the gamma family, x log y and entropies,
the normal distribution function, and logsumexp / softmax / log_softmax.

Loaded only once scipy.special has been imported (rules.OPTIONAL_PACKAGES): importing s2s_ad
imports no SciPy. Each elementwise function is declared once by its partial derivatives, in
terms of the incoming derivative `g` (rules.elementwise); the derivatives are written with
functions that have rules themselves, so that hvp and hessian work through them."""
import numpy as np
from scipy import special

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, elementwise, linear, non_differentiable, tangent
from s2s_ad.runtime import (divide_or_zero, exp_shares, exp_weights, expand_reduced, refuse_derivative,
                            unbroadcast)


@elementwise(special.expit)
def expit(g, y, x):
    return g * y * (1 - y)


@elementwise(special.logit)
def logit(g, y, x):
    return g / (x * (1 - x))


@elementwise(special.erf, complex=True)
def erf(g, y, x):
    return g * 2 / np.sqrt(np.pi) * np.exp(-x * x)


@elementwise(special.erfc, complex=True)
def erfc(g, y, x):
    return -g * 2 / np.sqrt(np.pi) * np.exp(-x * x)


@elementwise(special.erfinv)
def erfinv(g, y, x):
    return g * np.sqrt(np.pi) / 2 * np.exp(y * y)


@elementwise(special.ndtr)
def ndtr(g, y, x):
    return g * np.exp(-x * x / 2) / np.sqrt(2 * np.pi)


# the normal density over the distribution function, as exp of a difference of logs: finite
# far into the lower tail, where both are below the smallest float
@elementwise(special.log_ndtr)
def log_ndtr(g, y, x):
    return g * np.exp(-x * x / 2 - y) / np.sqrt(2 * np.pi)


@elementwise(special.gammaln)
def gammaln(g, y, x):
    """The derivative of log|Gamma(x)|: digamma(x), for negative non-integer x as well."""
    return g * special.digamma(x)


@elementwise(special.digamma)
def digamma(g, y, x):
    return g * special.polygamma(1, x)


@elementwise(special.polygamma)
def polygamma(g, y, n, x):
    """In x; the order n is an integer: a derivative reaching it is refused."""
    d[n] = refuse_derivative(g, "scipy.special.polygamma(n, x) with respect to its order n")
    d[x] = g * special.polygamma(n + 1, x)


@elementwise(special.betaln)
def betaln(g, y, a, b):
    d[a] = g * (special.digamma(a) - special.digamma(a + b))
    d[b] = g * (special.digamma(b) - special.digamma(a + b))


@elementwise(special.xlogy)
def xlogy(g, z, x, y):
    """In y: x / y, 0 where x = 0 as JAX (also at y = 0, where JAX gives nan: the function is
    0 all along x = 0), and 0 where y = 0 (divide_or_zero's convention)."""
    d[x] = g * np.log(y)
    d[y] = g * divide_or_zero(x, y)


@elementwise(special.xlog1py)
def xlog1py(g, z, x, y):
    """In y: x / (1 + y), 0 where x = 0 as JAX (also at y = -1, where JAX gives nan: the
    function is 0 all along x = 0), and 0 where y = -1 (divide_or_zero's convention)."""
    d[x] = g * np.log1p(y)
    d[y] = g * divide_or_zero(x, 1 + y)


@elementwise(special.entr)
def entr(g, y, x):
    """For x > 0 (-x log x); the slope at 0 is infinite."""
    return -g * (np.log(x) + 1)


@elementwise(special.rel_entr)
def rel_entr(g, z, x, y):
    """For x > 0 and y > 0 (x log(x / y)); in y, 0 where x = 0."""
    d[x] = g * (np.log(x / y) + 1)
    d[y] = -g * divide_or_zero(x, y)


# log(sum(b exp(a))) over axis: each entry's derivative is its share of the sum, b exp(a - r)
# (return_sign is left out of the rule, so return_sign=True is refused where it is written)
@adjoint(special.logsumexp)
def logsumexp(r, a, axis=None, b=None, keepdims=False):
    """b= is differentiated too; return_sign=True is refused."""
    d[a] = unbroadcast(expand_reduced(d[r], a, b, axis, keepdims) * exp_weights(a, b, r, axis, keepdims), a)
    d[b] = unbroadcast(expand_reduced(d[r], a, b, axis, keepdims) * exp_shares(a, b, r, axis, keepdims), b)


@tangent(special.logsumexp)
def logsumexp_tangent(r, a, axis=None, b=None, keepdims=False):
    """b= is differentiated too; return_sign=True is refused."""
    d[r] = np.sum(exp_weights(a, b, r, axis, keepdims) * d[a], axis=axis, keepdims=keepdims) + np.sum(exp_shares(a, b, r, axis, keepdims) * d[b], axis=axis, keepdims=keepdims)


# the Jacobian of softmax, diag(y) - y y^T along axis, is symmetric: one formula for both modes
@adjoint(special.softmax)
def softmax(y, x, axis=None):
    d[x] = y * (d[y] - np.sum(d[y] * y, axis=axis, keepdims=True))


@tangent(special.softmax)
def softmax_tangent(y, x, axis=None):
    d[y] = y * (d[x] - np.sum(d[x] * y, axis=axis, keepdims=True))


@adjoint(special.log_softmax)
def log_softmax(y, x, axis=None):
    d[x] = d[y] - np.exp(y) * np.sum(d[y], axis=axis, keepdims=True)


@tangent(special.log_softmax)
def log_softmax_tangent(y, x, axis=None):
    d[y] = d[x] - np.sum(np.exp(y) * d[x], axis=axis, keepdims=True)


if hasattr(special, "log_expit"):          # SciPy 1.8 and later
    @elementwise(special.log_expit)
    def log_expit(g, y, x):
        return g * special.expit(-x)


# ---------------------------------------------------------------------------------------------
# the helpers the rules above call, with rules of their own (second order)
# ---------------------------------------------------------------------------------------------
@linear(runtime.expand_reduced)
def expand_reduced_(e, r, a, b=None, axis=None, keepdims=False):
    d[r] = np.reshape(d[e], np.shape(r))


# w = b exp(a - R), R = r with its reduced axes put back: linear in b; -w in R
@adjoint(runtime.exp_weights)
def exp_weights_(w, a, b, r, axis=None, keepdims=False):
    d[a] = unbroadcast(d[w] * w, a)
    d[b] = unbroadcast(d[w] * exp_shares(a, b, r, axis, keepdims), b)
    d[r] = -np.sum(d[w] * w, axis=axis, keepdims=keepdims)


@tangent(runtime.exp_weights)
def exp_weights_tangent(w, a, b, r, axis=None, keepdims=False):
    d[w] = w * d[a] - w * expand_reduced(d[r], a, b, axis, keepdims) + d[b] * exp_shares(a, b, r, axis, keepdims)


# s = exp(a - R) stretched to `like`'s shape: `like` gives only a shape, no derivative flows
@adjoint(runtime.exp_shares)
def exp_shares_(s, a, like, r, axis=None, keepdims=False):
    d[a] = unbroadcast(d[s] * s, a)
    d[r] = -np.sum(d[s] * s, axis=axis, keepdims=keepdims)


@tangent(runtime.exp_shares)
def exp_shares_tangent(s, a, like, r, axis=None, keepdims=False):
    d[s] = s * d[a] - s * expand_reduced(d[r], a, like, axis, keepdims)


non_differentiable(runtime.refuse_derivative)
