"""A function that sums what a generator function of yours yields, differentiated twice.
Found 2026-11-28: `jacobian(grad(f))` raised TypeError from generated code (`len()` of an
unsized object): the recomputing form of the gradient, which second derivatives read, called
the user's generator and used its items up in `sum` before the backward pass read them."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import numerical_grad
from oracle_checks import check_every_mode


def sines(v):
    for e in v:
        yield np.sin(e) * e


def sums_a_generator(x):
    return sum(sines(x))


def sums_a_nested_generator(x):
    def squares(v):
        for e in v:
            yield e * e * np.cos(e)
    return sum(squares(x))


def walks_a_generator(x):
    total = 0.0
    for item in sines(x * 2.0):
        total = total + item ** 2
    return total


X = np.array([0.3, -0.7, 1.1])


@pytest.mark.parametrize("fn", [sums_a_generator, sums_a_nested_generator, walks_a_generator])
def test_jacobian_of_grad(fn):
    expected = np.stack([numerical_grad(lambda v: ad.grad(fn)(v)[i], (X,), 0)
                         for i in range(X.size)])
    np.testing.assert_allclose(ad.jacobian(ad.grad(fn))(X), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn", [sums_a_generator, sums_a_nested_generator, walks_a_generator])
def test_every_mode_against_the_oracles(fn):
    check_every_mode(fn, X)
