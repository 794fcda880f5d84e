"""Refusals name the user's code: the expression the user wrote where normal form made a
temporary (`x * 2.0`, never `_mul`), the variable the user wrote after a swap, and the
transform and argument the user called.

The functions under test are defined at module level in this file (the transformer reads
their source); expected lines come from this file with `inspect`, from a marker.
"""
import inspect
import os
import re

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.errors import NoDerivativeRule, SharedUpdate, UnsupportedSyntax


# --- programs: a temporary of normal form stands where the user wrote an expression ------------

def halve(a):
    a *= 0.5
    return a


def halves_a_product(x):
    return np.sum(halve(x * 2.0))


def halves_a_tanh(x):
    return np.sum(halve(np.tanh(x))) + np.sum(x)


def halves_a_slice(x):
    return np.sum(halve(x[1:])) + np.sum(x)


def halves_a_transpose(x):
    return np.sum(halve(x.T)) + np.sum(x * x)


def write_first(a):
    a[0] = 1.0
    return np.sum(a)


def writes_into_a_slice_argument(x):
    return write_first(x[1:]) + np.sum(x)


def reads_a_row_by_a_computed_index(x):
    y = x * 1.0
    i = 0
    v = y[i + 1]
    y[1] = 2.0
    return np.sum(v * y)


def reads_a_row_another_write_spares(x):
    y = x * 1.0
    i = 0
    v = y[i + 1]
    y[0] = 2.0
    return np.sum(v * y)


def keeps_a_slice_across_a_write(x):
    y = x * 1.0
    y[1], z = 3.0, y[1:]
    return np.sum(z)


def writes_into_a_transpose(x):
    y = x * 1.0
    y.T[0] = 3.0
    return np.sum(y)


def sorts_a_transpose(x):
    y = x * 1.0
    y.T.sort()
    return np.sum(y)


def calls_a_method_without_rule_on_a_product(x):
    return np.sum((x * 2.0).dumps())


# --- programs: names after a swap ----------------------------------------------------------------

def swaps_then_writes_into_an_alias(x):
    buf = x * 1.0
    v = buf
    buf, v = v, buf
    v[0] = 3.0
    return np.sum(v * buf)


def swaps_then_writes_into_an_alias_read_alone(x):
    buf = x * 1.0
    v = buf
    buf, v = v, buf
    v[0] = 3.0
    return np.sum(v * x)


def swaps_then_keeps_a_view(x):
    buf = x * 1.0
    v = x * 2.0
    buf, v = v, buf
    w = v[1:]
    v[0] = 3.0
    return np.sum(w)


def swaps_then_writes(x):
    buf = x * 1.0
    v = x * 2.0
    buf, v = v, buf                 # two new arrays, swapped: nothing else holds either
    v[0] = 3.0
    return np.sum(v)


def swaps_in_a_view_then_writes(x):
    y = x * 1.0
    buf = y[1:]
    v = x * 2.0
    buf, v = v, buf                 # v is now the view of y
    v[0] = 3.0
    return np.sum(y)


# --- helpers ---------------------------------------------------------------------------------------

_TEMPORARY = re.compile(r"(?<![\w.])_[A-Za-z]\w*")


def line_of(fn, marker):
    lines, first = inspect.getsourcelines(fn)
    for offset, text in enumerate(lines):
        if marker in text:
            return first + offset
    raise AssertionError(f"{marker!r} not in the source of {fn.__name__}")


def assert_names_the_users_code(err, fn, marker, *texts):
    """`err` points at `marker` in `fn` (this file), says each of `texts`, and names no
    generated temporary anywhere in its message or hint."""
    message = str(err)
    assert os.path.samefile(err.filename, __file__), message
    assert err.lineno == line_of(fn, marker), message
    for text in texts:
        assert text in message, message
    assert not _TEMPORARY.search(err.message + err.hint), message


def assert_differentiated(fn, derivative, x):
    """`derivative` (grad_at or jvp_at, along ones) of `fn` at `x` is central differences'."""
    expected = numerical_grad(fn, [x], 0)
    if derivative is grad_at:
        assert_close(ad.grad(fn)(x), expected)
    else:
        assert ad.jvp(fn)(x, tangent=np.ones_like(x))[1] == pytest.approx(np.sum(expected))


def grad_at(fn, x=None):
    return ad.grad(fn)(np.ones((3, 3)) if x is None else x)


def jvp_at(fn):
    x = np.ones((3, 3))
    return ad.jvp(fn)(x, tangent=np.ones_like(x))


# --- 1. a temporary is named by the expression it holds ------------------------------------------

@pytest.mark.parametrize("derivative", [grad_at, jvp_at])
def test_a_helper_may_update_arithmetic_it_is_given(derivative):
    # `x * 2.0` is a new array nothing else reads: what `halve` does to it is invisible (this
    # was refused at run time, naming the expression, before issue 15's acceptance work)
    assert_differentiated(halves_a_product, derivative, np.ones((3, 3)))


@pytest.mark.parametrize("derivative", [grad_at, jvp_at])
def test_a_helper_may_update_a_new_array_a_numpy_call_made(derivative):
    # `np.tanh(x)` is a new array only `halve` holds (refused at run time until issue 15)
    assert_differentiated(halves_a_tanh, derivative, np.ones((3, 3)))


@pytest.mark.parametrize("fn, expression", [
    (halves_a_slice, "x[1:]"), (halves_a_transpose, "x.T")])
def test_run_time_shared_update_names_the_argument_expression(fn, expression):
    with pytest.raises(SharedUpdate) as info:
        grad_at(fn)
    assert_names_the_users_code(info.value, halve, "a *= 0.5",
                                f"`{expression}` may be that same array")
    # an expression is not something to write into: the hint says only what works
    assert f"{expression}[" not in info.value.hint


def test_helper_writing_into_its_argument_names_the_argument_expression():
    with pytest.raises(UnsupportedSyntax) as info:
        grad_at(writes_into_a_slice_argument)
    assert_names_the_users_code(info.value, writes_into_a_slice_argument, "write_first(x[1:])",
                                "which changes `x[1:]` behind")


@pytest.mark.parametrize("derivative", [grad_at, jvp_at])
def test_run_time_view_check_names_the_index_expression(derivative):
    with pytest.raises(UnsupportedSyntax) as info:
        derivative(reads_a_row_by_a_computed_index)
    assert_names_the_users_code(info.value, reads_a_row_by_a_computed_index, "y[1] = 2.0",
                                "changes `v`, a view of it", "`v = y[i + 1].copy()`")


@pytest.mark.parametrize("derivative", [grad_at, jvp_at])
def test_a_write_that_spares_the_view_is_differentiated(derivative):
    # refused until 2026-11-28: whether the write reaches the view is decided as it runs
    assert_differentiated(reads_a_row_another_write_spares, derivative,
                          np.arange(9.0).reshape(3, 3) / 4.0)


@pytest.mark.parametrize("derivative", [grad_at, jvp_at])
def test_view_kept_across_a_write_names_the_slice(derivative):
    with pytest.raises(UnsupportedSyntax) as info:
        derivative(keeps_a_slice_across_a_write)
    assert_names_the_users_code(info.value, keeps_a_slice_across_a_write, "y[1], z =",
                                "changes `y[1:]`, a view of it", "`y[1:].copy()`")


@pytest.mark.parametrize("derivative", [grad_at, jvp_at])
def test_write_into_an_expression_names_it(derivative):
    with pytest.raises(UnsupportedSyntax) as info:
        derivative(writes_into_a_transpose)
    assert_names_the_users_code(info.value, writes_into_a_transpose, "y.T[0]",
                                "in-place write into `y.T`, which may share memory with `y`")


@pytest.mark.parametrize("derivative", [grad_at, jvp_at])
def test_mutating_call_on_an_expression_names_it(derivative):
    with pytest.raises(UnsupportedSyntax) as info:
        derivative(sorts_a_transpose)
    assert_names_the_users_code(info.value, sorts_a_transpose, "y.T.sort()",
                                "`y.T.sort(...)`", "may change `y.T` in place")
    assert "`y.T = " not in info.value.hint        # not a name the user can assign


def test_method_without_rule_names_the_receiver_in_parentheses():
    with pytest.raises(NoDerivativeRule) as info:
        grad_at(calls_a_method_without_rule_on_a_product)
    assert_names_the_users_code(info.value, calls_a_method_without_rule_on_a_product, "dumps",
                                "`(x * 2.0).dumps(...)`", "`x * 2.0` depends on x")


# --- 3. after a swap, the variable the user wrote ------------------------------------------------

@pytest.mark.parametrize("derivative", [grad_at, jvp_at])
def test_a_write_after_a_swap_that_nothing_else_reads_is_differentiated(derivative):
    # `buf` is not read after the write (refused until issue 15: only a name read again, or
    # the module's array, can see the write)
    assert_differentiated(swaps_then_writes_into_an_alias_read_alone, derivative, np.ones((3, 3)))


def test_forward_write_after_a_swap_never_names_the_written_variable_twice():
    with pytest.raises(UnsupportedSyntax) as info:
        jvp_at(swaps_in_a_view_then_writes)
    assert_names_the_users_code(info.value, swaps_in_a_view_then_writes, "v[0] = 3.0",
                                "write into `v`, which may share memory with `buf`",
                                "`v = v.copy()` before the write")


@pytest.mark.parametrize("derivative", [grad_at, jvp_at])
def test_a_write_after_swapping_two_new_arrays_is_differentiated(derivative):
    # refused until the bindings that reach the write were followed, not all of them
    assert_differentiated(swaps_then_writes, derivative, np.ones((3, 3)))


@pytest.mark.parametrize("derivative", [grad_at, jvp_at])
def test_a_write_into_one_array_under_two_names_is_differentiated(derivative):
    # refused until issue 15 (a must-alias write): both names see it, as in NumPy, and the
    # other name is bound to the array after the write where it is that array as it runs
    assert_differentiated(swaps_then_writes_into_an_alias, derivative, np.ones((3, 3)))


@pytest.mark.parametrize("derivative", [grad_at, jvp_at])
def test_a_view_after_a_swap_that_the_write_spares_is_differentiated(derivative):
    # w = v[1:] is not reached by v[0] = 3.0 (refused until 2026-11-28)
    assert_differentiated(swaps_then_keeps_a_view, derivative, np.ones((3, 3)))


# --- 2. the transform and the argument the user called ---------------------------------------------

def sine_times_first(x):
    return np.sin(x) * x[0] + x ** 3


def jacobian_of_sine_times_first(x):
    """Written by hand: d/dx_j of sin(x_i) * x_0 + x_i ** 3."""
    jac = np.diag(np.cos(x) * x[0] + 3.0 * x ** 2)
    jac[:, 0] += np.sin(x)
    return jac


def sum_of_sines(x):
    return np.sum(np.sin(x) * x)


def jacobian_by_differences(jac, x, eps=1e-6):
    """d jac(x) / dx by central differences: shape jac(x).shape + x.shape."""
    columns = []
    for j in range(x.size):
        step = np.zeros_like(x)
        step.reshape(-1)[j] = eps
        columns.append((jac(x + step) - jac(x - step)) / (2 * eps))
    return np.stack(columns, axis=-1).reshape(np.shape(jac(x)) + x.shape)


@pytest.mark.parametrize("transform, call", [
    ("hessian", lambda f, x: ad.hessian(f)(x)),
    ("hvp", lambda f, x: ad.hvp(f)(x, vector=np.ones_like(x)))])
def test_second_order_of_an_array_output_names_its_transform(transform, call):
    with pytest.raises(TypeError) as info:
        call(sine_times_first, np.arange(1.0, 4.0))
    message = str(info.value)
    assert message.startswith(f"{transform} requires sine_times_first to return a scalar"), message
    assert "shape (3,)" in message and "s2s_ad.jacobian(s2s_ad.jacobian(f))" in message
    assert "grad" not in message and "seed" not in message


def test_grad_of_an_array_output_still_says_grad():
    with pytest.raises(TypeError, match=r"^grad requires sine_times_first to return a scalar"):
        ad.grad(sine_times_first)(np.arange(1.0, 4.0))


def test_jacobian_of_a_jacobian_of_a_vector_function():
    x = np.array([0.3, -1.2, 2.0])
    second = ad.jacobian(ad.jacobian(sine_times_first))(x)
    assert second.shape == (3, 3, 3)
    np.testing.assert_allclose(second, jacobian_by_differences(jacobian_of_sine_times_first, x),
                               rtol=1e-6, atol=1e-7)


def test_jacobian_of_a_jacobian_of_a_matrix_argument():
    x = np.array([[0.3, -1.2], [2.0, 0.5]])
    second = ad.jacobian(ad.jacobian(sum_of_sines))(x)
    assert second.shape == (2, 2, 2, 2)
    gradient = lambda x: np.cos(x) * x + np.sin(x)        # noqa: E731  d/dx of sum(sin(x) x)
    np.testing.assert_allclose(second, jacobian_by_differences(gradient, x), rtol=1e-6, atol=1e-7)


def test_nesting_a_transform_that_cannot_be_nested_names_it():
    # hvp and a one-parameter hessian nest (jvp(grad(f)), jacobian(grad(f))); a tuple wrt not
    with pytest.raises(TypeError, match=r"cannot differentiate <s2s_ad\.hessian of"):
        ad.grad(ad.hessian(sum_of_sines, wrt=(0,)))


def test_hvp_vector_errors_speak_of_vector():
    x = np.arange(1.0, 4.0)
    with pytest.raises(ValueError) as info:
        ad.hvp(sum_of_sines)(x, vector=np.ones(2))
    assert str(info.value).startswith("vector= for 'x' has shape (2,)"), info.value
    assert "tangent" not in str(info.value)
    with pytest.raises(TypeError, match="pass vector= with one entry per parameter"):
        ad.hvp(sum_of_sines, wrt=(0,))(x, vector=np.ones(3))


def test_jvp_tangent_errors_speak_of_tangent():
    with pytest.raises(ValueError, match=r"^tangent= for 'x' has shape \(2,\)"):
        ad.jvp(sine_times_first)(np.arange(1.0, 4.0), tangent=np.ones(2))


@pytest.mark.parametrize("transform", ["jacobian", "hessian"])
def test_container_argument_error_names_its_transform(transform):
    with pytest.raises(TypeError, match=rf"^{transform} needs array arguments; 'x' is a list"):
        getattr(ad, transform)(lambda x: x[0] * x[1])([1.0, 2.0])
