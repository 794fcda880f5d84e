"""A nested def that calls itself, under second derivatives. Found 2026-11-28: `hvp`,
`hessian` and `jacobian(grad(f))` raised NameError from generated code (`rec` is not
defined): the hoisted function's own name, a cell of the factory it is made in, was not among
the names its derivatives could read."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import numerical_grad
from oracle_checks import check_every_mode


def recursive_nested(x):
    def rec(v, n):
        if n == 0:
            return v
        return rec(np.sin(v) * v, n - 1)
    return np.sum(rec(x, 2))


def recursive_capturing(x):
    scale = np.cos(x)

    def rec(v, n):
        if n == 0:
            return v * scale
        return rec(np.tanh(v), n - 1)
    return np.sum(rec(x * x, 3))


X = np.array([0.3, -0.7, 1.1])


@pytest.mark.parametrize("fn", [recursive_nested, recursive_capturing])
def test_every_mode_against_the_oracles(fn):
    check_every_mode(fn, X)


@pytest.mark.parametrize("fn", [recursive_nested, recursive_capturing])
def test_jacobian_of_grad(fn):
    expected = np.stack([numerical_grad(lambda v: ad.grad(fn)(v)[i], (X,), 0)
                         for i in range(X.size)])
    np.testing.assert_allclose(ad.jacobian(ad.grad(fn))(X), expected, rtol=1e-5, atol=1e-6)
