"""`m.get(key)` and `m.get(key, default)` on dicts: the entry where the dict has the key, the
default where it does not; derivatives reach both, checked against central differences in both
modes (refused until 2026-11-25)."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad

X = np.array([0.4, -1.1, 0.7])


def built_inside(x):
    cache = {}
    cache["h"] = np.tanh(x)
    cache["o"] = cache["h"] * 2
    return np.sum(cache["o"] ** 2) + np.sum(cache.get("h")) + np.sum(cache.get("z", x * 3))


def from_a_parameter(x, p):
    return np.sum(p.get("w") * x) + np.sum(p.get("b", x ** 2)) + np.sum(p.get("w", x) ** 2)


P = {"w": np.array([1.5, -0.5, 2.0])}


@pytest.mark.parametrize("fn, args", [(built_inside, (X,)), (from_a_parameter, (X, P))])
def test_get_against_central_differences(fn, args):
    expected = numerical_grad(fn, args, 0)
    assert_close(ad.grad(fn)(*args), expected)
    _, tangent = ad.jvp(fn)(*args, tangent=np.ones_like(X))
    assert tangent == pytest.approx(np.sum(expected))
    g = ad.grad(fn)
    v = np.cos(np.arange(3.0))
    assert_close(ad.hvp(fn)(*args, vector=v),
                 (g(X + 1e-6 * v, *args[1:]) - g(X - 1e-6 * v, *args[1:])) / 2e-6,
                 rtol=1e-5, atol=1e-6)


def test_the_gradient_of_a_dict_reaches_the_entry_get_read():
    grads = ad.grad(from_a_parameter, wrt=1)(X, P)
    assert_close(grads["w"], X + 2 * P["w"])
    with_b = dict(P, b=np.ones(3))
    grads = ad.grad(from_a_parameter, wrt=1)(X, with_b)
    assert_close(grads["b"], np.ones(3))
    assert_close(ad.grad(from_a_parameter)(X, with_b), P["w"])      # the default is not read
