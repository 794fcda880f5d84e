"""A maximum likelihood fit of a negative binomial distribution to counts by Newton's method.
For a given r the likelihood is largest at p(r) = sum(x) / sum(r + x), so the fit solves the
profile score f(r) = d/dr loglike(r, p(r)) = 0 with scipy.optimize.newton, handing it f's first
and second derivatives as grad(f) and grad(grad(f)). f itself calls grad, so the fit takes the
second and third derivatives of the log likelihood, and every fit builds new closures over its
data (what a user of either tool writes; the gradient functions are not made once and kept).

Modelled on HIPS autograd's examples/negative_binomial_maxlike.py (own code, not copied).
`grad` is imported from s2s_ad; the harness loads the same text for autograd with the module
`s2s_ad` bound to `autograd`, as it binds `numpy` to autograd.numpy. What is timed for this
program is a whole fit (`fit_maxlike` on `fit_args`), not one gradient call; `loss`,
`make_args` and `WRT` give the gradient the other programs give, for the checks."""
import numpy as np
import scipy.optimize
from scipy.special import gammaln

from s2s_ad import grad


def negbin_loglike(r, p, x):
    """log P(x | r, p) for each count in x, with P(x) = C(x + r - 1, x) p^x (1 - p)^r."""
    log_binomial = gammaln(x + r) - gammaln(x + 1) - gammaln(r)
    return log_binomial + x * np.log(p) + r * np.log(1 - p)


def loss(r, p, x):
    """The negative log likelihood of all the counts."""
    return -np.sum(negbin_loglike(r, p, x))


def fit_maxlike(x, r_guess):
    """(r, p) at the maximum of the likelihood of the counts x, Newton's method from r_guess."""
    if not np.var(x) > np.mean(x):
        raise ValueError("the counts are not overdispersed: the likelihood has no maximum")
    loglike = lambda r, p: np.sum(negbin_loglike(r, p, x))    # noqa: E731
    p_best = lambda r: np.sum(x) / np.sum(r + x)                # noqa: E731
    f = lambda r: grad(loglike)(r, p_best(r))                   # noqa: E731
    r = scipy.optimize.newton(f, r_guess, fprime=grad(f), fprime2=grad(grad(f)))
    return r, p_best(r)


def sample_counts(rs, r, p, size):
    """Negative binomial draws, as Poisson draws whose rates are gamma distributed."""
    return rs.poisson(rs.gamma(r, p / (1 - p), size=size))


def fit_args(rs):
    """The arguments of `fit_maxlike`: 1000 counts drawn with r = 5, p = 0.5, and r_guess = 1."""
    return (sample_counts(rs, 5.0, 0.5, 1000), 1.0)


def make_args(rs):
    """The arguments of `loss`: a point (r, p) away from the fit, and the counts of `fit_args`."""
    counts, _ = fit_args(rs)
    return (3.0, 0.4, counts)


# the arguments of `loss` the gradient is taken with respect to
WRT = (0, 1)
