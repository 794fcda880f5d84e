"""Iterables that are not sequences, read by position. Found 2026-11-28 as tracebacks from the
transform or from generated code: `t = [*s, 3.0]` (a SyntaxError in generated code), `k1, k2 =
d` (KeyError), `k1, k2 = d.keys()` (TypeError); `p, q = d.values()` and `next(reversed(...))`
were refused. LowerUnpackedIterables spells them as lists."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode


def starred_list_of_arrays(x):
    s = [x, 2 * x]
    t = [*s, x * x]
    return np.sum(t[2] * t[0])


def starred_list_of_constants(x):
    s = [1.0, 2.0]
    t = [*s, 3.0]
    return np.sum(x * t[2] * len(t))


def starred_tuple_inside_a_call(x):
    s = [np.sin(x), x]
    return np.sum(np.stack((*s, x * x))[0] * x)


def keys_of_a_dict_unpacked(x):
    d = {'a': x, 'b': x * x}
    k1, k2 = d
    return np.sum(d[k1] * np.cos(d[k2]))


def keys_view_unpacked(x):
    d = {'a': x, 'b': x * x}
    k1, k2 = d.keys()
    return np.sum(d[k1] * d[k2])


def values_unpacked(x):
    d = {'a': x, 'b': np.exp(x)}
    p, q = d.values()
    return np.sum(p * q)


def items_unpacked(x):
    d = {'a': x, 'b': x * x}
    (k1, p), (k2, q) = d.items()
    return np.sum(p * q) + len(k1 + k2)


def map_unpacked(x):
    a, b = map(np.sin, [x, 2 * x])
    return np.sum(a * b)


def next_of_reversed(x):
    return np.sum(next(reversed([x, np.tanh(x)])) * x)


def next_of_iter(x):
    xs = [np.cos(x), x]
    return np.sum(next(iter(xs)) * x)


X = np.array([0.3, -0.7, 1.1])


@pytest.mark.parametrize("fn", [starred_list_of_arrays, starred_list_of_constants,
                                starred_tuple_inside_a_call, keys_of_a_dict_unpacked,
                                keys_view_unpacked, values_unpacked, items_unpacked,
                                map_unpacked, next_of_reversed, next_of_iter])
def test_every_mode_against_the_oracles(fn):
    check_every_mode(fn, X)
    np.testing.assert_allclose(ad.value_and_grad(fn)(X)[0], fn(X), rtol=1e-12)
