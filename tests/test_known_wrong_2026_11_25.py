"""Wrong values found on 2026-11-25 by an independent tester and not fixed yet: each a strict
xfail, so that its fix (or a change in it) shows. See the closing note of that day."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def keys_used_as_numbers(x):
    d = {0: x[0], 1: x[1]}
    s = 0.0
    for k in d:
        s = s + d[k] * k
    return s


@pytest.mark.xfail(strict=True, reason="`for k in d` over a dict: forward mode walks the "
                   "tangent dict's keys beside d's, reverse mode the values (KeyError)")
def test_a_loop_over_a_dicts_keys():
    x = np.array([0.3, -0.5, 0.8])
    expected = numerical_grad(keys_used_as_numbers, [x], 0)
    assert_close(ad.jvp(keys_used_as_numbers)(x, tangent=np.ones(3))[1], np.sum(expected))
    assert_close(ad.grad(keys_used_as_numbers)(x), expected)


def held_array_updated_through_its_slot(x):
    y = x * 1.0
    xs = [y]
    xs[0] += y               # Python adds into y itself: xs[0] and y are one array
    return np.sum(xs[0] * y)


@pytest.mark.xfail(strict=True, reason="`xs[0] += v` on a list slot holding an array is read "
                   "as `xs[0] = xs[0] + v`: the array itself (also named y) changes in Python")
def test_an_update_through_a_list_slot_changes_the_array_it_holds():
    x = np.array([0.3, -0.5, 0.8])
    f = held_array_updated_through_its_slot
    value, grad = ad.value_and_grad(f)(x)
    assert_close(value, f(x.copy()))
    assert_close(grad, numerical_grad(f, [x], 0))
