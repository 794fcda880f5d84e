"""One array held under two keys of a list or dict, then updated in place through one of them:
NumPy's update changes the array both entries hold (found 2026-11-28: s2s_ad treated entries
under different keys as never sharing memory, and differentiated `d['a'] += x` as replacing
the entry: value 2.5 and gradient [4, 2] where 3.75 and [5, 4] are right). Refused when it
runs where the entries do share memory; differentiated where they do not."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def dict_slots(x):
    y = x * 2.0
    d = {}
    d['a'] = y
    d['b'] = y
    d['a'] += x
    return np.sum(d['b'] * x)


def list_slots(x):
    y = x * 2.0
    s = [y, y]
    s[0] += x
    return np.sum(s[1] * x)


def list_slot_by_an_expression(x):
    y = x * 2.0
    s = [y, y]
    i = 0
    s[i + 1] += x
    return np.sum(s[0] * x)


def dict_literal_slots(x):
    y = x * 2.0
    d = {'a': y, 'b': y}
    d['a'] *= x
    return np.sum(d['b'] * x)


def dict_slot_by_a_name(x):
    y = x * 2.0
    d = {'a': y, 'b': y}
    k = 'a'
    d[k] *= x
    return np.sum(d['b'] * x)


def a_slot_holding_a_view(x):
    y = x * 2.0
    d = {'a': y, 'b': y[::-1]}
    d['a'] *= x
    return np.sum(d['b'] * x)


def an_entry_taken_out_then_updated(x):
    y = x * 2.0
    d = {'a': y, 'b': y}
    p = d['a']
    p *= 3.0
    return np.sum(d['b'] * x)


def a_list_repeated(x):
    y = x * 2.0
    s = [y] * 2                      # one array, twice (value 2.8 where 4.2 is right)
    s[0] += x
    return np.sum(s[1] * x)


def slots_filled_by_append(x):
    y = x * 2.0
    s = []
    s.append(y)
    s.append(y)
    s[0] += x
    return np.sum(s[1] * x)


def slots_updated_in_a_loop(x):
    y = x * 2.0
    s = [y, y]
    for i in range(2):
        s[i] += x
    return np.sum(s[0] * x)


SHARED = [dict_slots, list_slots, list_slot_by_an_expression, dict_literal_slots,
          dict_slot_by_a_name, a_slot_holding_a_view, an_entry_taken_out_then_updated,
          a_list_repeated, slots_filled_by_append, slots_updated_in_a_loop]


@pytest.mark.parametrize("fn", SHARED)
def test_an_update_seen_through_another_entry_is_refused(fn):
    x = np.array([1.0, 0.5])
    for transform in (lambda: ad.grad(fn)(x), lambda: ad.jvp(fn)(x, tangent=x)):
        with pytest.raises(ad.errors.TransformError) as info:
            transform()
        assert "another entry of" in str(info.value) or "`y` may be" in str(info.value)
        assert info.value.hint.startswith("for a new array, write")


def dict_slots_as_hinted(x):
    y = x * 2.0
    d = {}
    d['a'] = y
    d['b'] = y
    d['a'] = d['a'] + x              # "for a new array, write `d['a'] = d['a'] + ...`"
    return np.sum(d['b'] * x) + np.sum(d['a'] * d['a'])


def separate_arrays_in_slots(x):
    d = {'a': x * 2.0, 'b': x * 3.0}
    d['a'] += x
    s = [x * 2.0, x * 3.0]
    s[0] *= x
    return np.sum(d['b'] * d['a']) + np.sum(s[0] * s[1])


def parameters_updated_in_a_loop(x):
    p = {'w': x * 1.0, 'b': x * 0.5}
    for _ in range(2):
        p['w'] -= 0.1 * p['b']
        p['b'] *= 0.9
    return np.sum(p['w'] * p['b'])


@pytest.mark.parametrize("fn", [dict_slots_as_hinted, separate_arrays_in_slots,
                                parameters_updated_in_a_loop])
def test_updates_of_entries_holding_other_arrays_are_differentiated(fn):
    x = np.array([1.0, 0.5])
    value, gradient = ad.value_and_grad(fn)(x)
    assert value == fn(x)
    assert_close(gradient, numerical_grad(fn, (x,), 0))
    _, derivative = ad.jvp(fn)(x, tangent=np.array([0.0, 1.0]))
    assert_close(derivative, numerical_grad(fn, (x,), 0)[1])
