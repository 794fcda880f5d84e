"""`xs[k] += v` on a slot of a list or dict: Python adds into the array the slot holds, which
another name may hold too (found wrong on 2026-11-25: it was read as `xs[k] = xs[k] + v`, so
the other name kept its old value). Where the slot's array is another name's, the derivative
refuses at the user's line (SharedUpdate); where it is not, the update runs as written."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.errors import SharedUpdate

X = np.array([0.3, -0.5, 0.8])
TANGENT = np.array([0.2, 1.0, -0.7])


def held_array_updated_through_its_slot(x):
    y = x * 1.0
    xs = [y]
    xs[0] += y               # Python adds into y itself: xs[0] and y are one array
    return np.sum(xs[0] * y)


def held_array_updated_through_its_key(x):
    y = x * 1.0
    d = {"a": y}
    d["a"] += y
    return np.sum(d["a"] * y)


def slot_of_its_own(x):
    y = x * 1.0
    xs = [y * 2.0, y]
    xs[0] += y
    return np.sum(xs[0] * y)


def key_of_its_own(x):
    d = {"a": np.sin(x), "b": x}
    k = "a"
    d[k] *= x
    return np.sum(d["a"] + d["b"])


def numbers_in_slots(x):
    xs = [x[0], x[1]]
    xs[0] += x[2]
    return xs[0] * xs[1]


@pytest.mark.parametrize("f", [held_array_updated_through_its_slot,
                               held_array_updated_through_its_key])
def test_an_update_of_an_array_another_name_holds_is_refused_in_both_modes(f):
    for derivative in (ad.grad(f), lambda x: ad.jvp(f)(x, tangent=TANGENT)):
        with pytest.raises(SharedUpdate, match="updates the array") as caught:
            derivative(X)
        assert "+= y" in caught.value.source_line


@pytest.mark.parametrize("f", [slot_of_its_own, key_of_its_own, numbers_in_slots])
def test_an_update_of_a_slot_no_other_name_holds_runs_as_written(f):
    value, grad = ad.value_and_grad(f)(X)
    assert_close(value, f(X.copy()))
    expected = numerical_grad(f, [X], 0)
    assert_close(grad, expected)
    assert_close(ad.jvp(f)(X, tangent=TANGENT)[1], expected @ TANGENT)
