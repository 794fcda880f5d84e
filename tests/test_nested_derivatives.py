"""Derivatives called inside a differentiated function (`jvp(g)(x, tangent=v)`,
`vjp(g)(x, seed=s)`, `value_and_grad(g)(x)`, `grad(g)(x)`) are differentiated from their
generated source, in reverse and forward mode, checked against central differences."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def elementwise(x):
    return np.sin(x) * x


def scalar(x):
    return np.sum(np.sin(x) * x)


def cubed_tanh(x):
    return np.sum(np.tanh(x) ** 3)


def calls_jvp(x):
    y, t = ad.jvp(scalar)(x, tangent=np.ones_like(x))
    return t * y


def calls_jvp_with_a_varied_direction(x):
    _, t = ad.jvp(scalar)(x, tangent=np.cos(x))
    return t


def calls_vjp(x):
    y, cotangent = ad.vjp(elementwise)(x, seed=np.cos(x))
    return np.sum(cotangent * y)


def calls_value_and_grad(x):
    value, gradient = ad.value_and_grad(scalar)(x)
    return value * np.sum(gradient ** 2)


def calls_grad(x):
    return np.sum(ad.grad(cubed_tanh)(x) * x)


NESTED = [calls_jvp, calls_jvp_with_a_varied_direction, calls_vjp, calls_value_and_grad,
          calls_grad]
X = np.array([0.3, -0.5, 0.8])


@pytest.mark.parametrize("f", NESTED)
def test_reverse_mode_through_a_derivative_called_inside(f):
    expected = numerical_grad(f, [X], 0)
    assert_close(ad.grad(f)(X), expected)
    _, cotangent = ad.vjp(f)(X, seed=1.0)
    assert_close(cotangent, expected)


@pytest.mark.parametrize("f", NESTED)
def test_forward_mode_through_a_derivative_called_inside(f):
    direction = np.array([1.0, -2.0, 0.5])
    expected = numerical_grad(f, [X], 0) @ direction
    assert_close(ad.jvp(f)(X, tangent=direction)[1], expected)


def vector_calls_vjp(x):
    _, cotangent = ad.vjp(elementwise)(x, seed=x * x)
    return cotangent * 2.0


def test_vjp_of_a_function_that_calls_vjp():
    # it raised "cannot differentiate <s2s_ad.vjp of g> again", with no location
    seed = np.array([0.5, -1.0, 2.0])
    value, cotangent = ad.vjp(vector_calls_vjp)(X, seed=seed)
    assert_close(value, vector_calls_vjp(X))
    assert_close(cotangent, numerical_grad(lambda x: vector_calls_vjp(x) @ seed, [X], 0))
