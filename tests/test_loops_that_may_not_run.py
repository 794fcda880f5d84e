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
