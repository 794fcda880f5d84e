"""A list's slice is a new list of the same objects (`new = params[:]`), where an array's is a
view; a list bound as another list's entry is that very list (runtime.written_through).
Found 2026-11-29: an array both lists hold updated in place through the copy (`new[0] -= lr *
g`) changed the original unseen, and a store into a list read from another list's entry was
not seen by that list: both silently wrong gradients. Such an update is now written back into
the original at the array's position; an array either list holds twice, or an entry picked by
an index that cannot be read twice, is refused."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.errors import SharedUpdate

X = np.array([1.0, 2.0, -0.5])


def updated_through_a_slice_copy(x):
    a = [x * 1.0]
    b = a[:]                  # a new list of the same array
    b[0] += 1.0               # changes that array in place: a[0] sees it
    return np.sum(a[0] * x)


def step_on_a_copy_of_the_parameters(params, x):
    new = params[:]
    new[0] -= 0.1 * x         # a list: params[0] changes too; an array: new is a view anyway
    return np.sum(new[0] * x) + np.sum(params[0] ** 2)


def stored_into_a_slice_copy(params, x):
    new = params[:]
    new[0] = params[0] - 0.1 * x       # a new array in the copy: params keeps its own
    return np.sum(new[0] * x) + np.sum(params[0] ** 2)


def number_entry_updated_in_a_slice_copy(x):
    a = [np.sum(x), 2.0]
    b = a[:]
    b[0] += 1.0               # a number: the copy's entry is bound again, a keeps its own
    return a[0] * b[0] + b[1] * a[0]


def stored_into_a_list_entry(x):
    a = [[x * 1.0, x * 2.0]]
    v = a[0]                  # the very list a holds
    v[0] = x * 3.0
    return np.sum(a[0][0] * x)


def updated_in_a_list_entry(x):
    a = [[x * 1.0, x * 2.0]]
    v = a[0]
    v[1] += x
    return np.sum(a[0][1] * x) + np.sum(v[0])


def _checked(f, *args):
    got = ad.grad(f)(*args)
    assert_close(np.asarray(got), numerical_grad(f, list(args), 0), rtol=1e-6, atol=1e-8)
    return got


def kept_entry_read_again(x):
    a = [x * 1.0, x * 2.0]
    b = a[:]
    b[0] += x                 # a[0] changes too, a[1] does not
    return np.sum(a[1] * x) + np.sum(b[0] * x) + np.sum(a[0])


def tail_copy_updated(x):
    a = [x * 1.0, x * 2.0, x * 3.0]
    b = a[1:]
    b[1] *= x                 # a[2]
    return np.sum(a[2] * x) + np.sum(a[0])


def reversed_copy_updated(x):
    a = [x * 1.0, x * 2.0, x * 3.0]
    b = a[::-1]
    b[0] -= x                 # a[2]
    return np.sum(a[2] * a[1])


def held_twice_then_updated(x):
    w = x * 1.0
    a = [w, w]
    b = a[:]
    b[0] += x                 # a[0] and a[1] both
    return np.sum(a[1] * x)


@pytest.mark.parametrize("f", [updated_through_a_slice_copy, kept_entry_read_again,
                               tail_copy_updated, reversed_copy_updated],
                         ids=lambda f: f.__name__)
def test_an_update_of_an_array_both_lists_hold_is_seen_by_the_original(f):
    got = _checked(f, X.copy())
    _, t = ad.jvp(f)(X.copy(), tangent=np.ones(3))
    assert t == pytest.approx(np.sum(got))


def test_the_update_of_a_copy_of_the_parameters_against_differences():
    got = ad.grad(step_on_a_copy_of_the_parameters)([X.copy()], X)
    assert_close(got[0], X + 2 * (X - 0.1 * X), rtol=1e-12, atol=1e-12)


def test_an_array_a_list_holds_twice_updated_through_a_copy_is_refused_at_its_line():
    with pytest.raises(SharedUpdate, match=r"(?s)`b` and `a` both hold.*two entries.*hint: "
                                           r".*copy the arrays"):
        ad.grad(held_twice_then_updated)(X.copy())


def test_the_same_update_through_a_view_of_an_array_is_followed():
    params = np.stack([X, 2 * X])
    got = ad.grad(step_on_a_copy_of_the_parameters)(params, X)
    expected = np.zeros_like(params)                   # params[0] is x - 0.1 x afterwards
    expected[0] = X + 2 * (params[0] - 0.1 * X)
    assert_close(got, expected, rtol=1e-12, atol=1e-12)


def test_stores_into_a_slice_copy_leave_the_original():
    got = ad.grad(stored_into_a_slice_copy)([X.copy(), 2 * X], X)
    assert_close(got[0], X + 2 * X, rtol=1e-12, atol=1e-12)
    assert_close(got[1], 0 * X, rtol=0, atol=0)
    _checked(number_entry_updated_in_a_slice_copy, X.copy())


@pytest.mark.parametrize("f, expected", [
    (stored_into_a_list_entry, 6 * X), (updated_in_a_list_entry, 6 * X + 1)],
    ids=lambda v: getattr(v, "__name__", ""))
def test_writes_through_a_list_read_from_an_entry_are_seen_by_its_holder(f, expected):
    assert_close(_checked(f, X.copy()), expected, rtol=1e-12, atol=1e-12)


def steps_storing_into_a_copy(x, lr):
    params = [x * 1.0, x * x]
    for _ in range(3):
        new = params[:]                 # a new list each step: a store into it is its own
        for i in range(2):
            new[i] = new[i] - lr * params[i] ** 2
        params = new
    return np.sum(params[0] * params[1])


def steps_updating_a_copy_in_place(x, lr):
    params = [x * 1.0, x * x]
    for _ in range(3):
        new = params[:]
        for i in range(2):
            new[i] -= lr * params[i] ** 2   # the array params[i] too, in a loop: refused
        params = new
    return np.sum(params[0] * params[1])


def test_a_slice_of_a_list_is_no_view_where_stores_into_it_are_differentiated():
    """Found 2026-11-29: a store into a list's slice copy inside a loop was refused as a write
    through a view of the list (a store into a list only binds a slot again:
    passes/refuse_writes_through_views.py)."""
    _checked(steps_storing_into_a_copy, X.copy(), 0.1)
    with pytest.raises(SharedUpdate, match=r"(?s)`params` may be that same array.*hint: .*"
                                           r"`new\[i\] = new\[i\] - \.\.\.`"):
        ad.grad(steps_updating_a_copy_in_place)(X.copy(), 0.1)
