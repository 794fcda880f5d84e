"""`t = s` binds a second name to the same list or dict: a change made in place through one
name is seen through the other. Found 2026-11-28: `t = s; s.append(v)`, then `t[-1]` read,
had a zero gradient in reverse mode (t's adjoint never reached the appended value), and
`d2 = d; d['b'] = v` raised KeyError in forward mode. ResyncContainerAliases binds the other
name again after each change (`if t is s: t = s`)."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode


def appends_then_reads_the_alias(x):
    s = [x, 2 * x]
    t = s
    s.append(x * x)
    return np.sum(t[2] * x) + len(t)


def appends_in_a_loop_reading_the_alias(x):
    s = [x]
    t = s
    for k in range(2):
        s.append(np.sin(t[-1]) * x)
    return np.sum(t[-1])


def writes_an_entry_then_reads_the_alias(x):
    s = [x, 2 * x]
    t = s
    s[0] = x * x
    return np.sum(t[0] * t[1])


def writes_a_dict_entry_then_reads_the_alias(x):
    d = {'a': x}
    e = d
    d['b'] = np.cos(x)
    return np.sum(e['b'] * e['a'])


def pops_then_reads_the_alias(x):
    s = [x, 2 * x, x * x]
    t = s
    v = s.pop()
    return np.sum(t[-1] * v) + len(t)


def inserts_through_the_alias(x):
    s = [x, 2 * x, x * x]
    t = s
    t.insert(0, np.sin(x))
    return np.sum(s[0] * s[-1])


def alias_rebound_on_one_path(x):
    s = [x, 2 * x]
    t = s
    if np.sum(x) > 0:
        t = [x ** 3]
    s.append(x * x)
    return np.sum(t[-1])


X = np.array([0.3, -0.2, 1.1])


@pytest.mark.parametrize("fn", [appends_then_reads_the_alias,
                                appends_in_a_loop_reading_the_alias,
                                writes_an_entry_then_reads_the_alias,
                                writes_a_dict_entry_then_reads_the_alias,
                                pops_then_reads_the_alias, inserts_through_the_alias])
def test_every_mode_against_the_oracles(fn):
    check_every_mode(fn, X)


@pytest.mark.parametrize("x", [X, -X])
def test_an_alias_rebound_on_one_path(x):
    check_every_mode(alias_rebound_on_one_path, x)
    np.testing.assert_allclose(ad.value_and_grad(alias_rebound_on_one_path)(x)[0],
                               alias_rebound_on_one_path(x))


def unpacked_twice_then_appended(x):
    s = [x]
    a, b = s, s                       # both names hold the one list
    a.append(np.sin(x) * x)
    return np.sum(b[-1] * s[0])


def test_names_unpacked_from_one_list():
    check_every_mode(unpacked_twice_then_appended, X)
