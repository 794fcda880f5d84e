"""Functions that get custom rules in tests/test_custom_rules.py."""
import numpy as np
import scipy.special


def softplus(x):
    # log(1 + exp(x)) overflows for large x; the registered rule stays finite
    return np.log(1 + np.exp(x))


def uses_softplus(x):
    return np.sum(softplus(x) * 2)


def helper_that_uses_softplus(x):
    return np.sum(np.tanh(softplus(x)))


def calls_helper(x):
    return helper_that_uses_softplus(x * 0.5) + 1.0


def uses_ndtr(x):
    return np.sum(scipy.special.ndtr(x) * x)


def uses_gammaln_without_rule(x):
    return np.sum(scipy.special.loggamma(x))


def uses_expm1(x):
    return np.sum(np.expm1(x))
