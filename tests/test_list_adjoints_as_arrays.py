"""A list NumPy reads as one array (`np.array(xs)`) gets an array adjoint, one row an entry;
the list's own changes before that read (insert, pop, reverse, extend, slices assigned) must
hand each row back to the entry it came from. Found by an independent tester: silently wrong
gradients (`xs.reverse()` then `np.array(xs)`: [5, 0, 0] where [5, 2, 0]) and crashes."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad

C = np.array([2.0, 5.0, 7.0, 11.0])


def inserted_in_a_loop(x):
    xs = []
    for i in range(2):
        xs.insert(0, x[i])
    return np.sum(np.array(xs) * C[:2])


def reversed_in_place(x):
    xs = [x[0], x[1]]
    xs.reverse()
    return np.sum(np.array(xs) * C[:2])


def popped_at_the_front(x):
    xs = [x[0], x[1], x[2]]
    v = xs.pop(0)
    return np.sum(np.array(xs) * C[:2]) * v


def popped_at_the_end(x):
    xs = [x[0], x[1], x[2]]
    xs.pop()
    return np.sum(np.array(xs) * C[:2])


def extended_by_itself(x):
    xs = [x[0], x[1]]
    xs.extend(xs)
    return np.sum(np.array(xs) * C)


def slice_swapped(x):
    xs = [x[0], x[1], x[2]]
    xs[0:2] = [xs[1], xs[0]]
    return np.sum(np.array(xs) * C[:3])


def comprehension_then_insert(x):
    xs = [x[i] for i in range(3)]
    xs.insert(0, x[2])
    return np.sum(np.array(xs) * C)


def rows_reversed(x):
    xs = [x * 1.0, x * 2.0]
    xs.reverse()
    return np.sum(np.array(xs) * C[:3])


@pytest.mark.parametrize("f", [inserted_in_a_loop, reversed_in_place, popped_at_the_front,
                               popped_at_the_end, extended_by_itself, slice_swapped,
                               comprehension_then_insert, rows_reversed], ids=lambda f: f.__name__)
def test_the_rows_of_an_array_adjoint_go_back_to_their_entries(f):
    x = np.array([0.3, -0.5, 0.8])
    expected = numerical_grad(f, [x], 0)
    assert_close(ad.grad(f)(x), expected)
    assert_close(ad.jvp(f)(x, tangent=np.ones(3))[1], np.sum(expected))


def comprehension_then_reverse(x):
    xs = [x[i] * (i + 1) for i in range(3)]
    xs.reverse()
    return xs[0] * 2.0 + xs[1] * 5.0 + np.sum(np.array(xs) * C[:3])


def test_a_list_made_by_a_comprehension_is_a_list():
    # found by an independent tester: `xs.reverse()` was refused after a comprehension
    x = np.array([0.3, -0.5, 0.8])
    f = comprehension_then_reverse
    expected = numerical_grad(f, [x], 0)
    assert_close(ad.grad(f)(x), expected)
    assert_close(ad.jvp(f)(x, tangent=np.ones(3))[1], np.sum(expected))
