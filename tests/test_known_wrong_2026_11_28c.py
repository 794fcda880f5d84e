"""Silent wrong derivatives found on 2026-11-28 by an independent hunt over ordinary numerical
code (tutorial forms, small models, containers, broadcasting, dtypes, both modes and second
order), checked against central finite differences. A case still open is a strict xfail
asserting the right answer; one fixed since is a normal test. By family:

- builtins walking a dict (fixed the same day): `sorted(d)`, `list(d)`, `tuple(d)`,
  `reversed(d)`, `max(d)`, `enumerate(d)` and `a, b = d` walk its keys, as `for k in d` does
  (fixed on 2026-11-25): the keys were taken for the entries, a silent wrong jvp and a KeyError
  or TypeError in reverse mode. They now walk `list(d.keys())`
  (passes/lower_for_loops.keys_of_dicts); a helper's parameter is checked when it runs.
- a 0-d array indexed to a new axis, x[None] (a crash, fixed the same day).
- a one-entry list broadcast against an array, [x0] + arr (jvp half; fixed the same day).
- a helper's a + b on one-entry lists, read by NumPy as an array (grad and hessian wrong;
  fixed on 2026-11-29: such a helper runs code specialized to the lists passed, where `a + b`
  is runtime.joined, whose adjoint is cut at len(a)).
- np.add on Python lists of active numbers in forward mode (jvp, hvp, hessian wrong; fixed on
  2026-11-29: a list or tuple a ufunc reads is spelled `np.asarray(xs)`, whose rules hold;
  np.subtract, np.arctan2, ... on lists, which crashed, run too).
- a list joined with what a helper returned, `[x0] + pair(x)` (found 2026-11-29: grad wrong;
  refused at the user's line: whether `+` joins or adds is known only when it runs).
- a tuple argument unpacked twice, then written through one name (release fuzz seed 1000336;
  fixed on 2026-11-29: the write back binds the other unpacked name again).
"""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from oracle_checks import check_every_mode

X = np.array([1.1, -0.45, 2.0, 0.35])
T = np.array([0.3, -1.2, 0.7, 0.5])


def _both_modes_match_differences(fn, x=X):
    expected = numerical_grad(fn, (x,), 0)
    assert_close(ad.jvp(fn)(x, tangent=T)[1], expected @ T)
    assert_close(ad.grad(fn)(x), expected)


# -- builtins walking a dict's keys ------------------------------------------------------------

def keys_by_sorted(x):
    d = {0: x[0], 1: x[1] ** 2, 2: x[2]}
    s = 0.0
    for k in sorted(d):
        s = s + d[k] * k
    return s


def keys_by_list(x):
    d = {0: x[0], 1: x[1] ** 2, 2: x[2]}
    s = 0.0
    for k in list(d):
        s = s + d[k] * k
    return s


def keys_by_reversed(x):
    d = {0: x[0], 1: x[1] ** 2, 2: x[2]}
    s = 0.0
    for k in reversed(d):
        s = s + d[k] * k
    return s


def keys_by_tuple(x):
    d = {0: x[0], 1: x[1] ** 2, 2: x[2]}
    s = 0.0
    for k in tuple(d):
        s = s + d[k] * k
    return s


def keys_by_enumerate(x):
    d = {0: x[0], 1: x[1] ** 2, 2: x[2]}
    s = 0.0
    for i, k in enumerate(d):
        s = s + d[k] * k * i
    return s


def largest_key(x):
    d = {0: x[0], 1: x[1] ** 2, 2: x[2]}
    return max(d) * d[2] + min(d) * d[1]


def sorted_keys_of_a_dict_comprehension(x):
    vals = {i: x[i] ** 2 for i in range(4)}
    return sum(vals[k] * k for k in sorted(vals))


def keys_by_unpacking(x):
    d = {0: x[0], 1: x[1] ** 2, 2: x[2]}
    a, b, c = d
    return d[b] * b + d[c] * c     # a KeyError in both modes before


@pytest.mark.parametrize("fn", [keys_by_unpacking, keys_by_sorted, keys_by_list, keys_by_reversed, keys_by_tuple,
                                keys_by_enumerate, largest_key,
                                sorted_keys_of_a_dict_comprehension])
def test_builtins_walking_a_dict_walk_its_keys(fn):
    _both_modes_match_differences(fn)


def weighted_by_sorted_keys(d):
    s = 0.0
    for k in sorted(d):
        s = s + d[k] * k
    return s


def through_a_helper_sorting_keys(x):
    # transform time cannot know the helper's `d` is a dict: checked when it runs
    return weighted_by_sorted_keys({0: x[0], 1: x[1] ** 2, 2: x[2]})


def test_a_helper_sorting_a_dict_argument_is_refused_in_both_modes():
    for derivative in (ad.grad(through_a_helper_sorting_keys),
                       lambda x: ad.jvp(through_a_helper_sorting_keys)(x, tangent=T)):
        with pytest.raises(ad.errors.UnsupportedSyntax, match="keys of a dict"):
            derivative(X)


def sum_of_sorted(values):
    s = 0.0
    for k, v in enumerate(sorted(values)):
        s = s + v * (k + 1.0)
    return s


def through_a_helper_sorting_a_list(x):
    return sum_of_sorted([x[0], x[1] ** 2, x[2]])


def test_a_helper_sorting_a_list_argument_runs():
    _both_modes_match_differences(through_a_helper_sorting_a_list)


# -- a 0-d array indexed with None, Ellipsis or () (a crash, fixed the same day) --------------
# scatter's 0-d branch added the (1,)-shaped adjoint of x[None] to the 0-d zeros, and
# gradient_like could not broadcast it back to x's shape.

def lifted_by_none(x):
    return np.sum(x[None] * 2.0)


def lifted_by_ellipsis_and_none(x):
    return np.sum(x[..., None] ** 2)


def lifted_twice(x):
    return np.sum(x[None, None] * np.ones((2, 3)))


def read_by_empty_tuple(x):
    return x[()] ** 2


@pytest.mark.parametrize("fn, expected, second", [(lifted_by_none, 2.0, 0.0),
                                                  (lifted_by_ellipsis_and_none, 2.6, 2.0),
                                                  (lifted_twice, 6.0, 0.0),
                                                  (read_by_empty_tuple, 2.6, 2.0)])
def test_a_0d_array_indexed_to_a_new_axis(fn, expected, second):
    x = np.array(1.3)
    gradient = ad.grad(fn)(x)
    assert np.shape(gradient) == ()
    assert_close(gradient, expected)
    assert_close(ad.jvp(fn)(x, tangent=np.array(1.0))[1], expected)
    assert_close(ad.hessian(fn)(x), second)



# -- a one-entry list or tuple meeting an array in forward mode (fixed the same day) ----------
# [x0] + arr is an array (NumPy broadcasts the list); its tangent stayed the list [dx0], which
# the next product repeated as a list ([dx0] * 2 -> [dx0, dx0]) where NumPy doubles an array:
# jvp was half the right value; reverse mode was right. runtime.broadcast_like now makes such a
# tangent an array.

def one_entry_list_plus_array(x):
    return np.sum(([x[0]] + np.array([1.0, 2.0])) ** 2)


def array_plus_one_entry_list(x):
    return np.sum((np.array([1.0, 2.0]) + [x[0]]) ** 2)


def one_entry_tuple_minus_array(x):
    return np.sum(((x[0],) - np.array([1.0, 2.0])) ** 2)


@pytest.mark.parametrize("fn", [one_entry_list_plus_array, array_plus_one_entry_list,
                                one_entry_tuple_minus_array])
def test_a_one_entry_list_broadcast_against_an_array(fn):
    _both_modes_match_differences(fn)
    x = X.copy()
    direction = T.copy()
    fd_of_grad = (ad.grad(fn)(x + 1e-5 * direction) - ad.grad(fn)(x - 1e-5 * direction)) / 2e-5
    assert_close(ad.hvp(fn)(x, vector=direction), fd_of_grad, rtol=1e-5, atol=1e-6)


# -- a helper concatenating one-entry lists or tuples, read by NumPy as an array (fixed) ------
# `a + b` in a helper was differentiated as elementwise `+`; the backward pass refused a list
# adjoint of another length (runtime.arrays._resequenced), but let an array adjoint reach a
# one-entry list as broadcasting would: np.array(cat([x0], [x1])) @ [1, 2] got the gradient
# [3, 3] (each entry the sum of the whole adjoint) where [1, 2] is right; the hessian too.
# Fixed on 2026-11-29: a call passing a list or tuple to a helper that joins its parameters
# runs code specialized to the arguments' kinds (calls.SequenceKinds), where `a + b` of two
# known lists or tuples is runtime.joined(a, b), whose adjoint is cut at len(a).

def concatenated(a, b):
    return a + b


def one_entry_lists(x):
    return np.sum(np.array(concatenated([x[0]], [x[1]])) * np.array([1.0, 2.0]))


def one_entry_tuples(x):
    return np.sum(np.array(concatenated((x[0],), (x[1],))) * np.array([1.0, 2.0]))


def one_entry_lists_into_dot(x):
    return np.dot(concatenated([x[0]], [x[1]]), np.array([1.0, 2.0]))


def one_entry_lists_squared(x):
    return np.sum(np.array(concatenated([x[0]], [x[1]])) ** 2 * np.array([1.0, 2.0]))


def lists_of_two_lengths_walked(x):
    s = 0.0
    for v in concatenated([x[0]], [x[1] ** 2, 3.0]):
        s = s + v * v
    return s


def joined_twice(x):
    a = concatenated([x[0] * x[1]], [x[1]])
    return np.sum(np.array(concatenated(a, [np.sin(x[0])])) ** 2 * np.array([1.0, 2.0, 3.0]))


def one_entry_lists_of_rows(x):
    # the lists hold arrays: the helper's code for their kinds knows them as lists too
    return np.sum(np.array(concatenated([x[:2]], [x[2:] * x[0]])) ** 2 * np.array([[1.0], [3.0]]))


CONCATENATING = [one_entry_lists, one_entry_tuples, one_entry_lists_into_dot,
                 one_entry_lists_squared, lists_of_two_lengths_walked, joined_twice,
                 one_entry_lists_of_rows]


@pytest.mark.parametrize("fn", CONCATENATING)
def test_a_helper_concatenating_one_entry_lists(fn):
    x = X if fn is one_entry_lists_of_rows else X[:2]
    assert_close(ad.grad(fn)(x), numerical_grad(fn, (x,), 0))


def test_a_helper_concatenating_one_entry_lists_in_forward_mode():
    for fn in CONCATENATING:
        x, t = (X, T) if fn is one_entry_lists_of_rows else (X[:2], T[:2])
        assert_close(ad.jvp(fn)(x, tangent=t)[1], numerical_grad(fn, (x,), 0) @ t)


@pytest.mark.parametrize("fn", CONCATENATING)
def test_a_helper_concatenating_lists_in_every_mode(fn):
    # HIPS autograd reads np.array of a list of its boxes
    x = X.copy() if fn is one_entry_lists_of_rows else X[:2].copy()
    check_every_mode(fn, x, autograd_runs=fn not in (joined_twice, one_entry_lists_of_rows))


# -- a NumPy ufunc given Python lists of numbers, in forward mode (fixed 2026-11-29) ----------
# np.add([x0], [x1]) is the array [x0 + x1]; its tangent was built by the rule's `d[x] + d[y]`
# on the tangents of the lists, which are lists: [dx0] + [dx1] concatenated to [dx0, dx1], so
# z[0] read dx0 alone. jvp, hvp and hessian were silently wrong; reverse mode was right.
# (np.subtract, np.maximum, np.arctan2 on such lists crashed instead: list - list, list * float.)
# A list or tuple a ufunc (or NumPy's elementwise function) reads is now spelled as the array
# NumPy makes of it, `np.asarray(xs)`, whose rules hold in both modes
# (passes/read_sequences_as_arrays.py).

def ufunc_of_one_entry_lists(x):
    return np.add([x[0]], [x[1]])[0] ** 2


def ufunc_of_one_entry_tuples(x):
    return np.add((x[0],), (x[1],))[0] ** 2


def ufunc_of_two_entry_lists(x):
    return np.add([x[0], x[1]], [x[2], x[3]])[1] ** 2


def subtract_of_lists(x):
    return np.subtract([x[0], x[1]], [x[2], x[3]])[1] ** 2 + x[0]


def maximum_of_a_list_and_constants(x):
    return np.sum(np.maximum([x[0], x[1]], [x[2], 0.5]) ** 2)


def arctan2_of_a_list_and_a_tuple(x):
    return np.sum(np.arctan2([x[0], x[1]], (x[2], x[3])) ** 2)


def sin_of_a_list(x):
    return np.sum(np.sin([x[0], x[1] * 2.0]) * x[2:])


def multiply_of_a_list_and_an_array(x):
    return np.sum(np.multiply([x[0], x[1]], x[2:]) ** 2)


def where_of_lists(x):
    return np.sum(np.where([True, False], [x[0], x[1]], [x[2], x[3]]) ** 2)


def clip_of_a_list(x):
    return np.sum(np.clip([x[0], x[1], x[2]], -0.5, 1.5) ** 2)


def _subtract_and_scale(a, b):
    return np.subtract(a, b) * np.cos(a)


def ufunc_of_lists_in_a_helper(x):
    return np.sum(_subtract_and_scale([x[0], x[1]], (x[2], x[3])) ** 2)


def _pair(x):
    return [x[0], x[1]]


def ufunc_of_lists_a_helper_returned(x):
    # whether `a` holds a list is known only when it runs: runtime.read_as_array
    a = _pair(x)
    b = _pair(x * 2.0)
    return np.add(a, b)[0] ** 2 + np.sum(np.arctan2(a, b) ** 2)


def sin_of_a_joined_list(x):
    a = concatenated([x[0] ** 2], [x[1], x[0] * x[1]])
    return np.sum(np.sin(a) * np.array([1.0, 2.0, 3.0])) + a[2] * a[0]


def _dense(x, W, b):
    return x @ W + b


def a_layer_helper(x):
    return np.sum(np.tanh(_dense(x, np.ones((4, 3)), np.ones(3))))


def test_an_array_a_helper_returned_is_read_as_it_is():
    """`x @ W + b` of arrays is no list: no `read_as_array` where the helper could only pass a
    list on that it was given, and was given none."""
    for derivative in (ad.grad(a_layer_helper), ad.jvp(a_layer_helper), ad.hvp(a_layer_helper)):
        assert "read_as_array" not in ad.source(derivative)
    check_every_mode(a_layer_helper, X.copy())


UFUNCS_OF_LISTS = [ufunc_of_one_entry_lists, ufunc_of_one_entry_tuples, ufunc_of_two_entry_lists,
                   subtract_of_lists, maximum_of_a_list_and_constants,
                   arctan2_of_a_list_and_a_tuple, sin_of_a_list, multiply_of_a_list_and_an_array,
                   where_of_lists, clip_of_a_list]


@pytest.mark.parametrize("fn", UFUNCS_OF_LISTS)
def test_a_ufunc_of_lists_in_forward_mode(fn):
    tangent = ad.jvp(fn)(X, tangent=T)[1]
    assert_close(tangent, numerical_grad(fn, (X,), 0) @ T)


def test_a_ufunc_of_lists_second_order():
    expected = np.zeros((4, 4))
    expected[:2, :2] = 2.0               # (x0 + x1) ** 2
    assert_close(ad.hessian(ufunc_of_one_entry_lists)(X), expected)


@pytest.mark.parametrize("fn", UFUNCS_OF_LISTS)
def test_a_ufunc_of_lists_in_reverse_mode(fn):
    assert_close(ad.grad(fn)(X), numerical_grad(fn, (X,), 0))


# HIPS autograd cannot run a ufunc on a list of its boxes with an array method (np.sin, np.arctan2)
_AUTOGRAD_FAILS = (arctan2_of_a_list_and_a_tuple, sin_of_a_list, multiply_of_a_list_and_an_array,
                   ufunc_of_lists_in_a_helper, ufunc_of_lists_a_helper_returned,
                   sin_of_a_joined_list)


@pytest.mark.parametrize("fn", UFUNCS_OF_LISTS + [ufunc_of_lists_in_a_helper,
                                                  ufunc_of_lists_a_helper_returned,
                                                  sin_of_a_joined_list])
def test_a_ufunc_of_lists_in_every_mode(fn):
    check_every_mode(fn, X.copy(), autograd_runs=fn not in _AUTOGRAD_FAILS)


# --- Found by the release fuzz batch at the end of 2026-11-28 (seed 1000336) ----------------

def _unpacked_twice_then_written(x0):
    e1, e2 = x0
    e3, e4 = x0                     # e4 is e2: the tuple's array, the caller's
    e2[:2] *= 0.5 + 0.5 * np.tanh(e1 * np.array([1.0, 2.0]))
    return np.sum(np.sin(e2)) + np.dot(e4 * e1, e4[[1, 2, 0]])


def _fresh_tuple():
    return (-1.0574122868974325, np.array([1.83843185, 1.07779808, -0.74770484]))


# fixed 2026-11-29: the write back into the tuple binds e4 again from it (e4 = x0[1])
def test_a_tuple_unpacked_twice_then_written_through_one_name():
    _, gradient = ad.grad(_unpacked_twice_then_written)(_fresh_tuple())
    expected, h = np.zeros(3), 1e-6
    for i in range(3):
        up, down = _fresh_tuple(), _fresh_tuple()
        up[1][i] += h
        down[1][i] -= h
        expected[i] = (_unpacked_twice_then_written(up) - _unpacked_twice_then_written(down)) / (2 * h)
    np.testing.assert_allclose(gradient, expected, rtol=1e-6, atol=1e-8)


# -- a list joined with what a helper returned (found 2026-11-29, refused) ---------------------
# `[x0] + pair(x)`: the helper's list is joined to the one-entry list, but `+` was read as
# elementwise, and the one-entry list took the whole adjoint's sum (grad [3, 3] where [1, 2]).
# Whether the returned value is a list (a join) or an array (a sum) is known only when it
# runs: refused at the user's line, with hints that work.

def _one_entry(x):
    out = []
    out.append(x[1])        # a helper that fills a list stays a call (passes/inline_helpers.py)
    return out


def _one_entry_copied_in(x):
    return [x[1]]


def joined_with_what_a_helper_returned(x):
    a = [x[0]]
    c = a + _one_entry(x)
    return np.sum(np.array(c) * np.array([1.0, 2.0]))


def test_a_list_joined_with_what_a_helper_returned_is_refused_at_its_line():
    import inspect
    lines, first = inspect.getsourcelines(joined_with_what_a_helper_returned)
    line = first + next(i for i, text in enumerate(lines) if "a + _one_entry" in text)
    for derivative in (ad.grad(joined_with_what_a_helper_returned),
                       lambda x: ad.jvp(joined_with_what_a_helper_returned)(x, tangent=T[:3])):
        with pytest.raises(ad.errors.UnsupportedSyntax) as caught:
            derivative(X[:3])
        assert str(caught.value).startswith(f"{__file__}:{line}:5: cannot differentiate `+` of "
                                            f"a list or tuple and what a function returned")
        assert "list(...)" in caught.value.hint and "np.asarray(...)" in caught.value.hint


def joined_as_the_hint_says(x):
    c = [x[0]] + list(_one_entry(x))
    return np.sum(np.array(c) ** 2 * np.array([1.0, 2.0]) * x[2])


def added_as_the_hint_says(x):
    c = [x[0]] + np.asarray(_one_entry(x))
    return np.sum(np.array(c) ** 2 * np.array([1.0, 2.0]) * x[2])


@pytest.mark.parametrize("fn", [joined_as_the_hint_says, added_as_the_hint_says])
def test_the_hints_for_a_list_joined_with_a_returned_value_work(fn):
    check_every_mode(fn, X[:3].copy(), autograd_runs=False)


def _features(x):
    out = [np.sin(x[0])]
    out.append(x[1])
    return out


def _features_copied_in(x):
    return [np.sin(x[0]), x[1]]


def joined_with_what_a_copied_in_helper_returned(x):
    a = [x[0]]
    c = a + _one_entry_copied_in(x)
    return np.sum(np.array(c) * np.array([1.0, 2.0]))


def joined_lists_copied_in(x):
    return np.sum(np.array(_features_copied_in(x) + _features_copied_in(x * 2.0)) * np.arange(4.0))


@pytest.mark.parametrize("fn", [joined_with_what_a_copied_in_helper_returned,
                                joined_lists_copied_in])
def test_lists_joined_with_what_a_copied_in_helper_returned(fn):
    """A one-line helper is copied into its caller, whose own analysis sees the list it
    builds: the join is differentiated (refused while the helper was a call)."""
    check_every_mode(fn, X[:3].copy(), autograd_runs=False)


def joined_returned_lists(x):
    return np.sum(np.array(_features(x) + _features(x * 2.0)) * np.arange(4.0))


def test_two_returned_lists_joined_are_refused():
    with pytest.raises(ad.errors.UnsupportedSyntax, match="what a function returned"):
        ad.grad(joined_returned_lists)(X[:2])
