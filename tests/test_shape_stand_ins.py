"""A value the tape keeps only for the backward pass to read its shape (the `like` of
unbroadcast and unreduce) is kept as a stand-in of that shape (optimize/shape_stand_ins.py):
a loop of N steps over large arrays keeps N small views, not N arrays, and the gradient is
the same."""
import tracemalloc

import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad import runtime
from fd import assert_close, numerical_grad


def running_sum(x, steps):
    total = 0.0
    for k in range(steps):
        total = total + np.sin(x * (k + 1))
    return np.sum(total * total)


def running_product(x, steps):
    total = 1.0
    for k in range(steps):
        total = total * np.cos(x / (k + 1))     # the adjoint reads the values: kept whole
    return np.sum(total)


@pytest.mark.parametrize("f", [running_sum, running_product])
def test_gradients_match_central_differences(f):
    x = np.linspace(-1.0, 1.0, 5)
    assert_close(ad.grad(f)(x, 4), numerical_grad(f, [x, 4], 0))
    big = np.linspace(-1.0, 1.0, 5000)
    g = ad.grad(f)(big, 3)
    assert g.shape == big.shape and np.isfinite(g).all()
    assert_close(g[:5], numerical_grad(lambda head: f(np.concatenate([head, big[5:]]), 3),
                                       [big[:5]], 0), rtol=1e-5)


def test_the_tape_keeps_no_entries_of_values_read_for_their_shape():
    x = np.linspace(-1.0, 1.0, 20_000)             # 160 kB an array
    steps = 40
    grad = ad.grad(running_sum)
    grad(x, 2)
    tracemalloc.start()
    grad(x, steps)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    # two arrays a step would be 12.8 MB; the backward pass's own few arrays are about 1 MB
    assert peak < 10 * x.nbytes


def test_the_stand_in_of_a_large_array_has_its_type_shape_and_dtype_only():
    x = np.ones((100, 50), dtype=np.complex64)
    stand_in = runtime.for_its_shape(x)
    assert type(stand_in) is np.ndarray and stand_in.shape == x.shape
    assert stand_in.dtype == x.dtype and stand_in.strides == (0, 0)
    small = np.ones(3)
    assert runtime.for_its_shape(small) is small and runtime.for_its_shape(2.0) == 2.0


def test_a_complex_loop_keeps_its_real_part_convention():
    x = np.linspace(0.1, 0.9, 6000)

    def f(x):
        total = 0.0
        for k in range(3):
            total = total + np.exp(1j * x * (k + 1))
        return np.sum(np.abs(total) ** 2)
    g = ad.grad(f)(x)
    assert g.dtype == np.float64
    assert_close(g[:4], numerical_grad(lambda head: f(np.concatenate([head, x[4:]])),
                                       [x[:4]], 0), rtol=1e-5, atol=1e-6)


def a_name_like_the_helper(x, steps):
    for_its_shape = 0.0
    for k in range(steps):
        for_its_shape = for_its_shape + np.sin(x * (k + 1))
    return np.sum(for_its_shape * for_its_shape)


def test_a_name_of_yours_like_the_helpers_is_not_taken():
    x = np.linspace(-1.0, 1.0, 5)
    assert_close(ad.grad(a_name_like_the_helper)(x, 4),
                 numerical_grad(a_name_like_the_helper, [x, 4], 0))
