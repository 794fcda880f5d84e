"""`+` and `*` on lists and tuples are concatenation and repetition, not arithmetic: where the
lists are written out they are differentiated as the display they make; where a list the
function builds meets them otherwise, they are refused at the user's line. Before, the
adjoint of `np.array([x[0]] * 3)` came out three times too large (a known gap)."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.errors import UnsupportedSyntax


def repeated(x):
    return np.sum(np.array([x[0]] * 3) * np.arange(3.0))


def repeated_on_the_left(x):
    return np.sum(np.stack(2 * (x, x[::-1])) * np.arange(3.0))


def concatenated(x):
    return np.sum(np.array([x[0]] + [1.0, 2.0]) * np.arange(3.0))


def repeated_call(x):
    return np.sum(np.array([np.sin(x[1])] * 2))


def named_display(x):
    xs = [x[2], x[0]]
    return np.sum(np.array(xs * 2) * np.arange(4.0))


def summed_repetition(x):
    return np.sum([x[1] * x[2]] * 3)


def repeated_then_joined(x):
    xs = [x[0]] * 2 + [x[1]]            # refused until 2026-11-25
    return xs[0] * xs[1] * xs[2]


def joined_then_repeated(x):
    ys = ([x[2]] + [x[0] * 2.0]) * 2
    return np.sum(np.array(ys) * np.arange(4.0))


@pytest.mark.parametrize("f", [repeated, repeated_on_the_left, concatenated, repeated_call,
                               named_display, summed_repetition, repeated_then_joined,
                               joined_then_repeated], ids=lambda f: f.__name__)
def test_written_out_lists_are_differentiated_as_the_list_they_make(f):
    x = np.array([0.3, -0.5, 0.8])
    expected = numerical_grad(f, [x], 0)
    assert_close(ad.grad(f)(x), expected)
    assert_close(ad.jvp(f)(x, tangent=np.ones(3))[1], np.sum(expected))


def repeated_by_a_variable(x, n):
    xs = [x[0], x[1]]
    return np.sum(np.array(xs * n))


def repeated_parameter(xs):
    return np.sum(np.array(xs * 3) * np.arange(6.0))


def test_repetition_by_a_count_not_written_out_is_refused_at_its_line():
    with pytest.raises(UnsupportedSyntax, match="on lists or tuples") as caught:
        ad.grad(repeated_by_a_variable)(np.array([0.3, 0.5]), 3)
    assert "xs * n" in str(caught.value)


def test_repetition_of_a_list_argument_is_refused_when_it_runs():
    with pytest.raises(UnsupportedSyntax, match="on lists or tuples") as caught:
        ad.grad(repeated_parameter)([0.3, 0.5])
    assert "xs * 3" in str(caught.value)


def entry_rebound_before_the_repetition(x):
    a = x * 1.0
    pair = [a]
    a = a * 2.0             # the list still holds the first `a`
    return np.sum(np.array(pair * 3) * x)


def test_a_display_whose_entry_is_bound_again_is_not_written_out_with_the_new_value():
    """Found 2026-11-29: `pair * 3` was written out as `[a, a, a]` where it is read, after `a`
    was bound again: value and gradient of `2 * a` (a silently wrong gradient). Now the
    repetition is refused (its entry holds two values), with its line."""
    with pytest.raises(UnsupportedSyntax, match="on lists or tuples") as error:
        ad.grad(entry_rebound_before_the_repetition)(np.array([0.3, -0.5, 0.4]))
    assert "pair * 3" in str(error.value)


def entries_bound_before_a_loop(x):
    a, b = x[0] * 1.0, x[1] * 2.0
    pair = [a, b]
    total = 0.0
    for k in range(3):
        total = total + np.sum(np.array(pair * 2) * (k + 1.0))
    return total


def test_a_display_of_entries_bound_once_is_written_out_inside_a_loop():
    x = np.array([0.3, -0.5, 0.4])
    assert_close(ad.grad(entries_bound_before_a_loop)(x), numerical_grad(entries_bound_before_a_loop, [x], 0))
