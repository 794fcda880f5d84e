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


# `W += x` on an argument, where the caller passed that array again as another argument (or
# inside one): in NumPy the other sees the update. s2s_ad rebinds `W` to the sum, which the
# other never saw (value 1.55 and gradient [1, 1] where 2.96 and [3.1, 1.9] are right).
# Refused when it runs, where the two share memory.

def updates_W_reads_V(x, W, V):
    W += x
    return np.sum(V * x)


def updates_a_field_reads_W(x, p, W):
    q = p.a
    q += x
    return np.sum(W * x)


def updates_an_entry_reads_W(x, d, W):
    q = d['a']
    q += x
    return np.sum(W * x)


@pytest.mark.parametrize("fn, holder", [(updates_W_reads_V, lambda y: y),
                                        (updates_a_field_reads_W, lambda y: Record(y, 0)),
                                        (updates_an_entry_reads_W, lambda y: {'a': y})])
def test_an_argument_updated_in_place_that_another_holds_is_refused(fn, holder):
    x = np.array([1.1, 0.45])
    y = np.ones(2)
    with pytest.raises(ad.errors.TransformError) as info:
        ad.grad(fn)(x, holder(y), y)
    assert "may be that same array" in str(info.value)
    # separate arrays: differentiated
    value, gradient = ad.value_and_grad(fn)(x, holder(np.ones(2)), np.ones(2))
    assert value == fn(x, holder(np.ones(2)), np.ones(2))
    assert_close(gradient, numerical_grad(lambda v: fn(v, holder(np.ones(2)), np.ones(2)),
                                          (x,), 0))


def test_an_argument_updated_in_place_beside_a_record_is_differentiated():
    def shifted(x, p):
        x += 1.0
        return np.sum(p.a * x)

    x = np.array([1.1, 0.45])
    p = Record(np.array([2.0, 3.0]), 0)
    assert_close(ad.grad(shifted)(x, p), numerical_grad(lambda v: shifted(v.copy(), p), (x,), 0))
