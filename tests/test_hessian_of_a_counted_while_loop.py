"""The Hessian of a function with a `while` loop that counts (`while n < 3: ...; n = n + 1`)
never returned (found 2026-11-28): the forward pass over the gradient kept only what the
product reads and dropped `n = n + 1`, which only the loop's own test reads."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def counted(x):
    z = x * 1.0
    n = 0
    while n < 3:
        z = z * 1.5
        n = n + 1
    return np.sum(z * x)


def counted_in_place(x):
    z = x * 1.0
    n = 0
    while n < 3:
        z *= 1.5
        n += 1
    return np.sum(z * x)


@pytest.mark.parametrize("fn", [counted, counted_in_place])
def test_the_hessian_of_a_counted_while_loop(fn):
    x = np.array([1.1, 0.45])
    expected = np.stack([numerical_grad(lambda v: ad.grad(fn)(v)[i], (x,), 0) for i in range(2)])
    assert_close(ad.hessian(fn)(x), expected, rtol=1e-5, atol=1e-6)
    assert_close(ad.hvp(fn)(x, vector=np.array([1.0, 0.0])), expected[:, 0], rtol=1e-5, atol=1e-6)
