"""Loud crashes (a Python traceback from inside the transformer or the run-time helpers instead
of a right answer) found beside the silent wrong derivatives of
test_known_wrong_2026_11_28c.py, each checked now in every mode against central finite
differences (and HIPS autograd where it runs the program). Fixed on 2026-11-29:

- NumPy ufuncs on Python lists in jvp and grad (np.subtract, np.arctan2, ... on lists): see
  test_known_wrong_2026_11_28c.py (passes/read_sequences_as_arrays.py). Other NumPy functions
  given a list where they read one array (`np.sort(xs)`, `np.take(xs, i)`, `np.trace(rows)`:
  their adjoints indexed the list as an array) read it as np.asarray of it too.
- `min(d.items())[1]` for a dict of active values: the builtin picks a tuple, whose adjoint
  the share of the winner multiplied as a list (`[None, g] * 1.0`); a picked tuple's adjoint
  and tangent are now scaled entry by entry (runtime.extrema._scaled).
- `np.max(x[:, :0], initial=0)`: lowered to np.maximum(np.max(x), 0), whose inner max of
  nothing failed; the inner max keeps an initial every entry beats (runtime.lowest_of), and
  a group no entry attains gets no share (runtime.extrema._counted).
- `np.array(x, ndmin=2)` in reverse mode: the adjoint kept the added leading axes, which
  unbroadcast could not take back to x's shape (a crash for an array, a silent wrong gradient
  for a list: each entry read a row); runtime.through_cast takes them off (and its transpose
  puts them back).
"""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from oracle_checks import check_every_mode

X = np.array([1.1, -0.45, 2.0, 0.35, -1.3, 0.8])


# -- the builtins min and max picking a tuple ---------------------------------------------------

def min_of_a_dicts_items(x):
    d = {"a": x[0] ** 2, "b": x[1], "c": x[2]}
    return min(d.items())[1] * 3.0


def max_of_a_dicts_items_unpacked(x):
    d = {"a": x[0] ** 2, "b": x[1], "c": x[2]}
    k, v = max(d.items())
    return v * x[3]


def max_of_pairs(x):
    pairs = [(x[0], x[1]), (x[2], x[3] ** 2), (x[1], x[0])]
    best = max(pairs)
    return best[0] * best[1] + np.sin(best[1])


def min_of_two_tuples(x):
    a = (x[0], x[1] * 2.0)
    b = (x[2], x[3])
    return np.sum(np.array(min(a, b)) ** 2)


@pytest.mark.parametrize("fn", [min_of_a_dicts_items, max_of_a_dicts_items_unpacked, max_of_pairs,
                                min_of_two_tuples])
def test_a_builtin_extremum_picking_a_tuple(fn):
    check_every_mode(fn, X.copy(), autograd_runs=False)


# -- np.max / np.min with initial= over groups that may be empty --------------------------------

def max_of_an_empty_slice(x):
    return np.max(x.reshape(2, 3)[:, :0], initial=0.0) + np.sum(x ** 2)


def max_of_nothing_along_an_axis(x):
    y = x.reshape(2, 3)
    return np.sum(np.max(y[:, :0], axis=1, initial=0.5) * x[:2]) + np.sum(x ** 2)


def max_with_an_initial_that_wins_a_row(x):
    return np.sum(np.max(x.reshape(2, 3) ** 2, axis=1, initial=2.0) * np.array([1.0, 3.0]))


def min_with_an_initial_kept(x):
    return np.sum(np.min(np.sin(x).reshape(3, 2), axis=0, initial=-0.5, keepdims=True) ** 2)


def max_with_where_and_initial(x):
    m = np.array([True, False, True, False, True, True])
    return np.max(x ** 3, where=m, initial=-1.0) * x[0]


def methods_with_initial(x):
    y = x.reshape(2, 3)[:, :0]
    return (x * x[0]).max(initial=0.0) + y.min(initial=1.0) * x[1]


def an_active_initial_that_wins(x):
    return np.max(x[:3] * 0.1, initial=x[3] * 10.0) * x[4]


@pytest.mark.parametrize("fn", [max_of_an_empty_slice, max_of_nothing_along_an_axis,
                                max_with_an_initial_that_wins_a_row, min_with_an_initial_kept,
                                max_with_where_and_initial, methods_with_initial,
                                an_active_initial_that_wins])
def test_an_extremum_with_initial(fn):
    check_every_mode(fn, X.copy(), autograd_runs=False)


def max_of_no_columns(x):
    return np.max(x[:, :0], initial=0) + np.sum(x ** 2)     # as found: a matrix argument


def test_the_max_of_no_columns_of_a_matrix_as_found():
    x = X.reshape(2, 3)
    expected = numerical_grad(max_of_no_columns, (x,), 0)
    assert_close(ad.grad(max_of_no_columns)(x), expected)
    direction = np.arange(6.0).reshape(2, 3) - 2.0
    assert_close(ad.jvp(max_of_no_columns)(x, tangent=direction)[1], np.sum(expected * direction))
    assert_close(ad.hessian(max_of_no_columns)(x).reshape(6, 6), 2 * np.eye(6))


def test_an_extremum_with_initial_over_integers_keeps_its_value():
    def f(x):
        counts = np.arange(6).reshape(2, 3)
        return np.sum(np.max(counts[:, :0], axis=1, initial=3) * x[:2]) + \
            np.min(counts, initial=-2) * x[2]
    check_every_mode(f, X.copy(), autograd_runs=False)


# -- np.array(x, ndmin=k): leading axes of length 1 added ---------------------------------------

def ndmin_of_an_array(x):
    return np.sum(np.array(x, ndmin=2) ** 2 * np.array([[1.0], [2.0]]))


def ndmin_of_a_list(x):
    return np.sum(np.array([x[0], x[1] * x[2]], ndmin=3) ** 2 * np.array([1.0, 2.0]))


def ndmin_of_a_number(x):
    return np.sum(np.array(x[0] * x[1], ndmin=2) * np.array([[1.0, 2.0]]))


@pytest.mark.parametrize("fn", [ndmin_of_an_array, ndmin_of_a_list, ndmin_of_a_number])
def test_an_array_made_with_ndmin(fn):
    check_every_mode(fn, X.copy(), autograd_runs=fn is ndmin_of_an_array)


# -- a NumPy function reading its first argument, a list, as one array --------------------------

def sort_of_a_list(x):
    return np.sum(np.sort([x[0], x[1], x[2]]) * np.array([1.0, 2.0, 3.0]))


def take_from_a_list(x):
    return np.sum(np.take([x[0], x[1] * x[3], x[2]], [2, 0, 1]) ** 2 * np.array([1.0, 2.0, 3.0]))


def trace_of_nested_lists(x):
    return np.trace([[x[0], x[1]], [x[2], x[3] ** 2]]) ** 2


def sum_of_a_tuple(x):
    return np.sum((x[0] * x[1], np.sin(x[2]))) ** 2


@pytest.mark.parametrize("fn", [sort_of_a_list, take_from_a_list, trace_of_nested_lists,
                                sum_of_a_tuple])
def test_a_numpy_function_reading_a_list_as_an_array(fn):
    check_every_mode(fn, X.copy(), autograd_runs=False)


def max_of_a_list_with_initial(x):
    return np.max([x[0], x[1] ** 2], initial=1.5) * x[2] + np.min((x[3],), initial=0.0)


def test_an_extremum_with_initial_of_a_list():
    check_every_mode(max_of_a_list_with_initial, X.copy(), autograd_runs=False)


# -- NumPy's arithmetic reading a list beside an array (refused before: read as concatenation) --

def array_times_a_list(x):
    return np.sum(np.array([1.0, 2.0]) * [x[0], x[1]] * x[2:4])


def argument_minus_a_list(x):
    return np.sum((x[:4] - [x[0] * x[1], 1.0, 2.0, x[3]]) ** 2)


def a_tuple_to_an_arrays_power(x):
    return np.sum((x[0] ** 2, x[2]) ** np.abs(x[1:3]))


def ufunc_result_plus_a_list(x):
    return np.sum((np.tanh(x[:2]) + [x[2], x[3] ** 2]) ** 2)


@pytest.mark.parametrize("fn", [array_times_a_list, argument_minus_a_list,
                                a_tuple_to_an_arrays_power, ufunc_result_plus_a_list])
def test_arithmetic_of_an_array_and_a_list(fn):
    check_every_mode(fn, X.copy(), autograd_runs=False)
