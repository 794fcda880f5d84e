"""A loop whose body rebinds its own target (`for i in range(3): i = 2 * i`): the backward
pass binds the target to each step's item again, so it must read the rebound value, not the
item. Found by an independent tester: reverse mode read the item (grad 3.0 where 6.0)."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def doubled_index(x):
    s = 0.0
    for i in range(3):
        i = i * 2
        s = s + x * i
    return s


def augmented_index(x):
    s = 0.0
    for i in range(3):
        i += 1
        s = s + x ** i
    return s


def unpacked_again(x):
    s = 0.0
    for i in range(3):
        i, j = i * 2, i
        s = s + x * i * j
    return s


def rebound_in_a_branch(x):
    s = 0.0
    for i in range(3):
        if i > 0:
            i = 10
        s = s + x * i
    return s


def rebound_by_an_inner_loop(x):
    s = 0.0
    for i in range(3):
        for i in range(2):
            s = s + x * i
        s = s + x * i * i
    return s


def constant_rows_scaled(x):
    s = 0.0
    for w in [np.array([1.0, 2.0]), np.array([3.0, 4.0])]:
        w = w * 2.0
        s = s + np.sum(w * x)
    return s


def rows_masked(x):
    s = 0.0
    for w in [np.array([1.0, 2.0]), np.array([3.0, 4.0])]:
        if np.sum(w) > 4:
            w = w * 0.0
        s = s + np.sum(w * x)
    return s


def pairs_rebound(x):
    s = 0.0
    for k, v in [(1.0, 2.0), (3.0, 4.0)]:
        k = k * 10
        s = s + x * k + v * x * x
    return s


def read_before_rebound(x):
    s = 0.0
    for i in range(3):
        t = x * i
        i = 5
        s = s + np.sum(t * t) + i * np.sum(x)
    return s


def active_rows_rebound(x):
    s = 0.0
    for row in x:
        row = np.sin(row[::-1])
        s = s + np.sum(row * np.array([1.0, 2.0]))
    return s


SCALAR = [doubled_index, augmented_index, unpacked_again, rebound_in_a_branch,
          rebound_by_an_inner_loop, pairs_rebound]
VECTOR = [constant_rows_scaled, rows_masked, read_before_rebound]


@pytest.mark.parametrize("f", SCALAR, ids=lambda f: f.__name__)
def test_scalar_loops_whose_target_is_rebound(f):
    x = 0.7
    expected = numerical_grad(f, [x], 0)
    assert_close(ad.grad(f)(x), expected)
    assert_close(ad.jvp(f)(x, tangent=1.0)[1], expected)
    second = numerical_grad(lambda v: numerical_grad(f, [v], 0, eps=1e-4), [x], 0, eps=1e-4)
    assert_close(ad.grad(ad.grad(f))(x), second, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("f", VECTOR + [active_rows_rebound], ids=lambda f: f.__name__)
def test_array_loops_whose_target_is_rebound(f):
    x = np.array([[0.3, -0.4], [0.8, 0.1]]) if f is active_rows_rebound else np.array([0.3, -0.4])
    expected = numerical_grad(f, [x], 0)
    assert_close(ad.grad(f)(x), expected)
    tangent = np.ones_like(x)
    assert_close(ad.jvp(f)(x, tangent=tangent)[1], np.sum(expected * tangent))


def read_before_an_inner_loop_reuses_the_name(x):
    s = x[0]
    for i in range(2):
        s = s * x[i]
        for i in range(2):
            s = s + 1.0
    return s


def read_between_two_loops_of_one_name(x):
    s = x[0]
    for i in range(3):
        s = s + x[i] * 0.5
    s = s * x[i]
    for i in range(2):
        s = s + np.sin(s)
    return s


@pytest.mark.parametrize("f", [read_before_an_inner_loop_reuses_the_name,
                               read_between_two_loops_of_one_name], ids=lambda f: f.__name__)
def test_the_backward_loop_gives_its_target_back(f):
    # found by an independent tester: the reversed inner loop left `i` at its own value, and
    # the outer statement's adjoint read that (grad [1.79, 0, 0] where [-0.3, 2.09, 0])
    x = np.array([0.3, -0.5, 0.8])
    expected = numerical_grad(f, [x], 0)
    assert_close(ad.grad(f)(x), expected)
    assert_close(ad.jvp(f)(x, tangent=np.ones(3))[1], np.sum(expected))
