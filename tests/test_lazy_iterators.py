"""`map`, `zip`, `enumerate`, `reversed` and generator expressions compute their items when
they are read. Found 2026-11-28: made into lists where they were bound, they missed changes
between the binding and the read (`xs.append(v)`, `xs[0] = v`, `y = 3 * x`): silent wrong
derivatives in both modes. DeferLazyIterators makes them where they are read, holding what
Python evaluates when they are made; reads in parts with a change between are refused."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode
from s2s_ad.errors import TransformError


def map_then_appended(x):
    xs = [x, 2 * x]
    m = map(np.sin, xs)
    xs.append(3 * x)
    return sum(np.sum(v) for v in m)


def map_then_written(x):
    xs = [x, 2 * x]
    m = map(np.sin, xs)
    xs[0] = 5 * x
    return sum(np.sum(v) for v in m)


def map_then_rebound(x):
    xs = [x, 2 * x]
    m = map(np.sin, xs)
    xs = [3 * x]                     # the map walks the old list
    return sum(np.sum(v) for v in m) + np.sum(xs[0])


def zip_then_written(x):
    a = [x, 2 * x]
    b = [x * x, x]
    z = zip(a, b)
    a[1] = 7 * x
    s = 0.0
    for p, q in z:
        s = s + np.sum(p * q)
    return s


def generator_then_appended(x):
    xs = [x, 2 * x]
    g = (np.sin(v) for v in xs)
    xs.append(3 * x)
    s = 0.0
    for v in g:
        s = s + np.sum(v)
    return s


def generator_reading_a_rebound_name(x):
    y = x * 1.0
    g = (v * y for v in [x, np.cos(x)])
    y = 3 * x                        # read when the items are: 3 * x
    return sum(np.sum(v) for v in g)


def generator_reading_a_name_updated_in_place(x):
    y = x * 1.0
    g = (v * y for v in [x, np.cos(x)])
    y *= 3
    return sum(np.sum(v) for v in g)


def enumerate_then_appended(x):
    xs = [x]
    e = enumerate(xs)
    xs.append(np.tanh(x))
    s = 0.0
    for i, v in e:
        s = s + (i + 1) * np.sum(v * v)
    return s


def made_in_a_loop(x):
    s = 0.0
    for k in range(2):
        xs = [x * (k + 1)]
        m = map(np.exp, xs)
        xs.append(x * x)
        s = s + sum(np.sum(v) for v in m)
    return s


def filter_then_written(x):
    xs = [x, 2 * x, -x]
    g = filter(lambda v: np.sum(v) > 0, xs)
    xs[2] = 4 * x                    # now kept: the filter reads it when its items are
    s = 0.0
    for v in g:
        s = s + np.sum(v * v)
    return s


def filter_none_taken_at_once(x):
    sums = [np.sum(np.sin(x)), np.sum(x * 0.0), np.sum(x ** 2)]
    return sum(np.cos(s) for s in filter(None, sums))


X = np.array([0.3, -0.7, 1.1])


@pytest.mark.parametrize("fn", [map_then_appended, map_then_written, map_then_rebound,
                                zip_then_written, generator_then_appended,
                                generator_reading_a_rebound_name,
                                generator_reading_a_name_updated_in_place,
                                enumerate_then_appended, made_in_a_loop,
                                filter_then_written, filter_none_taken_at_once])
def test_every_mode_against_the_oracles(fn):
    check_every_mode(fn, X)
    np.testing.assert_allclose(ad.value_and_grad(fn)(X)[0], fn(X), rtol=1e-12)


def changed_between_reads(x):
    xs = [x, 2 * x]
    m = map(np.sin, xs)
    first = next(m)
    xs[1] = x * x                    # the second item is computed after this change
    return np.sum(first) + np.sum(next(m))


def changed_while_walked(x):
    xs = [x, 2 * x]
    g = (np.sin(v) for v in xs)
    xs.append(3 * x)
    s = 0.0
    for v in g:
        xs[-1] = v * 2               # the loop reads items the body changes
        s = s + np.sum(v)
    return s


@pytest.mark.parametrize("fn, name", [(changed_between_reads, "m"), (changed_while_walked, "g")])
def test_items_read_in_parts_around_a_change_are_refused(fn, name):
    with pytest.raises(TransformError, match=f"`{name}` \\(line \\d+\\) computes its items as "
                                             f"they are read") as err:
        ad.grad(fn)(X)
    assert err.value.filename == __file__
    assert f"`{name} = list(...)`" in str(err.value)


def reversed_then_appended(x):
    xs = [x, 2 * x]
    r = reversed(xs)                 # starts at the entry that was last when it was made
    xs.append(3 * x)
    return sum(np.sum(v) for v in r)


def test_reversed_then_changed_is_refused():
    with pytest.raises(TransformError, match="`r` \\(line \\d+\\) computes its items"):
        ad.grad(reversed_then_appended)(X)


def zip_kept_then_walked(x):
    a = [x, 2 * x]
    b = [x * x, np.sin(x)]
    z = zip(a, b)                    # refused before: a zip is differentiated where it is read
    s = 0.0
    for p, q in z:
        s = s + np.sum(p * q)
    return s


def test_a_zip_kept_in_a_name_and_read_once():
    check_every_mode(zip_kept_then_walked, X)
