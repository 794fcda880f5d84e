"""NumPy's masked arrays and np.matrix mean something else than plain arrays (a masked entry
is left out of a sum; `*` of matrices is a matrix product), which the rules do not follow: an
argument holding one gave a silently wrong gradient (2026-11-29). It is refused, naming the
argument and what to pass instead."""
import warnings

import numpy as np
import pytest

import s2s_ad as ad


def sum_of_squares(x):
    return np.sum(x ** 2)


def first_entry_squared(xs):
    return np.sum(xs["a"] ** 2)


MASKED = np.ma.array([1.0, 2.0, 3.0], mask=[False, True, False])
with warnings.catch_warnings():         # np.matrix is pending deprecation: still met
    warnings.simplefilter("ignore", PendingDeprecationWarning)
    MATRIX = np.matrix([[1.0, 2.0], [3.0, 4.0]])


@pytest.mark.parametrize("derivative", [
    lambda f, x: ad.grad(f)(x), lambda f, x: ad.value_and_grad(f)(x),
    lambda f, x: ad.jvp(f)(x, tangent=np.ones(np.shape(x)))], ids=["grad", "value_and_grad", "jvp"])
@pytest.mark.parametrize("value, said", [(MASKED, r"`x` holding a masked array.*x\.filled"),
                                         (MATRIX, r"`x` holding a np\.matrix.*np\.asarray\(x\)")],
                         ids=["masked", "matrix"])
def test_an_argument_of_another_meaning_is_refused(derivative, value, said):
    with pytest.raises(TypeError, match=said):
        derivative(sum_of_squares, value)


def test_one_inside_a_container_is_named_by_its_path():
    with pytest.raises(TypeError, match=r"`xs\['a'\]` holding a masked array"):
        ad.grad(first_entry_squared)({"a": MASKED})


def test_plain_arrays_and_what_the_hint_passes_still_work():
    np.testing.assert_allclose(ad.grad(sum_of_squares)(MASKED.filled(0.0)), [2.0, 0.0, 6.0])
    np.testing.assert_allclose(ad.grad(sum_of_squares)(np.asarray(MATRIX)), 2 * np.asarray(MATRIX))
