"""A write through a view, recorded on its base (issue 15, passes/write_back_views.py):
`e7, e8 = x` (rows of the argument), `v = y[0, 1:]`, then `e8[0] = ...`, `v *= ...`,
`e1 /= ...`, with the base (or another view of it) read afterwards. NumPy's write changes the
base; the derivative writes the view back into it right after (`x[1] = e8`, no change in
memory), so later reads see the write. A number read out of a 1-D array (`v = y[0]; v += 1.0`)
is rebound, not written back. Every mode against central finite differences (HIPS autograd
cannot run in-place writes). An array a tuple holds is followed by binding the tuple to a new
tuple of the same arrays; one array at two entries of a tuple is refused when it runs."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import numerical_grad
from oracle_checks import check_every_mode

X = np.array([0.3, -0.7, 1.1, 0.4, 0.9, -0.2])


def rows_then_the_argument(x):
    m = x.reshape(2, 3) * 1.0
    e7, e8 = m
    e8[0] = e7[2] * e7[1]
    w = np.copy(e7)
    return np.sum(np.cos(m[1]) * e8) + np.sum(w * e7) + np.sum(m * m)


def a_row_divided(x):
    m = np.outer(x[:2], x[2:5])
    e1, e2 = m
    e1 /= (1.0 + e2[0] ** 2)
    return np.sum(m * m) + np.sum(e2)


def a_slice_updated_twice(x):
    y = x.reshape(2, 3) * 2.0
    v = y[0, 1:]
    v *= np.sin(y[1, :2])
    v[0] = y[1, 2]
    return np.sum(y ** 2)


def a_sibling_read_later(x):
    y = np.tanh(x).reshape(3, 2)
    a, b, c = y
    b[1] = a[0] * c[1]
    return np.sum(a * c) + np.sum(b) + np.sum(y[1] ** 2)


def a_number_rebound(x):
    y = x * 1.0
    v = y[0]
    v += 1.0                   # a number: y[0] is as it was
    return np.sum(y * x) + v * x[1]


def rows_unpacked_twice(x):
    # e4 is e2: bound again from m after the write back, it sees the write
    m = np.outer(x[:2], x[2:5]) * 1.0
    e1, e2 = m
    e3, e4 = m
    e2[:2] *= 0.5 + 0.5 * np.tanh(e1[:2])
    return np.sum(np.sin(e2)) + np.dot(e4 * e1, e4[[1, 2, 0]]) + np.sum(e3)


def overlapping_slices(x):
    y = x.reshape(2, 3) * 2.0
    v = y[0, 1:]
    w = y[0, :2]
    v *= np.sin(y[1, :2])
    return np.sum(w ** 2) + np.sum(y * x.reshape(2, 3))


@pytest.mark.parametrize("fn", [rows_then_the_argument, a_row_divided, a_slice_updated_twice,
                                a_sibling_read_later, a_number_rebound, rows_unpacked_twice,
                                overlapping_slices])
def test_every_mode(fn):
    check_every_mode(fn, X, autograd_runs=False)


def tuple_read_later(t):
    a, b = t
    b[0] = np.sin(a[1])
    b *= a[2]
    return np.sum(t[1] * a) + np.sum(t[0] ** 2)


def test_an_array_a_tuple_holds_is_followed():
    # the tuple is bound to a new tuple of the same arrays: `t = with_entry(t, 1, b)`
    a, b = X[:3], X[3:]
    grads = ad.grad(tuple_read_later)((a.copy(), b.copy()))
    np.testing.assert_allclose(grads[0], numerical_grad(
        lambda v: tuple_read_later((v.copy(), b.copy())), (a,), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(grads[1], numerical_grad(
        lambda v: tuple_read_later((a.copy(), v.copy())), (b,), 0), rtol=1e-6, atol=1e-8)
    direction = (np.array([0.3, -1.0, 0.5]), np.array([1.0, 0.2, -0.4]))
    _, tangent = ad.jvp(tuple_read_later)((a.copy(), b.copy()), tangent=direction)
    np.testing.assert_allclose(tangent, grads[0] @ direction[0] + grads[1] @ direction[1],
                               rtol=1e-6)


def halves_the_first(t):
    a, b = t
    a *= 0.5
    return np.sum(t[0]) + np.sum(b)


def test_one_array_at_two_entries_of_a_tuple_is_refused():
    shared = X[:3].copy()
    with pytest.raises(ad.TransformError, match=r"the tuple `t` holds one array at two entries"):
        ad.grad(halves_the_first)((shared, shared))
