"""A write through a view (or another name) of an array that nothing else reads afterwards
(issue 15): `e7, e8 = x` (rows of the argument), then `e8[0] = ...`, with `x` and `e7` not
read again. Only `e8` sees the write, so it is differentiated instead of refused (the backward
pass undoes the write before it reads what was saved there). Every mode against central
finite differences (HIPS autograd cannot run in-place writes). Where the array is read
afterwards, the write is written back into it (passes/write_back_views.py, tested here too);
where another view of an array the function cannot name is read afterwards, it stays refused."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode

X = np.array([0.3, -0.7, 1.1, 0.4, 0.9, -0.2])


def rows_of_the_argument(x):
    m = x.reshape(2, 3)
    e7, e8 = m
    z = np.tanh(e8)
    e8[0] = np.sin(e7[1]) * z[1]
    e8[1:] *= z[:2]
    return np.sum(e8 * z)


def a_slice_of_a_new_array(x):
    y = np.exp(x)
    head = y[:3]
    t = np.sum(y)
    head[1] = head[0] * t
    return np.sum(head ** 2)


def base_read_later(x):
    y = x * 1.0
    head = y[:3]
    head[1] = np.sin(x[0])
    return np.sum(head) + np.sum(y * x)


@pytest.mark.parametrize("fn", [rows_of_the_argument, a_slice_of_a_new_array, base_read_later])
def test_every_mode(fn):
    check_every_mode(fn, X, autograd_runs=False)


def sibling_read_later(x):
    e7, e8 = x.reshape(2, 3) * 1.0
    e8[0] = np.sin(e7[1])
    return np.sum(e8 ** 2) + np.sum(e7)


@pytest.mark.parametrize("fn", [sibling_read_later])
@pytest.mark.parametrize("transform", [ad.grad, lambda f: (lambda x: ad.jvp(f)(x, tangent=x))])
def test_a_write_another_name_reads_later_stays_refused(fn, transform):
    with pytest.raises(ad.TransformError):
        transform(fn)(X)
