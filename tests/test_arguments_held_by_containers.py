"""An argument written in place that another argument holds (found 2026-11-28): `f(x, {'a': y},
y)` or `f(x, Record(y), y)`, then `y[0] = v`: in NumPy the dict's (the record's) array changes
too. s2s_ad writes into a copy of `y`, so the derivative (and the value) missed it: 1.5 and
[1, 1] where 2.5 and [4, 1] are right. Refused when it runs, as for two arguments that are one
array; the hint (pass a copy) works."""
import dataclasses

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


@dataclasses.dataclass
class Record:
    a: object
    b: object


def writes_y_reads_b(x, b, y):
    y[0] = x[0] * 2
    return np.sum(b * x)


def writes_y_reads_entry(x, d, y):
    y[0] = x[0] * 2
    return np.sum(d['a'] * x)


def writes_y_reads_field(x, p, y):
    y[0] = x[0] * 2
    return np.sum(p.a * x)


@pytest.mark.parametrize("fn, holder, message", [
    (writes_y_reads_entry, lambda y: {'a': y}, "`d` and `y` hold the same array"),
    (writes_y_reads_entry, lambda y: {'a': [y[::-1]]}, "`d` and `y` hold the same array"),
    (writes_y_reads_field, lambda y: Record(y, 0), "`p` and `y` hold the same array"),
    (writes_y_reads_b, lambda y: y, "`y` and `b` are the same array")])
def test_an_argument_another_one_holds_written_is_refused(fn, holder, message):
    x = np.array([1.0, 0.5])
    y = np.ones(2)
    for transform in (lambda: ad.grad(fn)(x, holder(y), y),
                      lambda: ad.jvp(fn)(x, holder(y), y, tangent=x)):
        with pytest.raises(ad.errors.TransformError) as info:
            transform()
        assert message in str(info.value)
        assert info.value.hint == "pass a copy (`y.copy()`) as `y`"


@pytest.mark.parametrize("fn, holder", [(writes_y_reads_entry, lambda y: {'a': y}),
                                        (writes_y_reads_field, lambda y: Record(y, 0))])
def test_arguments_passed_as_hinted_are_differentiated(fn, holder):
    x = np.array([1.0, 0.5])
    y = np.ones(2)
    held = holder(y)
    value, gradient = ad.value_and_grad(fn)(x, held, y.copy())
    assert value == fn(x, holder(np.ones(2)), np.ones(2).copy())
    assert_close(gradient, numerical_grad(lambda v: fn(v, held, y.copy()), (x,), 0))


def test_a_function_argument_is_no_holder():
    def writes_y(x, y, reduce=np.sum):
        y[0] = x[0] * 2
        return reduce(y * x)

    x = np.array([1.0, 0.5])
    assert_close(ad.grad(writes_y)(x, np.ones(2)), numerical_grad(writes_y, (x, np.ones(2)), 0))
