"""Double buffering (issue 15): `u, v = v, u` in a loop, writing the next state into the
buffer that held the one before last. The two names never share memory, but a flow-insensitive
reading of the swap says they may; the write is checked when it runs (GuardStaleViews puts
`check_view_spared` before it) instead of being refused. Every mode against central finite
differences (HIPS autograd cannot run in-place writes). One array under both names has NumPy's
meaning (both see each write); a view of the other buffer is refused."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode

X = np.array([0.3, -0.7, 1.1, 0.4, 0.9, -0.2])


def swap_whole(x):
    u = x.copy()
    v = np.zeros_like(x)
    for _ in range(3):
        v[:] = np.sin(u) * 0.9 + u * 0.2
        u, v = v, u
    return np.sum(u * u)


def jacobi(x):
    """A heat-equation stencil written as people write it: two buffers, swapped."""
    u = x * 1.0
    v = np.zeros_like(x)
    for _ in range(4):
        v[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2.0 * u[1:-1] + u[:-2])
        v[0] = u[0] * np.cos(u[1])
        v[-1] = u[-1]
        u, v = v, u
    return np.sum(np.tanh(u) * x)


def swap_with_temporary(x):
    cur = x ** 2
    nxt = np.ones_like(x)
    for k in range(3):
        nxt[:] = cur * (k + 1.0) - np.sin(cur)
        tmp = cur
        cur = nxt
        nxt = tmp
    return np.sum(cur) + np.sum(nxt * x)


@pytest.mark.parametrize("fn", [swap_whole, jacobi, swap_with_temporary])
def test_every_mode(fn):
    check_every_mode(fn, X, autograd_runs=False)


def same_buffer_twice(x):
    u = x.copy()
    v = u                      # the same array: the write changes u too, as in NumPy
    for _ in range(2):
        v[:] = np.sin(u)
        u, v = v, u
    return np.sum(u)


def test_one_buffer_under_both_names_has_numpys_meaning():
    check_every_mode(same_buffer_twice, X, autograd_runs=False)


def reversed_view_as_the_other_buffer(x):
    u = x.copy()
    v = u[::-1]                # shares u's memory without being u
    for _ in range(2):
        v[:] = np.sin(u)
        u, v = v, u
    return np.sum(u * x)


@pytest.mark.parametrize("transform", [ad.grad, lambda f: (lambda x: ad.jvp(f)(x, tangent=x))])
def test_a_view_as_the_other_buffer_is_refused(transform):
    with pytest.raises(ad.TransformError):
        transform(reversed_view_as_the_other_buffer)(X)
