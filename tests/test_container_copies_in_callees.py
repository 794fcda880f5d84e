"""A helper that copies a dict or list it is given (`q = dict(p)`, `m = list(l)`) and then
replaces entries of the copy changes nothing of its caller's: it is differentiated, not
refused as a write into its argument. A write into an array the copy still shares
(`m[0] += v`, the caller's own row) is still refused."""
import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad.errors import TransformError
from fd import assert_close, numerical_grad

RNG = np.random.default_rng(12)
P = {"W": RNG.normal(size=(3, 3)), "b": RNG.normal(size=3), "c": RNG.normal(size=3)}
X = RNG.normal(size=3)


def doubled_weights(p):
    q = dict(p)
    q["W"] = q["W"] * 2
    return np.sum(q["W"]) + np.sum(q["b"] ** 2)


def uses_a_copy(p, x):
    return doubled_weights(p) * np.sum(p["c"] * x)


def first_row_doubled(rows):
    m = list(rows)
    m[0] = m[0] * 2
    m.append(m[1] * 3)
    return np.sum(m[0]) + np.sum(m[2] ** 2)


def uses_a_list_copy(W):
    return first_row_doubled([W[0], W[1]]) + np.sum(W)


def adds_into_a_shared_row(rows):
    m = list(rows)
    m[0] += 1.0                     # the caller's array, in place
    return np.sum(m[0])


def caller_of_a_shared_row(W):
    rows = [W[0] * 1.0, W[1] * 1.0]
    return adds_into_a_shared_row(rows) + np.sum(rows[0])


def test_a_dict_copied_in_a_helper_then_changed():
    got = ad.grad(uses_a_copy)(P, X)
    for key in P:
        def at(v, key=key):
            return uses_a_copy({**P, key: v}, X)
        assert_close(got[key], numerical_grad(at, [P[key]], 0))


def test_a_list_copied_in_a_helper_then_changed():
    W = RNG.normal(size=(2, 3))
    assert_close(ad.grad(uses_a_list_copy)(W), numerical_grad(uses_a_list_copy, [W], 0))


def test_a_write_into_an_array_the_copy_shares_is_still_refused():
    with pytest.raises(TransformError, match="writes into its argument `rows`"):
        ad.grad(caller_of_a_shared_row)(RNG.normal(size=(2, 3)))
