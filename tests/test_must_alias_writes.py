"""Writes into an array two names hold (issue 15): `z = y; z += 1.0; y[0] = ...`, then both
names read. NumPy gives this one meaning, both names see every write; the derivative follows it
(GuardAliasedUpdates binds the other name to the array after the write, where it is that very
array as the function runs) instead of refusing. Every mode against central finite differences
(HIPS autograd cannot run in-place writes). A name that holds a view of the array, not the
array itself, stays refused."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode

X = np.array([0.3, -0.7, 1.1, 0.4])


def update_then_write(x):
    y = x * 1.0
    z = y
    z += 1.0
    y[0] = np.sin(x[1])
    return np.sum(y * z)


def write_through_the_other_name(x):
    y = np.tanh(x)
    z = y
    z[1] = x[2] * x[0]
    z[2:] *= x[:2]
    return np.sum(np.exp(y) * x) + np.sum(z ** 2)


def in_a_loop(x):
    y = x ** 2
    alias = y
    for i in range(3):
        y[i + 1] = np.cos(alias[i]) * x[i]
    return np.sum(alias * y)


def on_one_path(x, flag=True):
    y = x * 2.0
    if flag:
        z = y
    else:
        z = y.copy()
    y[0] = np.sin(x[3])
    return np.sum(z * x)


def on_the_other_path(x):
    return on_one_path(x, flag=False)


@pytest.mark.parametrize("fn", [update_then_write, write_through_the_other_name, in_a_loop,
                                on_one_path, on_the_other_path])
def test_every_mode(fn):
    check_every_mode(fn, X, autograd_runs=False)


def a_view_not_the_array(x):
    y = x * 1.0
    z = y[1:]
    y[1] = np.sin(x[0])
    return np.sum(z * x[1:])


@pytest.mark.parametrize("transform", [ad.grad, lambda f: (lambda x: ad.jvp(f)(x, tangent=x))])
def test_a_view_read_after_the_write_stays_refused(transform):
    with pytest.raises(ad.TransformError):
        transform(a_view_not_the_array)(X)
