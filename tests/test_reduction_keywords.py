"""`where=`, `initial=` and `dtype=` on NumPy's reductions and their methods, lowered to the
functions with rules (passes/lower_reduction_keywords.py): values equal NumPy's, derivatives
match central differences in both modes and at second order."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad

A = np.random.default_rng(3).normal(size=(3, 4))


def max_where_initial(a): return np.sum(a.max(axis=1, where=a > -0.5, initial=-3.0))
def prod_where(a): return np.prod(a, axis=0, where=a > -0.5).sum()
def mean_where_axis(a): return np.mean(a, axis=1, where=a > -0.5).sum()
def mean_where_method(a): return a.mean(where=a > -0.5)
def min_initial(a): return np.min(a, initial=0.0)
def amax_initial(a): return np.amax(a ** 2, axis=0, initial=0.5).sum()
def sum_where_initial_keepdims(a):
    return np.sum(a.sum(axis=0, keepdims=True, where=a > -0.5, initial=2.0) ** 2)
def prod_initial(a): return np.prod(a[0], initial=3.0)
def sum_dtype(a): return np.sum(np.sin(a), dtype=np.float64)
def mean_where_keepdims(a):
    return np.sum(np.mean(a, axis=0, keepdims=True, where=a > np.min(a, axis=0)) * a)


@pytest.mark.parametrize("fn", [
    max_where_initial, prod_where, mean_where_axis, mean_where_method, min_initial, amax_initial,
    sum_where_initial_keepdims, prod_initial, sum_dtype, mean_where_keepdims])
def test_reduction_keywords(fn):
    value, gradient = ad.value_and_grad(fn)(A)
    assert value == pytest.approx(fn(A), rel=1e-14)
    expected = numerical_grad(fn, (A,), 0)
    assert_close(gradient, expected)
    direction = np.cos(np.arange(A.size)).reshape(A.shape)
    assert ad.jvp(fn)(A, tangent=direction)[1] == pytest.approx(np.sum(expected * direction),
                                                               rel=1e-6, abs=1e-8)
    g = ad.grad(fn)
    assert_close(ad.hvp(fn)(A, vector=direction),
                 (g(A + 1e-6 * direction) - g(A - 1e-6 * direction)) / 2e-6, rtol=1e-5, atol=1e-6)


def sum_in_single_precision(a):
    return a.sum(dtype=np.float32)


def test_a_dtype_keyword_computes_in_that_dtype():
    value, gradient = ad.value_and_grad(sum_in_single_precision)(A)
    assert value.dtype == np.float32 and value == sum_in_single_precision(A)
    assert_close(gradient, np.ones_like(A))


def max_where_without_initial(a):
    return np.max(a, where=a > 0)


def test_what_numpy_refuses_stays_refused():
    with pytest.raises(ValueError):
        max_where_without_initial(A)
    with pytest.raises((ValueError, ad.TransformError)):
        ad.grad(max_where_without_initial)(A)
