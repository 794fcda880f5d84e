"""Values bound in loops that may run zero times, or whose inner loop stops early, keep
Python's meaning in every derivative: an optimization that moves work out of a loop must not
run it where the loop would not (a second reader's cases against a loop-invariant hoisting,
reverted on 2026-11-29)."""
import numpy as np
import pytest

import s2s_ad as ad


def bound_in_an_earlier_loop(x, n, m):
    total = 0.0
    for j in range(n):
        a = x * j
        total = total + a * a
    for k in range(m):
        total = total + a * x * k
    return total


def bound_in_an_inner_loop_that_stops_running(x):
    total = 0.0
    for k in range(3):
        for j in range(2 - k):
            a = x * k
        total = total + a * x
    return total


def _central(f, x, *rest, eps=1e-6):
    return (f(x + eps, *rest) - f(x - eps, *rest)) / (2 * eps)


@pytest.mark.parametrize("n, m", [(0, 0), (2, 0), (2, 3), (3, 1)])
def test_a_name_bound_in_a_loop_that_may_not_run(n, m):
    x = 1.5
    expected = _central(bound_in_an_earlier_loop, x, n, m)
    assert ad.grad(bound_in_an_earlier_loop)(x, n, m) == pytest.approx(expected, rel=1e-6, abs=1e-8)
    value, tangent = ad.jvp(bound_in_an_earlier_loop)(x, n, m, tangent=1.0)
    assert value == bound_in_an_earlier_loop(x, n, m)
    assert tangent == pytest.approx(expected, rel=1e-6, abs=1e-8)


def test_a_name_bound_in_an_inner_loop_keeps_its_last_value_where_the_loop_stops_running():
    x = 1.7
    expected = _central(bound_in_an_inner_loop_that_stops_running, x)
    value, tangent = ad.jvp(bound_in_an_inner_loop_that_stops_running)(x, tangent=1.0)
    assert value == pytest.approx(bound_in_an_inner_loop_that_stops_running(x))
    assert tangent == pytest.approx(expected, rel=1e-6)
    assert ad.grad(bound_in_an_inner_loop_that_stops_running)(x) == pytest.approx(expected, rel=1e-6)


def sum_of_the_last_step(x, n):
    for _ in range(n):
        y = np.sin(x)
    return np.sum(y)


def scaled_last_step(x, n):
    for _ in range(n):
        y = np.sin(x)
    z = y * 2.0
    return np.sum(z)


@pytest.mark.parametrize("f", [sum_of_the_last_step, scaled_last_step])
def test_an_output_made_from_a_name_a_zero_trip_loop_left_unbound_raises(f):
    """The shape facts know `y` is an array wherever it is bound, so the gradient's seed is
    1.0 and nothing needs the value; but with n = 0 Python raises UnboundLocalError, and so
    must every derivative, not return zeros (found 2026-11-30)."""
    x = np.array([0.1, 0.2, 0.3])
    factor = 2.0 if f is scaled_last_step else 1.0
    np.testing.assert_allclose(ad.grad(f)(x, 2), factor * np.cos(x), rtol=1e-12)
    for derivative in (ad.grad(f), ad.value_and_grad(f)):
        with pytest.raises(UnboundLocalError):
            derivative(x, 0)
    with pytest.raises(UnboundLocalError):
        ad.jvp(f)(x, 0, tangent=np.ones(3))


def inner_loop_may_not_run(x, n):
    s = 0.0
    for k in range(2):
        for _ in range(n - k):
            y = np.sin(x)
        s = s + np.sum(y)
    return s


def test_a_name_an_inner_zero_trip_loop_leaves_unbound_raises_or_keeps_its_last_value():
    """n = 0: the first outer step reads `y` unbound (UnboundLocalError, as Python); n = 1:
    the second step's inner loop runs zero times and `y` keeps the first step's value."""
    x = np.array([0.3, 0.7])
    for derivative in (lambda: ad.grad(inner_loop_may_not_run)(x, 0),
                       lambda: ad.hvp(inner_loop_may_not_run)(x, 0, vector=np.ones(2))):
        with pytest.raises(UnboundLocalError):
            derivative()
    np.testing.assert_allclose(ad.grad(inner_loop_may_not_run)(x, 1), 2 * np.cos(x), rtol=1e-12)
    np.testing.assert_allclose(ad.hvp(inner_loop_may_not_run)(x, 1, vector=np.ones(2)),
                               -2 * np.sin(x), rtol=1e-12)
