"""A helper of the user's that takes `*args` (a def, a lambda or a nested def), called with a known number of arguments
(refused until 2026-11-27: "it takes *args or **kwargs"): read for each call as if the
arguments were named parameters, with `args` the tuple Python binds; against central finite
differences and HIPS autograd in every mode. What stays refused names the user's line."""
import sys

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode


def concat_and_multiply(weights, *args):
    cat = np.concatenate(args)
    return weights @ cat


def rnn_cell(x):
    W = np.outer(x[:2], x) + 0.5                # 2 x 4
    h = np.tanh(concat_and_multiply(W, x[:2], x[2:] * 2.0))
    g = concat_and_multiply(W[:, :2], h)        # another count: its own derivative
    return np.sum(np.tanh(g) * h)


def total_of(*parts, scale=2.0):
    total = 0.0
    for part in parts:
        total = total + np.sum(part ** 2) * scale
    return total / len(parts)


def keyword_after_the_star(x):
    return total_of(x, np.sin(x)) + total_of(x[1:], scale=0.5) + total_of(x, x, x)


def weighted(w, k=1.0, *rest):
    return w * k + sum(rest)


def with_defaults_before_the_star(x):
    return np.sum(weighted(x, 2.0, x ** 2, np.cos(x)) * weighted(x[::-1]))


def no_arguments_in_the_star(x):
    return np.sum(total_of() if False else concat_and_multiply(x[:2] * x[2:]))


def lambda_with_star_args(x):
    product = lambda *a: a[0] * a[1]  # noqa: E731
    return np.sum(product(x, x + 1.0)) + np.sum(product(np.sin(x), x))


def nested_def_with_star_args(x):
    c = x[0]

    def scaled_sum(*parts):
        total = 0.0
        for part in parts:
            total = total + np.sum(part) * c       # reads the caller's c: an argument too
        return total
    return scaled_sum(x, x ** 2) + scaled_sum(np.tanh(x))


CASES = [rnn_cell, keyword_after_the_star, with_defaults_before_the_star,
         lambda_with_star_args, nested_def_with_star_args]


def with_autograd(transform, fn, x):
    """`transform(fn)(x)` with this module's `np` rebound to autograd's, so that the helpers
    `fn` calls run on autograd's arrays too."""
    module = sys.modules[__name__]
    saved, module.np = module.np, anp
    try:
        return transform(fn)(x)
    finally:
        module.np = saved


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_against_both_oracles(fn):
    x = np.array([0.3, -0.7, 1.1, 0.4])
    check_every_mode(fn, x, autograd_runs=False)     # autograd's below: the helpers too
    np.testing.assert_allclose(ad.grad(fn)(x), with_autograd(autograd.grad, fn, x),
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ad.hessian(fn)(x), with_autograd(autograd.hessian, fn, x),
                               rtol=1e-8, atol=1e-10)


def test_the_helper_gets_the_gradient_of_each_argument():
    rng = np.random.default_rng(3)
    W, x, h = rng.normal(size=(2, 5)), rng.normal(size=3), rng.normal(size=2)

    def loss(W, x, h):
        return np.sum(np.tanh(concat_and_multiply(W, x, h)))
    grads = ad.grad(loss, wrt=(0, 1, 2))(W, x, h)
    for k in range(3):
        assert ad.check_grad(loss, W, x, h, wrt=k) < 1e-7
        np.testing.assert_allclose(grads[k], ad.grad(loss, wrt=k)(W, x, h))


def kwargs_helper(x, **options):
    return x * options["scale"]


def calls_a_kwargs_helper(x):
    return np.sum(kwargs_helper(x, scale=2.0))


def unknown_count(x, parts):
    return np.sum(concat_and_multiply(x, *parts))


def test_a_count_not_known_stays_refused_at_the_call():
    x = np.array([0.3, -0.7])
    with pytest.raises(ad.TransformError) as caught:
        ad.grad(unknown_count)(np.ones((2, 2)), [x, x])
    assert caught.value.filename == __file__ and caught.value.hint


def test_differentiating_a_variadic_function_itself_stays_refused():
    with pytest.raises(ad.TransformError, match="cannot be differentiated directly"):
        ad.grad(total_of)(np.array([0.3, -0.7]))
