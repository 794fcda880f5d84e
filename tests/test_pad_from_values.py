"""np.pad in the modes that compute the padding from the values ('maximum', 'mean', 'median',
'minimum', 'linear_ramp'), differentiated through their definition in Python
(s2s_ad/definitions.pad_from_values, chosen by passes/use_definitions.py from the constant mode):
values equal NumPy's, both modes and second order against central differences of NumPy's np.pad."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad

WEIGHTS = np.arange(42.0).reshape(6, 7) / 10.0


def mean_padded(x):
    return np.sum(np.pad(x, ((1, 2), (2, 1)), mode="mean") ** 2 * WEIGHTS)


def maximum_of_two(x):
    return np.sum(np.pad(x, ((1, 2), (2, 1)), mode="maximum", stat_length=2) ** 2 * WEIGHTS)


def minimum_positional(x):
    return np.sum(np.pad(x, ((1, 2), (2, 1)), "minimum") * WEIGHTS)


def median_per_side(x):
    padded = np.pad(x, ((1, 2), (2, 1)), mode="median", stat_length=((1, 2), (3, 1)))
    return np.sum(padded ** 2 * WEIGHTS)


def ramp_to_ends(x):
    padded = np.pad(x, ((1, 2), (2, 1)), mode="linear_ramp", end_values=((1.0, 2.0), (3.0, 4.0)))
    return np.sum(padded ** 2 * WEIGHTS)


def ramp_of_a_vector(x):
    return np.sum(np.sin(np.pad(x[0], 3, mode="linear_ramp")) * np.arange(10.0))


def mean_on_one_side(x):
    return np.sum(np.pad(x, ((0, 0), (0, 2)), mode="mean") ** 3)


PROGRAMS = [mean_padded, maximum_of_two, minimum_positional, median_per_side, ramp_to_ends,
            ramp_of_a_vector, mean_on_one_side]
# distinct entries: no ties for maximum, minimum and median
X = np.array([[0.3, -1.2, 2.0, 0.7], [1.1, 0.45, -0.6, 1.9], [-0.2, 0.85, 1.4, -1.7]])


@pytest.mark.parametrize("fn", PROGRAMS)
def test_value_and_gradient(fn):
    value, gradient = ad.value_and_grad(fn)(X)
    assert_close(value, fn(X), rtol=1e-12)
    assert_close(gradient, numerical_grad(fn, (X,), 0))


@pytest.mark.parametrize("fn", PROGRAMS)
def test_tangent(fn):
    direction = np.cos(np.arange(12.0)).reshape(3, 4)
    _, tangent = ad.jvp(fn)(X, tangent=direction)
    assert_close(tangent, np.sum(numerical_grad(fn, (X,), 0) * direction))


@pytest.mark.parametrize("fn", [mean_padded, ramp_to_ends])
def test_hessian_vector_product(fn):
    direction = np.cos(np.arange(12.0)).reshape(3, 4)
    product = ad.hvp(fn)(X, vector=direction)
    expected = (ad.grad(fn)(X + 1e-5 * direction) - ad.grad(fn)(X - 1e-5 * direction)) / 2e-5
    assert_close(product, expected, rtol=1e-5, atol=1e-6)


def integer_mean(x):
    return np.sum(np.pad(np.arange(5), 2, mode="mean") * x)


def test_an_integer_array_is_padded_as_numpy_rounds_it():
    # NumPy rounds an integer array's mean; the definition hands integers to NumPy itself
    x = np.linspace(0.0, 1.0, 9)
    assert_close(ad.grad(integer_mean)(x), np.pad(np.arange(5), 2, mode="mean"))


def inside_of_an_empty_padding(x):
    # 'empty' leaves the padding as the memory was: no input changes it, so its derivative is
    # a constant's (the interior's is the array's own)
    return np.sum(np.pad(x, ((1, 0), (0, 2)), mode="empty")[1:, :4] ** 2)


def test_empty_padding_differentiates_as_a_constant_band():
    assert_close(ad.grad(inside_of_an_empty_padding)(X), 2 * X)
    direction = np.cos(np.arange(12.0)).reshape(3, 4)
    assert_close(ad.jvp(inside_of_an_empty_padding)(X, tangent=direction)[1],
                 np.sum(2 * X * direction))


def padded_by_a_mode_given(x, mode):
    return np.sum(np.pad(x, 1, mode=mode) ** 2)


def test_a_mode_given_as_a_value_is_refused_at_the_users_line():
    # a NotImplementedError from s2s_ad's runtime until 2026-11-29; 'edge' works either way
    x = np.array([1.0, 2.0, 4.0])
    np.testing.assert_allclose(ad.grad(padded_by_a_mode_given)(x, "edge"), [4.0, 4.0, 16.0])
    for run in (lambda: ad.grad(padded_by_a_mode_given)(x, "mean"),
                lambda: ad.jvp(padded_by_a_mode_given)(x, "mean", tangent=np.ones(3))):
        with pytest.raises(ad.TransformError, match="mode 'mean' is differentiated where the "
                                                     "call names it") as error:
            run()
        assert error.value.filename == __file__ and error.value.hint == \
            "write the mode in the call: np.pad(..., mode='mean')"
