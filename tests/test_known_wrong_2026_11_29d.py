"""Wrong answers found 2026-11-29 (fourth session), fixed the same day (the list slice copies
have their own file, tests/test_list_slice_copies.py)."""
import numpy as np
import pytest

import s2s_ad as ad


def weighted(x, s=2.0, *, t=1.0):
    return np.sum(s * t * x ** 2)


@pytest.mark.parametrize("make", [ad.grad, ad.value_and_grad])
def test_defaults_of_the_function_rebound_after_the_transform_are_followed(make, monkeypatch):
    """The transform read the defaults once, when it was made: a call after
    `f.__defaults__ = ...` still got the old ones (value and gradient)."""
    x = np.array([1.0, -2.0])
    df = make(weighted)
    first = df(x)
    monkeypatch.setattr(weighted, "__defaults__", (3.0,))
    monkeypatch.setattr(weighted, "__kwdefaults__", {"t": 0.5})
    again = df(x)
    if make is ad.value_and_grad:
        assert first[0] == pytest.approx(10.0) and again[0] == pytest.approx(7.5)
        first, again = first[1], again[1]
    np.testing.assert_allclose(first, 4.0 * x)
    np.testing.assert_allclose(again, 3.0 * x)
    value, t = ad.jvp(weighted)(x, tangent=np.ones(2))
    assert value == pytest.approx(7.5) and t == pytest.approx(np.sum(3.0 * x))
