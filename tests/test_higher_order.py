"""Derivatives of derivatives: grad(grad(f)) differentiates the generated code itself."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close


def cubic_sine(x):
    return np.sin(x) * x ** 3


def tanh_poly(x):
    y = np.tanh(x) + 0.5 * x * x
    return y * y


def through_helper(x):
    return tanh_poly(x) + np.exp(-x)


def looped(x):
    for _ in range(3):
        x = np.sin(x)
    return x


def while_looped(x):
    y = x
    while y < 3.0:
        y = y * 1.5 + 0.1 * y * y
    return y * x


def branchy_loop(x):
    s = x
    for i in range(4):
        if s > 1.0:
            s = np.sqrt(s) + x
        else:
            s = s * s + 0.5
    return s


def _fd(f, x, eps=1e-5):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


@pytest.mark.parametrize("f", [cubic_sine, tanh_poly, through_helper])
@pytest.mark.parametrize("x", [-1.3, 0.4, 2.1])
def test_second_derivative_matches_differences_of_the_first(f, x):
    first = ad.grad(f)
    assert_close(ad.grad(first)(x), _fd(first, x), rtol=1e-6)


def test_second_derivative_of_sine_is_minus_sine():
    xs = np.linspace(-3, 3, 7)
    d2 = ad.grad(ad.grad(_sine))
    assert_close([d2(x) for x in xs], -np.sin(xs))


def _sine(x):
    return np.sin(x)


def test_third_derivative():
    x = 0.7
    second = ad.grad(ad.grad(cubic_sine))
    assert_close(ad.grad(second)(x), _fd(second, x), rtol=1e-6)


def test_a_derivative_is_never_confused_with_the_original():
    # grad(grad(f)) must differentiate grad(f), never f again
    x = 0.9
    assert not np.isclose(ad.grad(ad.grad(cubic_sine))(x), ad.grad(cubic_sine)(x))


@pytest.mark.parametrize("f", [looped, while_looped, branchy_loop])
@pytest.mark.parametrize("x", [0.3, 1.1])
def test_second_derivative_through_loops_replays_the_tape(f, x):
    first = ad.grad(f)
    assert "tape" in first.source
    assert_close(ad.grad(first)(x), _fd(first, x), rtol=1e-6)


def array_of_scalars(x):
    return np.sum(np.array([x, x ** 2]) ** 2)


def cast_to_float(x):
    return float(x) * x ** 2


def statistics_of_a_built_array(x):
    a = np.array([x, 2.0 * x, x ** 2])
    return np.prod(a) + np.max(a) + np.mean(a) + np.var(a) + np.linalg.norm(a)


def rows_written_in_a_loop(x):
    y = np.zeros((3, 2))
    for i in range(3):
        y[i] = x * (i + 1.0)
    return np.sum(np.sin(y))


@pytest.mark.parametrize("f", [array_of_scalars, cast_to_float, statistics_of_a_built_array])
def test_second_derivative_through_the_container_and_cast_helpers(f):
    """First derivatives of these call `element`, `through_cast`, `scatter`: the helpers have
    adjoints and tangents of their own, so grad(grad) and hessian both run."""
    x = 0.7
    expected = _fd(ad.grad(f), x)
    assert ad.grad(ad.grad(f))(x) == pytest.approx(expected, rel=1e-6)
    assert ad.hessian(f)(x) == pytest.approx(expected, rel=1e-6)


def test_hessian_through_rows_written_in_a_loop():
    x = np.array([0.3, -0.4])
    first = ad.grad(rows_written_in_a_loop)
    columns = [(first(x + 1e-5 * v) - first(x - 1e-5 * v)) / 2e-5 for v in np.eye(2)]
    assert_close(ad.hessian(rows_written_in_a_loop)(x), np.array(columns), rtol=1e-6, atol=1e-8)


def recursive(x, n):
    if n == 0:
        return x
    return np.sin(recursive(x, n - 1)) * x


@pytest.mark.parametrize("n", [0, 1, 3])
def test_second_derivative_of_a_recursive_function(n):
    """The derivative of vjp_recursive calls itself with another wrt (x and the incoming
    adjoint): that callee must not be confused with the function being generated."""
    first = ad.grad(recursive)
    expected = (first(0.7 + 1e-5, n) - first(0.7 - 1e-5, n)) / 2e-5
    assert ad.grad(first)(0.7, n) == pytest.approx(expected, rel=1e-6)
    assert ad.hessian(recursive)(0.7, n) == pytest.approx(expected, rel=1e-6)


def _sine_energy(x):
    return np.sum(np.sin(x) * x)


_d_sine_energy = ad.grad(_sine_energy)


def calls_grad_inside(x):
    return np.sum(ad.grad(_sine_energy)(x) ** 2)


def calls_a_module_level_derivative(x):
    return np.sum(_d_sine_energy(x) * x)


@pytest.mark.parametrize("f", [calls_grad_inside, calls_a_module_level_derivative])
def test_a_derivative_called_inside_a_differentiated_function(f):
    """`ad.grad(g)(x)` inside f, as in JAX: the derivative is differentiated from its
    generated source, in both modes."""
    x, v = np.array([0.3, -1.2, 0.8]), np.array([1.0, 0.5, -1.0])
    expected = np.array([(f(x + 1e-6 * e) - f(x - 1e-6 * e)) / 2e-6 for e in np.eye(3)])
    assert_close(ad.grad(f)(x), expected, rtol=1e-6, atol=1e-8)
    assert ad.jvp(f)(x, tangent=v)[1] == pytest.approx(expected @ v, rel=1e-6)
