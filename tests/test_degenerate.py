"""Rules at their degenerate sizes and points: one element, a length-1 axis, ddof, the zero
vector, exponents 0 and 1 at 0. Where the function is locally constant the derivative is 0 (not
0 / 0); where it has no derivative the documented convention (0, JAX's subgradient) holds. Both
modes are checked against central differences, with NumPy's divide/invalid warnings as errors,
so a rule that computes NaN or inf and then drops it cannot pass."""
import math

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def check_both_modes(f, args, k=0):
    """grad and jvp of scalar `f` with respect to args[k] against central differences."""
    expected = numerical_grad(f, args, k)
    tangent = np.random.default_rng(0).standard_normal(np.shape(args[k]))
    tangent = float(tangent) if np.ndim(args[k]) == 0 else tangent
    with np.errstate(divide="raise", invalid="raise"):
        gradient = ad.grad(f, wrt=k)(*args)
        _, directional = ad.jvp(f, wrt=k)(*args, tangent=tangent)
    assert np.shape(gradient) == np.shape(args[k])
    assert_close(gradient, expected)
    assert_close(directional, np.sum(expected * tangent))


def check_hvp(f, x):
    """hvp of `f` along ones against central differences of its gradient."""
    v = np.ones_like(x)
    gradient = ad.grad(f)
    expected = numerical_grad(lambda x: np.sum(gradient(x) * v), [x], 0)
    with np.errstate(divide="raise", invalid="raise"):
        assert_close(ad.hvp(f)(x, vector=v), expected)


# --- std, var, norm: locally constant, or no derivative (then 0) -------------------------------
def std_all(x): return np.std(x)
def std_rows(x): return np.sum(np.std(x, axis=1) * np.arange(1.0, 4.0))
def std_method(x): return x.std(axis=0, keepdims=True).sum() + np.sum(x)
def var_one(x): return np.var(x) + np.var(x, axis=1).sum()
def std_times(x): return np.std(x) * np.sum(x ** 2)
def norm_all(x): return np.linalg.norm(x) + np.sum(x)
def norm_rows(x): return np.sum(np.linalg.norm(x, axis=1) * np.arange(1.0, 4.0))
def norm_p(x): return np.linalg.norm(x, 3) + np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf)
def norm_matrix(x): return np.linalg.norm(x, 2) + np.linalg.norm(x, "nuc") + np.sum(x)
def hypot_origin(x): return np.sum(np.hypot(x, 0.0 * x))
def mean_one(x): return np.mean(x, axis=1).sum() + np.nanmean(x)


@pytest.mark.parametrize("f, x", [
    (std_all, np.array([2.0])),                      # one element: std is the constant 0
    (std_all, 2.0),                                  # a Python float
    (std_all, np.array([[1.5]])),
    (std_rows, np.array([[1.0], [-2.0], [0.5]])),    # length-1 axis
    (std_method, np.array([[1.0, 2.0]])),
    (std_times, np.array([0.7])),
    (var_one, np.array([[0.3], [1.2]])),
    (mean_one, np.array([[0.3], [1.2]])),
    (std_rows, np.array([[1.0, 1.0], [-2.0, 0.5], [3.0, 3.0]])),   # equal entries: 0
    (norm_all, np.zeros(3)),                         # the zero vector: 0
    (norm_rows, np.array([[0.0, 0.0], [1.0, -2.0], [0.0, 0.0]])),
    (norm_p, np.zeros(4)),
    (norm_matrix, np.zeros((2, 3))),
    (hypot_origin, np.array([0.0, 1.5])),
])
def test_degenerate_reductions_have_zero_derivative(f, x):
    check_both_modes(f, [x])


@pytest.mark.parametrize("f, x", [
    (std_all, np.array([2.0])), (std_rows, np.array([[1.0], [-2.0], [0.5]])),
    (std_times, np.array([0.7])),
])
def test_degenerate_std_second_order(f, x):
    check_hvp(f, x)


def norm_rows_squared(x): return np.sum(np.linalg.norm(x, axis=1) * np.sum(x ** 2))


def test_norm_of_a_zero_row_has_finite_second_derivative():
    # no Hessian exists at the zero row: its part is 0 by the convention; the others are exact
    x = np.array([[0.0, 0.0], [1.0, -2.0]])
    with np.errstate(divide="raise", invalid="raise"):
        h = ad.hvp(norm_rows_squared)(x, vector=np.ones_like(x))
    assert np.all(np.isfinite(h))
    smooth = np.array([[1e-3, 0.0], [1.0, -2.0]])     # away from the zero row: central differences
    gradient = ad.grad(norm_rows_squared)
    expected = numerical_grad(lambda x: np.sum(gradient(x)), [smooth], 0)
    assert_close(ad.hvp(norm_rows_squared)(smooth, vector=np.ones_like(smooth))[1], expected[1],
                 rtol=1e-5)


def var_ddof(x): return np.var(x, ddof=3)
def std_ddof(x): return np.std(x, ddof=2)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("f", [var_ddof, std_ddof])
def test_ddof_past_the_count_gives_no_finite_derivative(f):
    # NumPy divides by max(count - ddof, 0): the value is inf or NaN, and so is the derivative
    # (it was a finite number of the wrong sign, dividing by count - ddof < 0)
    x = np.array([1.0, 2.0])
    assert not np.isfinite(f(x))
    assert not np.any(np.isfinite(ad.grad(f)(x)))
    assert not np.isfinite(ad.jvp(f)(x, tangent=np.ones(2))[1])


def test_nanmean_of_an_all_nan_group_has_zero_derivative():
    x = np.array([[np.nan, np.nan], [1.0, 3.0]])
    with np.errstate(divide="raise", invalid="raise"), pytest.warns(RuntimeWarning):
        gradient = ad.grad(lambda_free_nanmean)(x)
    assert_close(gradient, [[0.0, 0.0], [0.5, 0.5]])
    with pytest.warns(RuntimeWarning):
        _, directional = ad.jvp(lambda_free_nanmean)(x, tangent=np.ones_like(x))
    assert_close(directional, 1.0)


def lambda_free_nanmean(x): return np.nansum(np.nanmean(x, axis=1))


# --- powers at 0 ---------------------------------------------------------------------------------
def power_zero(x): return np.power(x, 0.0)
def power_zero_sum(x): return np.sum(np.power(x, 0.0))
def pow_literals(x): return np.sum(x ** 0 + x ** 1 + x ** 2 + 3.0 * x ** 0.0)
def pow_float_literals(x): return x ** 0 + x ** 1 + x ** 2 + x ** 0.0
def math_pow(x): return math.pow(x, 0.0) + math.pow(x, 1.0) + math.pow(x, 2.0)
def builtin_pow(x): return pow(x, 0.0) + pow(x, 2) + pow(x, 1)
def pow_variable(x, y): return np.sum(np.power(x, y))
def pow_variable_float(x, y): return x ** y


@pytest.mark.parametrize("f, x", [
    (power_zero, 0.0), (power_zero_sum, np.zeros(3)), (power_zero_sum, np.array([0.0, 1.5])),
    (pow_literals, np.array([0.0, -1.0, 2.0])), (pow_float_literals, 0.0), (math_pow, 0.0),
    (builtin_pow, 0.0),
])
def test_powers_at_zero(f, x):
    check_both_modes(f, [x])


@pytest.mark.parametrize("f, x", [
    (pow_literals, np.array([0.0, -1.0, 2.0])), (power_zero_sum, np.zeros(2)),
])
def test_powers_at_zero_second_order(f, x):
    check_hvp(f, x)


def test_variable_exponent_at_zero_base():
    x = np.zeros(4)
    check_both_modes(pow_variable, [x, np.array([0.0, 1.0, 2.0, 3.0])], 0)
    # d/dy of 0 ** y is 0 for y > 0 (taken as 0 at x == 0, as JAX does)
    check_both_modes(pow_variable, [x, np.array([0.5, 1.0, 2.0, 3.0])], 1)


def test_variable_exponent_zero_python_floats():
    check_both_modes(pow_variable_float, [0.0, 0.0], 0)
    check_both_modes(pow_variable_float, [0.0, 2.0], 1)


# Open: the convention "0 where the function has no derivative" (norm at 0, std of equal
# entries) holds for first derivatives, but a smooth function built on them then gets a silently
# wrong second derivative there (it was NaN before the convention: loud, as in JAX).
def squared_norm(x):
    return np.linalg.norm(x) ** 2


def squared_std(x):
    return np.std(x) ** 2


@pytest.mark.xfail(strict=True, reason="second derivative through the 0 convention at a "
                                       "degenerate point is 0, not the smooth function's")
@pytest.mark.parametrize("fn, x, expected", [
    (squared_norm, np.zeros(2), 2.0 * np.eye(2)),                       # |x|^2: 2 I
    (squared_std, np.full(3, 2.0), (2.0 / 3.0) * (np.eye(3) - 1.0 / 3.0)),  # var(x)
], ids=["norm-squared-at-0", "std-squared-at-equal-entries"])
def test_hessian_of_a_smooth_function_through_a_degenerate_point(fn, x, expected):
    np.testing.assert_allclose(ad.hessian(fn)(x), expected, atol=1e-9)
