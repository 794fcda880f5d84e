"""In-place writes keep the array's dtype and shape, as NumPy's do (found 2026-11-28).

`z op= v` on an array writes into `z`: a float32 or float16 accumulator keeps its precision,
an integer one refuses a float result, and `z` does not grow to a broadcast shape. A store
`k[i] = v` into an integer or bool array truncates `v`: no derivative flows there. s2s_ad
computed `z op= v` as `z = z op v` (float64, any shape) and let the derivative of a store into
an integer array through (runtime/in_place.py, analysis/dtypes.py)."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def accumulate_in_float32(x):
    acc = np.ones(2, dtype=np.float32)
    acc += x * 1e-8
    return np.sum(acc * x)


def accumulate_in_float16(x):
    acc = np.full(2, 60000.0, dtype=np.float16)
    acc += x * 10000.0                   # overflows to inf in float16
    return np.sum(np.isinf(acc) * 1.0) + np.sum(x * x)


def accumulate_in_a_loop(x):
    acc = np.zeros(2, dtype=np.float32)
    for i in range(3):
        acc += x * (i + 0.1)
    return np.sum(acc.astype(np.float64) * x)


def integer_counts(x):
    k = np.zeros(2, dtype=int)
    k += 3
    return np.sum(k * x)


def store_into_integers(x):
    k = np.zeros(2, dtype=int)
    k[0] = x[0] * 3.7                    # truncated to 3: no derivative
    return np.sum(k * x) + np.sum(k) * x[1]


def store_into_bools(x):
    k = np.zeros(2, dtype=bool)
    k[0] = x[0]
    return np.sum(k * x)


def store_into_arange(x):
    k = np.arange(2)
    k[0] = x[0] * 3.3
    return np.sum(k * x)


def store_into_an_integer_literal(x):
    k = np.array([0, 0])
    k[1] = x[1] * 3.3
    return np.sum(k * x)


def slice_store_into_int32(x):
    k = np.zeros(2, dtype=np.int32)
    k[:] = x * 3.3
    return np.sum(k * x)


def store_into_integers_like(x):
    k = np.zeros_like(x, dtype=int)
    k[1] = x[0] * 3.3
    return np.sum(k * x)


def slice_update_of_integers(x):
    k = np.zeros(2, dtype=int)
    k[:] += np.array([1, 2])
    k[0] += 5
    y = np.zeros(2)
    y[:] += x
    return np.sum(k * x) + np.sum(y * y)


def number_updated_by_an_array_entry(x):
    n = 0
    n += x[0]                            # a number is rebound: the derivative flows
    return n * x[1]


def conversions_with_dtype(x):
    return (np.sum(x * 3.3, dtype=int) * x[0] + np.sum(np.array(x * 3.3, dtype=int) * x)
            + np.sum(np.asarray(x * 3.3, dtype=np.int64)) * x[1] + np.sum((x * 2.7).astype(int)))


CASES = [accumulate_in_float32, accumulate_in_float16, integer_counts,
         store_into_integers, store_into_bools, store_into_arange, store_into_an_integer_literal,
         slice_store_into_int32, store_into_integers_like, slice_update_of_integers,
         number_updated_by_an_array_entry, conversions_with_dtype]


@pytest.mark.parametrize("fn", CASES)
def test_value_and_gradient_follow_numpy(fn):
    x = np.array([1.0, 0.5])
    value, gradient = ad.value_and_grad(fn)(x)
    assert value == fn(x)
    assert_close(gradient, numerical_grad(fn, (x,), 0), rtol=1e-5)


@pytest.mark.parametrize("fn", CASES)
def test_forward_mode_follows_numpy(fn):
    x = np.array([1.0, 0.5])
    value, derivative = ad.jvp(fn)(x, tangent=np.array([0.0, 1.0]))
    assert value == fn(x)
    assert_close(derivative, numerical_grad(fn, (x,), 0)[1], rtol=1e-5)


def test_the_accumulator_keeps_float32():
    def accumulated(x):
        acc = np.ones(2, dtype=np.float32)
        acc += x
        return acc

    value, _ = ad.vjp(accumulated)(np.array([1.0, 0.5]), seed=np.ones(2))
    assert value.dtype == np.float32
    value, _ = ad.jvp(accumulated)(np.array([1.0, 0.5]), tangent=np.ones(2))
    assert value.dtype == np.float32


def test_a_float32_accumulator_in_a_loop():
    # float32 rounding makes central differences of this one noisy: the gradient is 6.6 x
    x = np.array([1.0, 0.5])
    value, gradient = ad.value_and_grad(accumulate_in_a_loop)(x)
    assert value == accumulate_in_a_loop(x)
    assert_close(gradient, 6.6 * x, rtol=1e-6)
    assert_close(ad.hessian(accumulate_in_a_loop)(x), 6.6 * np.eye(2), rtol=1e-6)


@pytest.mark.parametrize("fn", [store_into_integers, slice_update_of_integers])
def test_second_order(fn):
    x = np.array([1.0, 0.5])
    expected = np.stack([numerical_grad(lambda v: ad.grad(fn)(v)[i], (x,), 0) for i in range(2)])
    assert_close(ad.hessian(fn)(x), expected, rtol=1e-4, atol=1e-5)


def float_into_integers(x):
    k = np.zeros(2, dtype=int)
    k += x
    return np.sum(k * x)


def float_into_integer_slice(x):
    k = np.zeros(2, dtype=int)
    k[:] += x
    return np.sum(k * x)


@pytest.mark.parametrize("fn", [float_into_integers, float_into_integer_slice])
def test_an_update_numpy_refuses_is_refused(fn):
    x = np.array([1.0, 0.5])
    with pytest.raises(TypeError, match="Cannot cast ufunc"):
        fn(x)
    with pytest.raises(TypeError, match="Cannot cast ufunc"):
        ad.grad(fn)(x)
    with pytest.raises(TypeError, match="Cannot cast ufunc"):
        ad.jvp(fn)(x, tangent=x)


def test_updates_of_a_float64_accumulator_stay_as_they_were():
    # the conversion is read off the accumulator the adjoint keeps anyway: nothing more taped
    def loop(x):
        acc = np.zeros(2)
        for i in range(3):
            acc += x * i
        return np.sum(acc * acc)

    source = ad.source(ad.grad(loop))
    assert source.count("tape.append(") == 1
    x = np.array([1.0, 0.5])
    assert_close(ad.grad(loop)(x), numerical_grad(loop, (x,), 0))


# A dtype= that truncates, on constructors and reductions whose rules read past it (found
# 2026-11-28: np.linspace(..., dtype=int) and np.nansum(..., dtype=int) passed the derivative
# through the integers: [3.75, 7] where [0, 7] is right)

def linspace_of_integers(x):
    return np.sum(np.linspace(0, x[0] * 5, 3, dtype=int)) * x[1]


def nansum_of_integers(x):
    return np.nansum(x * 3.3, dtype=int) * x[0] + np.nansum(x * 2.2, dtype=bool) * x[1]


@pytest.mark.parametrize("fn", [linspace_of_integers, nansum_of_integers])
def test_a_dtype_that_truncates_carries_no_derivative(fn):
    x = np.array([1.1, 0.45])
    value, gradient = ad.value_and_grad(fn)(x)
    assert value == fn(x)
    assert_close(gradient, numerical_grad(fn, (x,), 0))
    _, derivative = ad.jvp(fn)(x, tangent=np.array([1.0, 0.0]))
    assert_close(derivative, numerical_grad(fn, (x,), 0)[0])


def entries_updated_in_float32(x):
    d = {'a': np.ones(2, dtype=np.float32)}
    d['a'] += x * 1e-8
    s = [np.ones(2, dtype=np.float32)]
    s[0] += x * 1e-8
    return np.sum(d['a'] * x) + np.sum(s[0] * x)


def test_an_entry_of_a_list_or_dict_updated_in_place_keeps_its_dtype():
    x = np.array([1.0, 0.5])
    fn = entries_updated_in_float32
    value, gradient = ad.value_and_grad(fn)(x)
    assert value == fn(x)
    assert_close(gradient, [2.0, 2.0], rtol=1e-6)


def test_a_scalar_accumulator_is_left_as_it_was():
    def total(x):
        t = 0.0
        for v in [x, x * 2.0]:
            t += np.sum(v) + v.mean()
        return t

    assert "updated_in_place" not in ad.source(ad.grad(total))
    x = np.array([1.0, 0.5])
    assert_close(ad.grad(total)(x), numerical_grad(total, (x,), 0))


def complex_accumulator(x):
    z = np.zeros(2, dtype=complex)
    z += x * (1 + 2j)
    z *= x
    return np.sum(np.abs(z) ** 2)


def integer_stores_in_a_loop(x):
    k = np.zeros(3, dtype=int)
    for i in range(2):
        k[i] = x[i] * 4.4
    return np.sum(k[:2] * x)


@pytest.mark.parametrize("fn", [complex_accumulator, integer_stores_in_a_loop])
def test_first_and_second_order(fn):
    # the second: the adjoint of `k[:2]` of an integer `k` was made integer too (a crash)
    x = np.array([1.1, 0.45])
    assert_close(ad.grad(fn)(x), numerical_grad(fn, (x,), 0))
    expected = np.stack([numerical_grad(lambda v: ad.grad(fn)(v)[i], (x,), 0) for i in range(2)])
    assert_close(ad.hessian(fn)(x), expected, rtol=1e-4, atol=1e-5)


def test_a_complex_array_updated_in_place():
    from fd import assert_close_complex, numerical_complex_grad

    def squared(z):
        w = z * 1.0
        w += z * z
        return np.sum(np.abs(w) ** 2)

    z = np.array([1.0 + 0.5j, 0.3 - 0.2j])
    assert_close_complex(ad.grad(squared)(z), numerical_complex_grad(squared, z))
