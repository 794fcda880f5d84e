"""Reverse mode through Python control flow, checked against central finite differences."""
import numpy as np
import pytest

import cf_programs as P
import s2s_ad as ad
from fd import assert_close, numerical_grad, numerical_vjp

rng = np.random.default_rng(42)


def vec(n=4, scale=1.0, shift=0.0):
    return lambda: rng.normal(size=n) * scale + shift


# (function, argument makers, wrt): each row exercises one path of one program
CASES = [
    (P.if_else, [vec(shift=2)], 0),
    (P.if_else, [vec(shift=-2)], 0),
    (P.if_elif_else, [vec(shift=1)], 0),
    (P.if_elif_else, [lambda: np.array([0.1, -0.2, 0.05, 0.0])], 0),
    (P.if_elif_else, [vec(shift=-2)], 0),
    (P.nested_if, [vec(shift=2), vec(shift=2)], (0, 1)),
    (P.nested_if, [vec(shift=2), vec(shift=-2)], (0, 1)),
    (P.nested_if, [vec(shift=-2), vec()], (0, 1)),
    (P.if_without_else, [vec(shift=1)], 0),
    (P.if_without_else, [vec(shift=-1)], 0),
    (P.ternary, [vec(shift=2)], 0),
    (P.ternary, [vec(shift=-2)], 0),
    (P.bool_ops, [lambda: np.array([0.5, 1.0, 2.0, 0.3])], 0),
    (P.bool_ops, [lambda: np.array([-2.0, -1.0, -2.0, 0.3])], 0),
    (P.bool_ops, [lambda: np.array([-2.0, 1.0, -2.0, 0.3])], 0),
    (P.chained_comparison, [lambda: np.array([0.5, 1.0, 2.0])], 0),
    (P.chained_comparison, [lambda: np.array([1.5, 1.0, 2.0])], 0),
    (P.norm_condition, [vec()], 0),
    (P.while_data, [vec(scale=0.3, shift=1)], 0),
    (P.while_data, [lambda: np.full(4, 5.0)], 0),
    (P.while_break, [vec(scale=0.1)], 0),
    (P.while_break, [vec(scale=0.1, shift=5)], 0),
    (P.while_continue, [vec()], 0),
    (P.nested_while, [vec()], 0),
    (P.for_range_runtime_bounds, [vec(5, 0.5)], 0),
    (P.for_rows, [lambda: rng.normal(size=(3, 4))], 0),
    (P.for_enumerate, [vec()], 0),
    (P.for_zip, [vec(), vec(5)], (0, 1)),
    (P.for_reversed, [vec(6)], 0),
    (P.for_nested, [lambda: rng.normal(size=(3, 4))], 0),
    (P.for_break, [lambda: np.array([0.5, 0.6, 1.5, 0.2, 3.0])], 0),
    (P.for_break, [lambda: np.array([0.1, 0.2, 0.1])], 0),
    (P.for_continue, [lambda: np.array([0.5, -0.6, 1.5, -0.2, 3.0])], 0),
    (P.early_return, [vec(shift=2)], 0),
    (P.early_return, [vec(shift=-2)], 0),
    (P.return_in_loop, [lambda: np.array([0.3, 0.4, 0.5, 0.6])], 0),
    (P.return_in_loop, [lambda: np.array([0.1, 0.1, 0.1])], 0),
    (P.multiple_returns, [lambda: np.array([2.0, 0.5])], 0),
    (P.multiple_returns, [lambda: np.array([0.7, 0.5])], 0),
    (P.multiple_returns, [lambda: np.array([-0.7, -0.5])], 0),
    (P.augassign, [vec(scale=0.5)], 0),
    (P.augassign_then_write, [vec(3)], 0),
    (P.while_else_break, [lambda: np.array([0.5, 1.2, 0.3, 2.0])], 0),      # breaks
    (P.while_else_break, [lambda: np.array([0.5, 0.2, 0.3])], 0),           # runs else
    (P.for_else_break, [lambda: np.array([0.5, -1.2, 0.3])], 0),            # breaks
    (P.for_else_break, [lambda: np.array([0.5, 1.2, 0.3])], 0),             # runs else
    (P.write_then_augassign_argument, [vec(3)], 0),
    (P.rebind_then_write_in_loop, [vec(3)], 0),
    (P.loop_over_expression, [vec(3)], 0),
    (P.setitem, [vec(3)], 0),
    (P.setitem_loop, [vec(5)], 0),
    (P.setitem_column, [lambda: rng.normal(size=(3, 3)), vec(3)], (0, 1)),
    (P.setitem_argument, [vec(3)], 0),
    (P.cumprod, [vec(5, 0.5, 1.0)], 0),
    (P.rnn, [lambda: rng.normal(size=(20, 3)), lambda: rng.normal(size=(4, 4)) * 0.5,
             lambda: rng.normal(size=(4, 3)) * 0.5], (0, 1, 2)),
    (P.newton_sqrt, [lambda: float(rng.uniform(1, 9))], 0),
    (P.newton_while, [lambda: float(rng.uniform(1, 9))], 0),
    (P.loop_in_branch, [vec(shift=2)], 0),
    (P.loop_in_branch, [vec(shift=-2)], 0),
    (P.branch_in_loop, [vec(scale=0.5, shift=0.5)], 0),
    (P.variable_defined_in_loop, [vec(scale=0.3)], 0),
]


def _copies(args):
    return [a.copy() if hasattr(a, "copy") else a for a in args]


def _check(fn, args, wrt):
    wrts = wrt if isinstance(wrt, tuple) else (wrt,)
    value, grads = ad.value_and_grad(fn, wrt=wrt)(*_copies(args))
    assert_close(value, fn(*_copies(args)))
    grads = grads if isinstance(wrt, tuple) else (grads,)
    for argnum, g in zip(wrts, grads):
        expected = numerical_grad(lambda *a: fn(*[b.copy() if hasattr(b, "copy") else b for b in a]),
                                  args, argnum)
        assert np.shape(g) == np.shape(args[argnum])
        assert_close(g, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn, makers, wrt", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_gradient_matches_finite_differences(fn, makers, wrt):
    _check(fn, [m() for m in makers], wrt)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_for_range_trip_counts(n):
    x = rng.normal(size=4)
    g = ad.grad(P.for_range)(x, n)
    expected = np.zeros(4)
    expected[:n] = 2 * x[:n]
    assert_close(g, expected)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_zero_one_many_trips(n):
    _check(P.zero_trip, [rng.normal(size=3), n], 0)


def test_augassign_on_scalars():
    a = 1.7
    assert_close(ad.grad(P.augassign_scalar)(a), 2 * a + 2.0)


@pytest.mark.parametrize("a", [rng.normal(), -0.37, 1e-3, 250.0])
def test_tutorial_scalar_is_f_over_a(a):
    a = np.float64(a)              # a NumPy scalar, as in the tutorial (`b.sum()` needs one)
    assert_close(ad.grad(P.tutorial)(a), P.tutorial(a) / a)
    assert_close(ad.vjp(P.tutorial)(np.float64(a), seed=np.float64(1.0))[1], P.tutorial(a) / a)


def test_tutorial_vector_with_seed_of_ones():
    a = rng.normal(size=5)
    value, g = ad.vjp(P.tutorial)(a, seed=np.ones(5))
    assert_close(g, P.tutorial(a) / a)


def test_derivative_does_not_modify_the_callers_array():
    x = np.array([1.0, 2.0, 3.0])
    before = x.copy()
    ad.grad(P.setitem_argument)(x)
    np.testing.assert_array_equal(x, before)


def test_vjp_through_loops_with_seed():
    xs = rng.normal(size=(6, 3))
    W, U = rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(4, 3)) * 0.5
    seed = 2.5
    _, g = ad.vjp(P.rnn, wrt=1)(xs, W, U, seed=np.float64(seed))
    assert_close(g, seed * numerical_grad(P.rnn, [xs, W, U], 1), rtol=1e-5)


def test_a_view_read_after_its_base_is_written_is_refused():
    with pytest.raises(ad.TransformError, match="changes `first`, a view of it") as info:
        ad.grad(P.view_read_after_write)(np.ones(3))
    assert "hint: take a copy (`first = out[0:2].copy()`)" in str(info.value)


def test_a_view_read_before_its_base_is_written_is_differentiated():
    _check(P.view_read_before_write, [rng.normal(size=3)], 0)
