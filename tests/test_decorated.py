"""A function under a decorator is differentiated through the decorator's wrapper as written
(it may change the value: `return k * fn(*args)`), never by skipping to `__wrapped__`; a C
wrapper that keeps the value (functools.lru_cache) is followed. A wrapper that takes *args and
**kwargs is read with the parameters of the function it wraps; one that rebinds them is refused
at its line, in both modes."""
import functools
import time

import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad.errors import TransformError
from fd import assert_close, numerical_grad
from test_errors import location_of


def scaled_by(k):
    def decorate(fn):
        @functools.wraps(fn)
        def scaled(v):
            return k * fn(v)
        return scaled
    return decorate


def scaled_variadic(k):
    def decorate(fn):
        @functools.wraps(fn)
        def scaled_any(*args):
            return k * fn(*args)
        return scaled_any
    return decorate


def timed(fn):
    @functools.wraps(fn)
    def timing(*args, **kwargs):
        start = time.perf_counter()
        out = fn(*args, **kwargs)
        timing.seconds = time.perf_counter() - start
        return out
    return timing


@scaled_by(3.0)
def tripled(x):
    return np.sum(np.sin(x) * x)


@scaled_variadic(3.0)
def tripled_variadic(x):
    return np.sum(np.sin(x) * x)


@timed
def timed_loss(x):
    return np.sum(np.sin(x) * x)


@functools.lru_cache(maxsize=None)
def cached_square(a):
    return a * a + 1.0


def calls_tripled(x):
    return tripled(x) + np.sum(x ** 2)


def calls_cached(a, x):
    return cached_square(a) * np.sum(x)


def calls_tripled_variadic(x):
    return tripled_variadic(x) + 1.0


X = np.array([0.3, -1.2, 2.0])


@pytest.mark.parametrize("f", [tripled, calls_tripled], ids=["decorated", "as_a_helper"])
def test_a_wrapper_that_scales_the_value_is_differentiated_as_written(f):
    expected = numerical_grad(f, [X], 0)
    value, grad = ad.value_and_grad(f)(X)
    assert_close(value, f(X))
    assert_close(grad, expected, rtol=1e-6)
    t = np.array([1.0, -0.5, 2.0])
    value, tangent = ad.jvp(f)(X, tangent=t)
    assert_close(value, f(X))
    assert_close(tangent, np.dot(expected, t), rtol=1e-6)


def test_a_wrapper_that_scales_the_value_has_the_right_hvp():
    v = np.array([1.0, 2.0, -1.0])
    gradient = ad.grad(calls_tripled)
    expected = np.array([numerical_grad(lambda s: gradient(X + s * v)[k], [0.0], 0)
                         for k in range(3)])
    assert_close(ad.hvp(calls_tripled)(X, vector=v), expected, rtol=1e-5, atol=1e-7)


def test_lru_cache_is_followed_to_the_function_it_caches():
    assert_close(ad.grad(cached_square)(1.5), 3.0, rtol=1e-6)
    assert_close(ad.jvp(cached_square)(1.5, tangent=1.0)[1], 3.0, rtol=1e-6)


def test_an_lru_cache_helper_is_refused_not_silently_constant():
    # called from f, the cache object (not a Python function) has no rule: refused at the call
    with pytest.raises(TransformError) as caught:
        ad.grad(calls_cached)(1.5, X)
    assert caught.value.lineno == location_of(calls_cached, "cached_square(a)")[1]


def passed_through(fn):
    @functools.wraps(fn)
    def logged(*args, **kwargs):
        out = fn(*args, **kwargs)
        print(f"{fn.__name__}: {len(args)} arguments")
        return out
    return logged


@passed_through
def logged_loss(x, weight=1.0, *, shift=0.0):
    return np.sum(np.sin(x) * x) * weight + shift


def calls_logged_loss(x):
    return logged_loss(x, weight=x[0], shift=0.5) + logged_loss(x)


VARIADIC = [tripled_variadic, logged_loss, calls_tripled_variadic, calls_logged_loss]


@pytest.mark.parametrize("mode", ["grad", "jvp"])
@pytest.mark.parametrize("f", VARIADIC, ids=["scaling", "pass_through", "as_a_helper",
                                             "keywords_through"])
def test_a_variadic_wrapper_is_read_with_the_wrapped_parameters(f, mode):
    """`def wrapper(*args, **kwargs): ... fn(*args, **kwargs)` is differentiated as if it took
    the wrapped function's parameters (refused until 2026-11-24); its own code still counts
    (the factor 3 of scaled_variadic)."""
    expected = numerical_grad(f, [X], 0)
    if mode == "grad":
        assert_close(ad.grad(f)(X), expected, rtol=1e-6)
    else:
        v = np.array([1.0, -0.5, 2.0])
        assert_close(ad.jvp(f)(X, tangent=v)[1], expected @ v, rtol=1e-6)


def test_the_hint_works_for_a_pass_through_wrapper():
    expected = numerical_grad(timed_loss, [X], 0)
    assert_close(ad.grad(timed_loss.__wrapped__)(X), expected, rtol=1e-6)


@pytest.mark.parametrize("wrt", ["x", 0])
def test_wrt_names_the_wrapped_functions_parameter(wrt):
    # wrt='x' names the wrapped function's parameter: it was a ValueError about `args, kwargs`
    assert_close(ad.grad(tripled_variadic, wrt=wrt)(X), numerical_grad(tripled_variadic, [X], 0),
                 rtol=1e-6)


def test_a_wrapper_setting_an_attribute_is_refused_at_that_line():
    # `timing.seconds = ...`: bookkeeping on the wrapper object, not yet kept by the derivative
    with pytest.raises(TransformError, match="cannot assign to attribute") as caught:
        ad.grad(timed_loss)(X)
    assert caught.value.lineno == location_of(timed, "timing.seconds =")[1]


def keeps_the_first(fn):
    @functools.wraps(fn)
    def first_only(*args):
        args = args[:1]
        return fn(*args)
    return first_only


@keeps_the_first
def first_of_two(x, y=2.0):
    return np.sum(x * y)


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_variadic_wrapper_that_rebinds_its_arguments_is_refused_at_its_line(mode):
    with pytest.raises(TransformError) as caught:
        if mode == "grad":
            ad.grad(first_of_two)(X)
        else:
            ad.jvp(first_of_two)(X, tangent=np.ones(3))
    err = caught.value
    filename, line, col, source_line = location_of(keeps_the_first, "*args")
    assert (err.filename, err.lineno, err.col + 1) == (filename, line, col + 1), str(err)
    assert "cannot differentiate `first_of_two` through its decorator" in str(err)
    assert "`first_of_two.__wrapped__`" in err.hint
