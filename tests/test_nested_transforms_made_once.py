"""A derivative made inside a differentiated function at each of its calls (`grad(total)(r,
p(r))` in a Newton step, `jvp(g)` in a loop) is differentiated once: its readable function
(`as_function`) is the same function for the same derivative, so the derivatives of the
function that makes it find it in the cache, instead of transforming it again at every call."""
import numpy as np
import pytest
from scipy.special import gammaln

import s2s_ad as ad
from s2s_ad import cache
from fd import assert_close, numerical_grad

COUNTS = np.array([3.0, 7.0, 1.0, 4.0, 9.0, 2.0])


def log_likelihood(r, p):
    x = COUNTS
    return np.sum(gammaln(r + x) - gammaln(r) - gammaln(x + 1) + x * np.log(p) +
                  r * np.log(1 - p))


def success_rate(r):
    return np.sum(COUNTS) / np.sum(r + COUNTS)


def score(r):
    """d log_likelihood / d r at the best p for r: a grad made at every call."""
    return ad.grad(log_likelihood)(r, success_rate(r))


def score_through_jvp(r):
    _, slope = ad.jvp(log_likelihood, wrt=0)(r, success_rate(r), tangent=1.0)
    return slope


def score_through_hvp(r):
    return ad.hvp(log_likelihood, wrt=0)(r, 0.4, vector=1.0) * r


@pytest.mark.parametrize("f", [score, score_through_jvp, score_through_hvp])
def test_derivatives_of_a_function_making_a_derivative_match_central_differences(f):
    r = 2.5
    assert_close(ad.grad(f)(r), numerical_grad(f, [r], 0), rtol=1e-5)


def test_newtons_second_derivative_matches_central_differences():
    r = 2.5
    assert_close(ad.grad(ad.grad(score))(r), numerical_grad(ad.grad(score), [r], 0), rtol=1e-5)


@pytest.mark.parametrize("f", [score, score_through_jvp, score_through_hvp])
def test_the_derivative_made_inside_is_transformed_once(f):
    ad.grad(f)(2.0)
    ad.grad(ad.grad(f))(2.0)
    size = cache.size()
    for r in (1.5, 2.5, 3.5):
        ad.grad(f)(r)
        ad.grad(ad.grad(f))(r)
    assert cache.size() == size


@pytest.mark.parametrize("make", [lambda f: ad.grad(f), lambda f: ad.value_and_grad(f),
                                  lambda f: ad.vjp(f), lambda f: ad.jvp(f),
                                  lambda f: ad.hvp(f), lambda f: ad.jacobian(f)])
def test_as_function_is_one_function_per_derivative(make):
    assert make(log_likelihood).as_function() is make(log_likelihood).as_function()


def with_default(r, p=0.4):
    return log_likelihood(r, p)


def test_a_rebound_default_gives_another_function():
    first = ad.grad(with_default).as_function()
    saved = with_default.__defaults__
    try:
        with_default.__defaults__ = (0.6,)
        second = ad.grad(with_default).as_function()
        assert second is not first
        assert second.__defaults__ == (0.6,)
        assert_close(ad.grad(lambda r: second(r))(2.0),
                     numerical_grad(lambda r: ad.grad(log_likelihood)(r, 0.6), [2.0], 0),
                     rtol=1e-5)
    finally:
        with_default.__defaults__ = saved
