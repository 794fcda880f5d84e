"""A function under a decorator is differentiated through the decorator's wrapper as written
(it may change the value: `return k * fn(*args)`), never by skipping to `__wrapped__`; a C
wrapper that keeps the value (functools.lru_cache) is followed. A wrapper that takes *args or
**kwargs is refused at its line, in both modes."""
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


CASES = [(tripled_variadic, tripled_variadic, scaled_variadic, "*args"),
         (timed_loss, timed_loss, timed, "*args, **kwargs"),
         (calls_tripled_variadic, tripled_variadic, scaled_variadic, "*args")]


@pytest.mark.parametrize("mode", ["grad", "jvp"])
@pytest.mark.parametrize("f, decorated, decorator, marker", CASES,
                         ids=["scaling", "pass_through", "as_a_helper"])
def test_a_variadic_wrapper_is_refused_at_its_line(f, decorated, decorator, marker, mode):
    with pytest.raises(TransformError) as caught:
        if mode == "grad":
            ad.grad(f)(X)
        else:
            ad.jvp(f)(X, tangent=np.ones(3))
    err = caught.value
    filename, line, col, source_line = location_of(decorator, marker)
    assert (err.filename, err.lineno, err.col + 1) == (filename, line, col + 1), str(err)
    assert err.source_line.strip() == source_line.strip()
    assert f"cannot differentiate `{decorated.__name__}` through its decorator" in str(err)
    assert f"`{decorated.__name__}.__wrapped__`" in err.hint
    if f is not decorated:
        assert f"(in {f.__name__})" in str(err)


def test_the_hint_works_for_a_pass_through_wrapper():
    expected = numerical_grad(timed_loss, [X], 0)
    assert_close(ad.grad(timed_loss.__wrapped__)(X), expected, rtol=1e-6)


@pytest.mark.parametrize("wrt", ["x", 0])
def test_a_variadic_wrapper_is_refused_before_wrt_is_read_against_args(wrt):
    # wrt='x' names the wrapped function's parameter: it was a ValueError about `args, kwargs`
    with pytest.raises(TransformError) as caught:
        ad.grad(tripled_variadic, wrt=wrt)
    assert "through its decorator" in str(caught.value)
    assert caught.value.lineno == location_of(scaled_variadic, "*args")[1]
