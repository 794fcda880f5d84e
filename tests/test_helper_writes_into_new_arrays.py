"""A helper of the user's that writes into its argument, given a NumPy call that makes a new
array (issue 15): `halve(np.tanh(x))`. Only the helper holds that array; the caller's rules that
read it (tanh's adjoint reads `np.tanh(x)`) see it as it was, since the helper's derivative
writes into its own copy. Every mode against central finite differences (HIPS autograd cannot
run in-place writes). A call that may return a view of the caller's array stays refused."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode

X = np.array([0.3, -0.7, 1.1, 0.4])


def halve(a):
    a *= 0.5
    return a


def damp_first(a):
    a[0] *= np.cos(a[1])
    a += a[2]
    return a


def halve_tanh(x):
    return np.sum(halve(np.tanh(x)) * x)


def twice_with_results_read(x):
    y = np.exp(x)
    return np.sum(damp_first(np.tanh(x)) * y) + np.sum(halve(np.exp(x * 0.5)) ** 2)


def a_reduction_and_a_product(x):
    m = np.outer(x, x)
    return np.sum(damp_first(np.sum(m, axis=0)) * np.sin(x)) + np.sum(halve(np.dot(m, x)))


@pytest.mark.parametrize("fn", [halve_tanh, twice_with_results_read, a_reduction_and_a_product])
def test_every_mode(fn):
    check_every_mode(fn, X, autograd_runs=False)


def halve_a_view(x):
    y = x * 2.0
    h = halve(np.reshape(y, (2, 2)))
    return np.sum(h) + np.sum(y * x)


def halve_as_given(x):
    y = x * 2.0
    h = halve(np.asarray(y))
    return np.sum(h) + np.sum(y * x)


@pytest.mark.parametrize("fn", [halve_a_view, halve_as_given])
@pytest.mark.parametrize("transform", [ad.grad, lambda f: (lambda x: ad.jvp(f)(x, tangent=x))])
def test_a_call_that_may_return_the_callers_array_stays_refused(fn, transform):
    with pytest.raises(ad.TransformError):
        transform(fn)(X)
