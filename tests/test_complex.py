"""Complex values that reach a derivative are refused (no convention yet), naming the user's
line; complex constants that stay inactive still work."""
import inspect
import os

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.errors import ComplexValue, TransformError

C = np.array([1 + 2j, 3j])


def literal_times_x(x): return np.sum(np.abs(x * (1 + 2j)))


def constructor_meets_x(x):
    c = complex(1.0, 2.0)
    return np.sum(np.abs(x * c))


def astype_meets_x(x):
    y = x.astype(np.complex128)
    return np.sum(np.abs(y))


def module_array_meets_x(x):
    y = x * C
    return np.sum(np.abs(y))


def module_array_meets_x_later(x):
    h = np.sin(x)
    y = np.cos(h) * C
    return np.sum(np.abs(y))


def argument_meets_x(x, c):
    return np.sum(np.abs(x * c))


def imaginary_part_of_x_times_complex(x):
    z = x * (0.3 + 0.8j)
    return np.sum(np.imag(z) ** 2) + np.sum(np.angle(z))


def inactive_complex(x, c):
    w = np.real(np.exp(1j * c))
    return np.sum(w * x)


def line_of(fn, marker):
    lines, first = inspect.getsourcelines(fn)
    return next(first + k for k, text in enumerate(lines) if marker in text)


def assert_refused_at(err, fn, marker):
    assert isinstance(err, TransformError)
    assert os.path.samefile(err.filename, __file__)
    assert err.lineno == line_of(fn, marker), str(err)
    assert "complex" in err.message and err.hint
    assert "_mul" not in str(err) and "_add" not in str(err)


@pytest.mark.parametrize("fn, marker, column", [
    (literal_times_x, "2j", "2j"), (constructor_meets_x, "= complex(", "complex("),
    (astype_meets_x, "x.astype", "x.astype"),
    # np.imag and np.angle were constants: the complex value fed only them, so it was not
    # differentiated, and its gradient was silently dropped (a fuzzer find, 2026-11-24)
    (imaginary_part_of_x_times_complex, "0.8j", "0.8j"),
])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_complex_written_in_the_function_is_refused_at_transform_time(fn, marker, column, mode):
    transform = ad.grad(fn) if mode == "grad" else ad.jvp(fn)
    with pytest.raises(ComplexValue) as info:
        ad.source(transform)                       # no run needed: transform time
    assert_refused_at(info.value, fn, marker)
    text = inspect.getsource(fn).splitlines()[line_of(fn, marker) - fn.__code__.co_firstlineno]
    assert info.value.col == text.index(column)


def test_module_level_complex_array_is_refused_when_it_runs():
    with pytest.raises(ComplexValue) as info:
        ad.grad(module_array_meets_x)(np.ones(2))
    assert_refused_at(info.value, module_array_meets_x, "y = x * C")
    with pytest.raises(ComplexValue) as info:
        ad.jvp(module_array_meets_x)(np.ones(2), tangent=np.ones(2))
    assert_refused_at(info.value, module_array_meets_x, "def ")


def test_run_time_refusal_names_the_line_where_the_complex_value_came_in():
    # not the first line of the function, where the backward pass ends
    with pytest.raises(ComplexValue) as info:
        ad.grad(module_array_meets_x_later)(np.ones(2))
    assert_refused_at(info.value, module_array_meets_x_later, "y = np.cos(h) * C")


@pytest.mark.parametrize("x", [1.5, np.float64(1.5), np.array([1.5, 2.0])])
def test_complex_argument_not_in_wrt_is_refused_not_cast(x):
    # was: -1.34 per entry (the real part of a complex gradient) with only a ComplexWarning, and
    # for a Python float, float() of a complex crashed with a TypeError of NumPy's
    with pytest.raises(ComplexValue) as info:
        ad.grad(argument_meets_x)(x, 1 + 2j)
    assert_refused_at(info.value, argument_meets_x, "return")
    with pytest.raises(ComplexValue):
        ad.jvp(argument_meets_x)(x, 1 + 2j, tangent=x * 0 + 1.0)


def test_complex_argument_seed_and_tangent_are_refused_naming_them():
    with pytest.raises(TypeError, match="'x': it is complex"):
        ad.grad(argument_meets_x)(np.ones(2) + 0j, 1.0)
    with pytest.raises(TypeError, match="'x': it is complex"):
        ad.jvp(argument_meets_x)(1j, 1.0, tangent=1.0)
    with pytest.raises(TypeError, match="seed .* is complex"):
        ad.vjp(inactive_complex)(np.ones(2), 0.3, seed=1j)
    with pytest.raises(TypeError, match="tangent for 'x' is complex"):
        ad.jvp(inactive_complex)(np.ones(2), 0.3, tangent=np.ones(2) * 1j)


def test_inactive_complex_constants_still_work():
    x, c = np.array([0.5, -1.0]), np.array([0.3, 0.5])
    expected = numerical_grad(inactive_complex, [x, c], 0)
    assert_close(ad.grad(inactive_complex)(x, c), expected)
    _, directional = ad.jvp(inactive_complex)(x, c, tangent=np.ones(2))
    assert_close(directional, np.sum(expected))
    # differentiated with respect to c, the same constant 1j meets an active value: refused
    with pytest.raises(ComplexValue) as info:
        ad.grad(inactive_complex, wrt=1)(x, c)
    assert_refused_at(info.value, inactive_complex, "1j * c")
