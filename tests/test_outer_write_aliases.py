"""A write into a module-level array through another name (`b = BUF.reshape(3); b[:] = x`) is
refused like the direct write (found by review, 2026-11-24: the gradient through BUF was 0)."""
import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad.errors import TransformError

BUF = np.zeros(3)


def through_reshape(x):
    b = BUF.reshape(3)
    b[:] = x
    return np.sum(BUF ** 2)


def through_a_name(x):
    b = BUF
    b[:] = x
    return np.sum(BUF ** 2)


@pytest.mark.parametrize("fn", [through_reshape, through_a_name])
def test_a_write_into_a_module_level_array_through_an_alias(fn):
    x = np.array([0.3, -1.2, 0.7])
    try:
        gradient = ad.grad(fn)(x)
    except TransformError:
        return                                      # refused: right
    np.testing.assert_allclose(gradient, 2 * x)     # d/dx sum(x ** 2)


def through_a_list_entry(x):
    xs = [None]
    xs[0] = BUF                     # the list holds BUF itself
    xs[0][:] = x
    return np.sum(BUF ** 2)


def through_a_list_made_around_it(x):
    xs = [BUF]
    xs[0][:] = x
    return np.sum(BUF ** 2)


@pytest.mark.parametrize("derivative", ["grad", "jvp"])
@pytest.mark.parametrize("fn", [through_reshape, through_a_name, through_a_list_entry,
                                through_a_list_made_around_it])
def test_both_modes_refuse_or_follow_the_write(fn, derivative):
    x = np.array([0.3, -1.2, 0.7])
    tangent = np.array([1.0, 0.5, -2.0])
    try:
        if derivative == "grad":
            np.testing.assert_allclose(ad.grad(fn)(x), 2 * x)
        else:
            np.testing.assert_allclose(ad.jvp(fn)(x, tangent=tangent)[1], 2 * x @ tangent)
    except TransformError as error:
        assert error.filename == __file__           # refused, naming this file: right
