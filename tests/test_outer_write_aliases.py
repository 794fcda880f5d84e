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
