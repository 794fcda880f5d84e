"""A `for` loop over a list that its body grows or shrinks walks the list as it is at each
step (Python's list iterator reads the length again before every step). Found 2026-11-28: an
entry appended during the walk was not walked (a silent wrong gradient), and a list shrunk by
`pop` while walked raised IndexError in the backward pass; `xs.pop()` whose value is not read,
and `xs.pop(0)` under an `if` in a loop, lost the adjoints of the entries they moved."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode
from s2s_ad.errors import TransformError


def appends_while_walked(x):
    xs = [x, 2 * x]
    s = 0.0
    for v in xs:
        if len(xs) < 4:
            xs.append(v * v)
        s = s + np.sum(np.sin(v))
    return s


def pops_while_walked(x):
    xs = [x, 2 * x, 3 * x]
    s = 0.0
    for v in xs:
        s = s + np.sum(np.sin(v) * x)
        xs.pop()
    return s


def pops_the_front_while_walked(x):
    xs = [x, 2 * x, 3 * x, 4 * x]
    s = 0.0
    for v in xs:
        s = s + np.sum(np.sin(v))
        if len(xs) > 2:
            xs.pop(0)
    return s


def enumerates_while_growing(x):
    xs = [x]
    s = 0.0
    for i, v in enumerate(xs):
        if i < 3:
            xs.append(np.cos(v) * (i + 1))
        s = s + np.sum(v * v)
    return s


def grows_then_breaks_with_else(x):
    xs = [x, x * x]
    s = 0.0
    for v in xs:
        s = s + np.sum(v)
        if len(xs) > 5:
            break
        xs.extend([np.tanh(v)])
    else:
        s = s * 10.0
    return s


def grows_a_list_of_numbers_while_walked(x):
    ks = [1]
    s = 0.0
    for k in ks:
        if k < 8:
            ks.append(k * 2)
        s = s + k * np.sum(x ** 2)
    return s


def pops_unread_in_a_range_loop(x):
    xs = [x, 2 * x, 3 * x, 4 * x]
    s = 0.0
    for k in range(2):
        xs.pop()
        s = s + np.sum(np.sin(xs[-1]))
    return s


def pops_the_front_under_an_if(x):
    xs = [x, 2 * x, 3 * x, 4 * x]
    s = 0.0
    for k in range(3):
        s = s + np.sum(np.sin(xs[k]))
        if k > 0:
            xs.pop(0)
    return s


X = np.array([0.3, -0.7, 1.1])


@pytest.mark.parametrize("fn", [appends_while_walked, pops_while_walked,
                                pops_the_front_while_walked, enumerates_while_growing,
                                grows_then_breaks_with_else,
                                grows_a_list_of_numbers_while_walked,
                                pops_unread_in_a_range_loop, pops_the_front_under_an_if])
def test_every_mode_against_the_oracles(fn):
    check_every_mode(fn, X)


def test_the_value_is_the_plain_functions():
    for fn in (appends_while_walked, pops_while_walked, enumerates_while_growing):
        np.testing.assert_allclose(ad.value_and_grad(fn)(X)[0], fn(X), rtol=1e-12)


def rebinds_the_walked_list(x):
    xs = [x, 2 * x]
    s = 0.0
    for v in xs:
        xs.append(v)
        xs = [v]
        s = s + np.sum(v)
    return s


def test_rebinding_the_walked_list_in_the_body_is_refused():
    with pytest.raises(TransformError, match="walks `xs` while its body both rebinds") as err:
        ad.grad(rebinds_the_walked_list)(X)
    assert "while k < len(xs)" in str(err.value)


def grows_through_another_name_while_walked(x):
    xs = [x, 2 * x]
    ys = xs
    s = 0.0
    for v in xs:
        if len(ys) < 4:
            ys.append(v * v)
        s = s + np.sum(np.sin(v))
    return s


def test_a_list_grown_through_another_name_while_walked():
    check_every_mode(grows_through_another_name_while_walked, X)


def grows_with_plus_equals_while_walked(x):
    xs = [x]
    s = 0.0
    for v in xs:
        if len(xs) < 3:
            xs += [np.sin(v) * 2]         # extends the list walked: not another list
        s = s + np.sum(v ** 2)
    return s


def slice_written_while_walked(x):
    xs = [x, x * x, x]
    s = 0.0
    for v in xs:
        s = s + np.sum(v * 3)
        xs[1:] = [np.sin(v)]
    return s


@pytest.mark.parametrize("fn", [grows_with_plus_equals_while_walked, slice_written_while_walked])
def test_other_changes_of_the_list_walked(fn):
    check_every_mode(fn, X)
