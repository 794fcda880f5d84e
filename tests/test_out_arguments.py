"""An out array passed by position (`np.add(a, b, c)`, `np.dot(a, b, c)`, `np.clip(x, lo, hi,
c)`, `x.clip(lo, hi, c)`, `np.add.reduce(x, 0, None, c)`) writes the result into `c` in place,
as `out=c` does (found 2026-11-28: only a ufunc's positional out and the keyword were seen; for
the others the derivative missed the write: np.dot gave [1.25, 0] where [2.25, 1] is right).
Passed by position or by keyword, it is refused where a derivative flows, with a hint that
works (passes/name_out_arguments.py)."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def dot_into(x):
    c = np.zeros(())
    np.dot(x, x, c)
    return c * x[0]


def sum_into(x):
    c = np.zeros(())
    np.sum(x * x, 0, None, c)
    return c * x[0]


def clip_into(x):
    c = np.zeros(2)
    np.clip(x * 3, 0.0, 2.0, c)
    return np.sum(c * x)


def cumsum_into(x):
    c = np.zeros(2)
    np.cumsum(x * x, 0, None, c)
    return np.sum(c * x)


def concatenate_into(x):
    c = np.zeros(4)
    np.concatenate([x, x * x], 0, c)
    return np.sum(c * c)


def take_into(x):
    c = np.zeros(2)
    np.take(x * x, [1, 0], 0, c)
    return np.sum(c * x)


def method_clip_into(x):
    c = np.zeros(2)
    (x * 3).clip(0.0, 2.0, c)
    return np.sum(c * x)


def method_of_a_parameter_into(x):
    c = np.zeros(2)
    x.clip(0.0, 0.7, c)
    return np.sum(c * x)


def method_of_another_name_into(x):
    a = x
    c = np.zeros(2)
    a.clip(0.0, 0.7, c)
    return np.sum(c * x)


def method_sum_into(x):
    c = np.zeros(())
    (x * x).sum(0, None, c)
    return c * x[0]


def reduce_into(x):
    c = np.zeros(())
    np.add.reduce(x * x, 0, None, c)
    return c * x[0]


def add_into(x):
    c = np.zeros(2)
    np.add(x, x * x, c)
    return np.sum(c * x)


def multiply_into_a_tuple(x):
    c = np.zeros(2)
    np.multiply(x, x, out=(c,))
    return np.sum(c * x)


def multiply_into_itself(x):
    y = x * 2.0
    np.multiply(y, y, y)
    return np.sum(y)


def multiply_into_where(x):
    c = np.zeros(2)
    np.multiply(x, 2.0, c, where=x > 0.7)
    return np.sum(c * x)


def modf_into(x):
    c = np.zeros(2)
    d = np.zeros(2)
    np.modf(x * 3.3, c, d)
    return np.sum(c * x)


@pytest.mark.parametrize("fn, hint", [
    (dot_into, "`c = np.dot(x, x)`"),
    (sum_into, "`c = np.sum(x * x, 0, None)`"),
    (clip_into, "`c = np.clip(x * 3, 0.0, 2.0)`"),
    (cumsum_into, "`c = np.cumsum(x * x, 0, None)`"),
    (concatenate_into, "`c = np.concatenate([x, x * x], 0)`"),
    (take_into, "`c = np.take(x * x, [1, 0], 0)`"),
    (method_clip_into, "`c = (x * 3).clip(0.0, 2.0)`"),
    (method_sum_into, "`c = (x * x).sum(0, None)`"),
    (method_of_a_parameter_into, "`c = x.clip(0.0, 0.7)`"),
    (method_of_another_name_into, "`c = a.clip(0.0, 0.7)`"),
    (reduce_into, "`c = np.add.reduce(x * x, 0, None)`"),
    (add_into, "`c = np.add(x, x * x)`"),
    (multiply_into_a_tuple, "`c = np.multiply(x, x)`"),
    (multiply_into_itself, "`y = np.multiply(y, y)`"),
    (modf_into, "`(c, d) = np.modf(x * 3.3)`"),
    (multiply_into_where, "`c = np.where(x > 0.7, np.multiply(x, 2.0), c)`")])
def test_a_write_into_an_out_array_is_refused_with_a_hint(fn, hint):
    x = np.array([1.0, 0.5])
    for transform in (lambda: ad.grad(fn)(x), lambda: ad.jvp(fn)(x, tangent=x)):
        with pytest.raises(ad.errors.TransformError) as info:
            transform()
        assert "writes its result into" in str(info.value)
        assert info.value.hint == f"assign the result instead of passing out=: {hint}"


def as_hinted(x):
    c = np.dot(x, x)
    d = np.clip(x * 3, 0.0, 2.0)
    e = np.take(x * x, [1, 0], 0)
    f = np.add.reduce(x * x, 0, None)
    g = np.zeros(2)
    g = np.where(x > 0.7, np.multiply(x, 2.0), g)
    return c * x[0] + np.sum(d * x) + np.sum(e * x) + f * x[1] + np.sum(g * x)


def constants_into_a_buffer(x):
    k = np.zeros(2)
    np.add(np.ones(2), 2.0, k)          # no derivative flows: it runs as written
    return np.sum(k * x)


@pytest.mark.parametrize("fn", [as_hinted, constants_into_a_buffer])
def test_code_without_a_derivative_through_out_is_differentiated(fn):
    x = np.array([1.0, 0.5])
    value, gradient = ad.value_and_grad(fn)(x)
    assert value == fn(x)
    assert_close(gradient, numerical_grad(fn, (x,), 0))
