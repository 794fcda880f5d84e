"""JAX's closure idiom, `ad.grad(inner)(w0)` inside f where the nested `inner` reads f's `x`:
still refused (the derivative would have to carry the derivative through the captured `x` into
f's), at the nested def, with a hint whose rewrite is differentiated through `x` too."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def closure_passed_to_grad(x, w0):
    def inner(w):
        return np.sum(np.tanh(w * x) ** 2)
    g = ad.grad(inner)(w0)
    return np.sum(g * x)


def inner(w, x):
    return np.sum(np.tanh(w * x) ** 2)


def the_suggested_rewrite(x, w0):
    g = ad.grad(inner)(w0, x)
    return np.sum(g * x)


def test_the_closure_is_refused_at_the_nested_def_with_a_hint():
    x, w0 = np.array([0.3, 0.5]), np.array([1.0, 2.0])
    with pytest.raises(ad.TransformError) as caught:
        ad.grad(closure_passed_to_grad)(x, w0)
    assert caught.value.filename == __file__ and "def inner(w):" in str(caught.value)
    assert "`ad.grad(inner)(w0, x)`" in caught.value.hint


@pytest.mark.parametrize("wrt", [0, 1])
def test_the_suggested_rewrite_is_differentiated_through_x(wrt):
    args = [np.array([0.3, 0.5]), np.array([1.0, 2.0])]
    expected = numerical_grad(the_suggested_rewrite, args, wrt)
    assert_close(ad.grad(the_suggested_rewrite, wrt=wrt)(*args), expected)
    direction = np.array([0.7, -0.2])
    assert_close(ad.jvp(the_suggested_rewrite, wrt=wrt)(*args, tangent=direction)[1],
                 np.sum(expected * direction))
