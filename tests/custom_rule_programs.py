"""Functions that get custom rules in tests/test_custom_rules.py."""
import math

import numpy as np

import s2s_ad as ad

try:                                   # scipy is optional: not among the test extras
    import scipy.special
except ImportError:
    scipy = None


def softplus(x):
    # log(1 + exp(x)) overflows for large x; the registered rule stays finite
    return np.log(1 + np.exp(x))


def uses_softplus(x):
    return np.sum(softplus(x) * 2)


def helper_that_uses_softplus(x):
    return np.sum(np.tanh(softplus(x)))


def calls_helper(x):
    return helper_that_uses_softplus(x * 0.5) + 1.0


def uses_erf(x):
    # math.erf is a C builtin: no Python source, so only a registered rule can differentiate it
    return math.erf(x) * x


def uses_lgamma_without_rule(x):
    return math.lgamma(x) * 2.0


def uses_ndtr(x):
    return np.sum(scipy.special.ndtr(x) * x)


def uses_gammaln_without_rule(x):
    return np.sum(scipy.special.loggamma(x))


def uses_expm1(x):
    return np.sum(np.expm1(x))


def scaled(x, factor=2.0):
    return x * factor


def uses_scaled_with_and_without_the_default(x):
    return np.sum(scaled(x) ** 2) + np.sum(scaled(x, 3.0)) + np.sum(scaled(x, factor=0.5))


def running_blend(a, b):
    return np.cumsum(b + 2.0 * a)


def blends_with_a_constant(a):
    return np.sum(running_blend(a, np.arange(3.0)) ** 2)


def weighted(a, b):
    return a * b


def uses_weighted(x):
    return np.sum(weighted(x, x ** 2))


def uses_weighted_with_a_stopped_weight(x):
    return np.sum(weighted(x, ad.stop_gradient(x ** 2)))
