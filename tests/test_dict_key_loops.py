"""`for k in d:` walks a dict's keys, which carry no derivative (found wrong on 2026-11-25:
forward mode read the tangent dict's keys as tangents, reverse mode read entries as keys)."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.errors import UnsupportedSyntax

X = np.array([0.3, -0.5, 0.8])


def keys_used_as_numbers(x):
    d = {0: x[0], 1: x[1], 2: x[2] ** 2}
    s = 0.0
    for k in d:
        s = s + d[k] * k
    return s


def keys_of_a_comprehension(x):
    d = {k: x[k] * x[0] for k in range(3)}
    s = 0.0
    for k in d:
        s = s + np.sin(d[k]) * (k + 1.0)
    return s


def weighted_by_key(d):
    s = 0.0
    for k in d:
        s = s + d[k] * k
    return s


def through_a_helper(x):
    return weighted_by_key({0: x[0], 1: x[1], 2: x[2]})


def weighted_by_keys_method(d):
    s = 0.0
    for k in d.keys():
        s = s + d[k] * k
    return s


def through_a_helper_walking_keys(x):
    return weighted_by_keys_method({0: x[0], 1: x[1], 2: x[2]})


def rows_of_a_helper_argument(rows):
    s = 0.0
    for r in rows:
        s = s + np.sum(r * r)
    return s


def through_rows(x):
    return rows_of_a_helper_argument([x, 2.0 * x])


@pytest.mark.parametrize("f", [keys_used_as_numbers, keys_of_a_comprehension,
                               through_a_helper_walking_keys, through_rows])
def test_both_modes_match_finite_differences(f):
    expected = numerical_grad(f, [X], 0)
    assert_close(ad.grad(f)(X), expected)
    tangent = np.array([0.2, 1.0, -0.7])
    assert_close(ad.jvp(f)(X, tangent=tangent)[1], expected @ tangent)


def test_a_dict_argument_walked_by_key_is_refused_at_the_loop_in_both_modes():
    for derivative in (ad.grad(through_a_helper),
                       lambda x: ad.jvp(through_a_helper)(x, tangent=np.ones(3))):
        with pytest.raises(UnsupportedSyntax, match="keys of a dict") as caught:
            derivative(X)
        assert "for k in d:" in str(caught.value)
        assert "d.keys()" in caught.value.hint


def test_a_dict_argument_walked_by_key_where_the_key_is_only_an_index_runs():
    def norm2(params):
        s = 0.0
        for k in params:
            s = s + np.sum(params[k] ** 2)
        return s
    p = {"a": np.array([1.0, 2.0]), "b": np.array([3.0])}
    g = ad.grad(norm2)(p)
    assert_close(g["a"], 2 * p["a"])
    assert_close(g["b"], 2 * p["b"])
