"""Wrong answers and crashes a review found in the day's lowering passes (2026-11-25), each
checked against Python's own value and central differences, or as a clean refusal."""
import math

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad

X = np.array([0.7, -1.3, 2.1])


def _scaled_sine(c):
    return lambda v: np.sin(v * c)


def _inverse_scaler(c):
    inverse = 1.0 / c
    return lambda v: v * inverse


def factory_inside_a_comprehension(x):
    c = x[0]
    return np.sum([np.sum(_scaled_sine(c)(x)) for c in x]) + c


def factory_inside_a_branch_not_taken(x, c):
    return np.sum(_inverse_scaler(c)(x)) if c != 0.0 else np.sum(x)


def keyword_only_default_passed_by_mapping(x):
    s = x[0] * 2.0

    def g(v, *, w=s):
        return v * w
    return np.sum(g(x, w=x[1])) + np.sum(g(x))


def positional_only_parameter_and_a_capture(x):
    s = x[0] * 2.0

    def g(v, /):
        return v - s
    return np.sum(g(x) ** 2)


def starred_parameter_named_like_an_outer_variable(x):
    vs = x * 2.0

    def g(*vs):
        return vs[0] * 3.0
    return np.sum(g(x)) + np.sum(vs)


def imported_on_two_paths(x):
    if x[0] > 0:
        from math import e as c
    else:
        from math import pi as c
    return np.sum(x) * c


def covariance_of_complex_constants(x):
    z = np.array([[1.0 + 2.0j, 0.5 - 1.0j, 2.0 + 0.3j], [0.2 - 0.7j, 1.5 + 0.1j, -1.0 + 1.0j]])
    return np.sum(x) * np.real(np.sum(np.cov(z)))


def integer_sum_with_a_mask(x):
    counts = np.array([1, 2, 3])
    k = np.sum(counts, where=counts > 1)
    return x[k - 4] * 2.0


@pytest.mark.parametrize("fn, args", [
    (factory_inside_a_comprehension, (X,)), (factory_inside_a_branch_not_taken, (X, 0.0)),
    (factory_inside_a_branch_not_taken, (X, 2.0)), (keyword_only_default_passed_by_mapping, (X,)),
    (positional_only_parameter_and_a_capture, (X,)),
    (starred_parameter_named_like_an_outer_variable, (X,)), (imported_on_two_paths, (X,)),
    (imported_on_two_paths, (-X,)), (covariance_of_complex_constants, (X,)),
    (integer_sum_with_a_mask, (X,))])
def test_value_and_gradient_are_pythons(fn, args):
    try:
        value, gradient = ad.value_and_grad(fn)(*args)
    except ad.TransformError as refusal:         # refused at the user's line is fine too
        assert refusal.filename == __file__
        return
    assert value == pytest.approx(fn(*args))
    assert_close(gradient, numerical_grad(fn, args, 0))


def keyword_only_default_and_unpacked_keywords(x):
    s = x[0] * 2.0

    def g(v, *, w=s):
        return v * w
    options = {"w": x[1]}
    return np.sum(g(x, **options))


def test_a_call_with_unpacked_arguments_of_a_function_with_captured_defaults_is_refused():
    with pytest.raises(ad.TransformError, match="with `\\*` or `\\*\\*` arguments") as info:
        ad.grad(keyword_only_default_and_unpacked_keywords)(X)
    assert info.value.filename == __file__


def test_covariance_with_more_degrees_of_freedom_than_observations_is_inf_as_numpy():
    with np.errstate(divide="ignore", invalid="ignore"), pytest.warns(RuntimeWarning):
        expected = np.cov(np.array([[1.0, 2.0], [0.5, 0.1]]), ddof=3)
    from s2s_ad.definitions import cov
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_array_equal(cov(np.array([[1.0, 2.0], [0.5, 0.1]]), ddof=3), expected)


def test_weights_given_as_lists():
    from s2s_ad.definitions import cov
    m = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 2.0]])
    np.testing.assert_allclose(cov(m, fweights=[1, 2, 1], aweights=[0.5, 1.0, 2.0]),
                               np.cov(m, fweights=[1, 2, 1], aweights=[0.5, 1.0, 2.0]))
    assert math.isfinite(float(np.sum(cov(m, aweights=[0.5, 1.0, 2.0]))))
