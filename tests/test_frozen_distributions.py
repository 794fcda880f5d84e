"""SciPy's frozen distributions (`d = stats.norm(mu, s); d.logpdf(x)`) are differentiated as the
distribution's own methods with the arguments `d` was made with
(passes/lower_frozen_distributions.py), in both modes, against central differences and HIPS
autograd's scipy.stats where it has the function."""
import autograd
import autograd.numpy as anp
import autograd.scipy.stats as astats
import numpy as np
import pytest
from scipy import stats

import scipy.stats

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.errors import TransformError


def norm_frozen(x, mu, s):
    d = stats.norm(mu, s)
    return np.sum(d.logpdf(x)) + np.sum(d.cdf(x))


def norm_frozen_by_keywords(x, mu, s):
    return np.sum(scipy.stats.norm(loc=mu, scale=s).logpdf(x))


def t_frozen_then_loc_rebound(x, mu, s):
    d = stats.t(3.0, mu, s)
    mu = mu * 2.0                   # d keeps the mu it was made with
    return np.sum(d.logpdf(x)) * mu


def frozen_in_a_loop(x, mu, s):
    total = 0.0
    for k in range(3):
        d = stats.norm(mu * k, s)
        total = total + np.sum(d.logpdf(x))
    return total


def gamma_frozen(x, mu, s):
    d = stats.gamma(2.0 + mu * mu, scale=s)
    return np.sum(d.logpdf(x))


def mvn_frozen(x, mu, s):
    d = stats.multivariate_normal(mu * np.ones(3), s * np.eye(3))
    return d.logpdf(x)


def norm_frozen_autograd(x, mu, s):
    return anp.sum(astats.norm.logpdf(x, mu, s)) + anp.sum(astats.norm.cdf(x, mu, s))


PROGRAMS = [norm_frozen, norm_frozen_by_keywords, t_frozen_then_loc_rebound, frozen_in_a_loop,
            gamma_frozen, mvn_frozen]


def _args():
    x = np.array([0.7, 1.3, 2.1])
    return x, 0.4, 1.7


@pytest.mark.parametrize("fn", PROGRAMS)
@pytest.mark.parametrize("wrt", [0, 1, 2])
def test_gradient_matches_central_differences(fn, wrt):
    args = _args()
    assert_close(ad.grad(fn, wrt=wrt)(*args), numerical_grad(fn, args, wrt))


@pytest.mark.parametrize("fn", PROGRAMS)
@pytest.mark.parametrize("wrt", [0, 1])
def test_tangent_matches_central_differences(fn, wrt):
    args = _args()
    direction = np.linspace(-1.0, 1.0, 3) if wrt == 0 else 0.8
    _, tangent = ad.jvp(fn, wrt=wrt)(*args, tangent=direction)
    assert_close(tangent, np.sum(numerical_grad(fn, args, wrt) * direction))


def test_hessian_in_the_location_matches_central_differences():
    args = _args()
    hessian = ad.hessian(norm_frozen, wrt=1)(*args)
    slope = lambda mu: ad.grad(norm_frozen, wrt=1)(args[0], mu, args[2])
    assert_close(hessian, (slope(0.4 + 1e-5) - slope(0.4 - 1e-5)) / 2e-5, rtol=1e-5)


@pytest.mark.parametrize("wrt", [0, 1, 2])
def test_agrees_with_autograd(wrt):
    args = _args()
    assert_close(ad.grad(norm_frozen, wrt=wrt)(*args),
                 autograd.grad(norm_frozen_autograd, wrt)(*args), rtol=1e-9)


def kept_and_passed_on(x, mu):
    d = stats.norm(mu, 1.0)
    return np.sum(log_density(d, x))


def log_density(d, x):
    if x is None:           # a branch: a call, not copied in (passes/inline_helpers.py)
        return 0.0
    return d.logpdf(x)


def log_density_copied_in(d, x):
    return d.logpdf(x)


def kept_and_passed_to_a_one_line_helper(x, mu):
    d = stats.norm(mu, 1.0)
    return np.sum(log_density_copied_in(d, x))


def test_a_frozen_distribution_passed_to_a_helper_copied_in_is_differentiated():
    value = lambda mu: kept_and_passed_to_a_one_line_helper(np.ones(3), mu)
    assert_close(ad.grad(kept_and_passed_to_a_one_line_helper, wrt=1)(np.ones(3), 0.3),
                 (value(0.3 + 1e-6) - value(0.3 - 1e-6)) / 2e-6, rtol=1e-6)


def test_a_frozen_distribution_used_otherwise_is_refused_naming_the_method():
    # `d` handed to a helper is left frozen: the helper's `d.logpdf` has no rule, and the
    # refusal says so at the user's line instead of differentiating with mu as a constant
    with pytest.raises(TransformError, match="logpdf"):
        ad.grad(kept_and_passed_on, wrt=1)(np.ones(3), 0.3)


STANDARD = stats.norm(0.5, 2.0)
WIDE = stats.t(4.0, scale=3.0)


def frozen_at_module_level(x, mu, s):
    return np.sum(STANDARD.logpdf(x * s + mu)) + np.sum(WIDE.logpdf(x - mu))


@pytest.mark.parametrize("wrt", [0, 1, 2])
def test_a_distribution_frozen_at_module_level(wrt):
    args = _args()
    assert_close(ad.grad(frozen_at_module_level, wrt=wrt)(*args),
                 numerical_grad(frozen_at_module_level, args, wrt))
    direction = np.linspace(-1.0, 1.0, 3) if wrt == 0 else 0.8
    _, tangent = ad.jvp(frozen_at_module_level, wrt=wrt)(*args, tangent=direction)
    assert_close(tangent, np.sum(numerical_grad(frozen_at_module_level, args, wrt) * direction))


def points_by_keyword(x, mu, s):
    d = stats.norm(mu, s)
    return np.sum(d.logpdf(x=x)) + np.sum(STANDARD.cdf(x=x * s))


@pytest.mark.parametrize("wrt", [0, 1, 2])
def test_points_passed_by_keyword(wrt):
    # was refused: the frozen arguments went first by position, beside x=
    args = _args()
    assert_close(ad.grad(points_by_keyword, wrt=wrt)(*args),
                 numerical_grad(points_by_keyword, args, wrt))
