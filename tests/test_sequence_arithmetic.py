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
