"""A helper's in-place write that no one else can see (issue 15): into arithmetic the caller
wrote as the argument (`h(x * 2.0)`, an array only the helper holds), and `v0 += 1.0` on a
number read from an array (`v0 = b[0, 2]` of a 2-D `b`), which counted as a view. Both
differentiated in every mode against central finite differences; a write the caller could see
(through a slice of its array, a row of a 3-D one) stays refused in both modes."""
import functools

import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode

X = np.array([0.3, -0.7, 1.1, 0.4])


def nudges_its_argument(a):
    a[1] -= np.sin(a[0])
    a[2] = a[2] * a[3]
    return np.sum(a ** 2)


def into_arithmetic(x):
    return nudges_its_argument(x * 2.0) + np.sum(x)


def into_negation(x):
    return nudges_its_argument(-x) * nudges_its_argument(x + 1.0)


def bumped_entry(b):
    v0 = b[0, 2]
    v0 += 1.0
    return v0 * b[1, 1]


def number_from_a_matrix(x):
    b = np.outer(x, x)
    return bumped_entry(b) + np.sum(b)


def bumped_row(b):
    v0 = b[0, 1]          # of a 3-D b: a row, a view
    v0 += 1.0
    return np.sum(v0)


def row_of_a_cube(x):
    b = np.ones((2, 2, 1)) * x[:2]
    return bumped_row(b) + np.sum(b)


def into_a_slice(x):
    return nudges_its_argument(x[0:4]) + np.sum(x)


@pytest.mark.parametrize("fn", [into_arithmetic, into_negation, number_from_a_matrix],
                         ids=lambda f: f.__name__)
def test_against_finite_differences(fn):
    check_every_mode(fn, X.copy(), autograd_runs=fn is number_from_a_matrix)


@pytest.mark.parametrize("fn, words", [(row_of_a_cube, "`v0 \\+= ...` updates"),
                                       (into_a_slice, "writes into its argument")],
                         ids=["row-of-a-cube", "slice"])
@pytest.mark.parametrize("transform", [ad.grad, lambda f: functools.partial(
    ad.jvp(f), tangent=np.ones(4))], ids=["grad", "jvp"])
def test_a_write_the_caller_sees_stays_refused(fn, words, transform):
    with pytest.raises(ad.TransformError, match=words) as caught:
        transform(fn)(X.copy())
    assert caught.value.hint
