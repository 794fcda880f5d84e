"""Functions passed to a function as values (issue 15): a lambda written in the call
(`apply_twice(lambda t: t * np.cos(t), x)`), a lambda or nested `def` bound to a name and
passed on, one reading constants of the caller, passed by keyword, or passed on again by the
helper; and NumPy functions passed or given as defaults (`nonlinearity=np.tanh`). Each in every
mode against central finite differences and, where it runs the source, HIPS autograd. A
function passed on that reads values carrying a derivative stays refused, in both modes."""
import functools

import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode

X = np.array([0.3, -0.7, 1.1, 0.4])


def apply_twice(f, x):
    return f(f(x))


def apply_with(x, f=None):
    return f(x) * 2.0


def pass_along(f, x):
    return apply_twice(f, x) + x


def lambda_in_the_call(x):
    return np.sum(apply_twice(lambda t: t * np.cos(t), x))


def named_lambda(x):
    g = lambda t: np.sin(t) * t  # noqa: E731
    return np.sum(apply_twice(g, x) ** 2)


def nested_def(x):
    def g(t):
        return np.tanh(t) + t ** 2
    return np.sum(apply_twice(g, x))


def reads_a_constant_of_the_caller(x):
    k = 3.0
    s = float(len(x))
    return np.sum(apply_twice(lambda t: np.sin(t * k) / s, x))


def captured_default(x):
    k = 0.5
    def g(t, scale=k):
        return t * scale + np.sin(t)
    return np.sum(apply_twice(g, x))


def by_keyword(x):
    return np.sum(apply_with(x, f=lambda t: np.exp(t) * t))


def passed_on_again(x):
    return np.sum(pass_along(lambda t: t * t, x))


def one_nested_passing_another(x):
    def inner(t):
        return np.sin(t) * 2.0
    def outer(v):
        return apply_twice(inner, v) + v
    return np.sum(outer(x) ** 2)


def numpy_function_passed(x):
    return np.sum(apply_twice(np.sin, x) * x)


def layer(x, nonlinearity=np.tanh):
    return nonlinearity(x * 2.0)


def default_numpy_function(x):
    return np.sum(layer(x)) + np.sum(layer(x, nonlinearity=np.sin) ** 2)


def sorted_by_a_key(x):
    ys = sorted([x[0], x[1] * 2.0, x[2], x[3]], key=lambda t: -t)
    return ys[0] * 3.0 + ys[1] * ys[2]


CASES = [sorted_by_a_key, lambda_in_the_call, named_lambda, nested_def, reads_a_constant_of_the_caller,
         captured_default, by_keyword, passed_on_again, one_nested_passing_another,
         numpy_function_passed, default_numpy_function]


@pytest.mark.filterwarnings("ignore:Output seems independent of input")
@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_against_both_oracles(fn):
    check_every_mode(fn, X.copy())


def test_grad_of_a_numpy_function_itself():
    """`grad(np.sqrt)`: a NumPy function differentiated directly, by its rule."""
    np.testing.assert_allclose(ad.grad(np.sqrt)(2.0), 0.5 / np.sqrt(2.0))
    np.testing.assert_allclose(ad.jvp(np.tanh)(0.3, tangent=2.0)[1], 2.0 / np.cosh(0.3) ** 2)


def reads_the_differentiated_input(x):
    c = x[0]
    return np.sum(apply_twice(lambda t: t * c, x))


def apply_n_times(f, x, n=2):
    for _ in range(n):
        x = f(x)
    return x


def passes_it_to_a_loop(x):
    c = x[0]
    return np.sum(apply_n_times(lambda t: t * c, x))


def test_a_function_passed_to_a_helper_copied_in_reads_what_is_differentiated():
    """apply_twice is a one-line helper, inlined (passes/inline_helpers.py): the function
    passed becomes the caller's own, and the gradient flows through what it captured."""
    check_every_mode(reads_the_differentiated_input, X.copy())


@pytest.mark.parametrize("transform", [ad.grad, lambda f: functools.partial(
    ad.jvp(f), tangent=np.ones(4))], ids=["grad", "jvp"])
def test_a_function_passed_on_that_reads_what_is_differentiated_is_refused(transform):
    """Its captured `c` travels inside the function value, where the helper's derivative would
    hold it constant (the gradient through `c` would be lost): refused, not wrong."""
    with pytest.raises(ad.TransformError, match="captured as constants|captured"):
        transform(passes_it_to_a_loop)(X.copy())


def identity(f):
    return f


def kept_and_called_after_a_change(x):
    k = 1.0
    g = identity(lambda t: t * k)
    k = 2.0                       # Python's lambda reads this k when g is called
    return np.sum(g(x))


def in_a_loop(x):
    total = 0.0
    for k in range(3):            # k changes, but apply_with calls it only while it runs
        total = total + np.sum(apply_with(x, f=lambda t: np.sin(t) * k))
    return total


@pytest.mark.parametrize("transform", [ad.grad, lambda f: functools.partial(
    ad.jvp(f), tangent=np.ones(4))], ids=["grad", "jvp"])
def test_a_function_kept_past_a_change_of_what_it_reads_is_refused(transform):
    """Its captured values are bound when it is passed: the value of a later `k` would be
    missed (the value came out 0.7 for Python's 1.4 before this was refused)."""
    with pytest.raises(ad.TransformError, match="binds again") as caught:
        transform(kept_and_called_after_a_change)(X.copy())
    assert "the lambda" in str(caught.value) and caught.value.hint


@pytest.mark.filterwarnings("ignore:Output seems independent of input")
def test_a_function_passed_in_a_loop_to_a_helper_that_only_calls_it():
    check_every_mode(in_a_loop, X.copy())
