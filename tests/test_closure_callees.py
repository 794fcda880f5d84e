"""A closure built from values that depend on the inputs (a factory's result) and then called.
Bound once from one of the user's factories and only called, the factory's body is read in
place of the binding and the closure is differentiated with what it captured. Otherwise its
derivative would treat the captured values as constants, so the call is refused at the user's
line in both modes (it gave an exactly zero gradient). Closures over constants work."""
import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad.errors import TransformError
from fd import assert_close, numerical_grad
from test_errors import location_of


def make_scaler(a):
    def scaler(x):
        return a * x
    return scaler


def make_outer(a):
    def make_inner(b):
        def inner(x):
            return a * b * x
        return inner
    return make_inner(a + 1.0)


def apply(fn, x):
    return np.sum(fn(x))


def factory_call(x, a):
    f = make_scaler(a)
    return np.sum(f(x))


def nested_factories(x, a):
    g = make_outer(a)
    return np.sum(g(x))


def closure_in_a_loop(x, a):
    f = make_scaler(a)
    total = 0.0
    for _ in range(3):
        total = total + np.sum(f(x))
    return total


def closure_passed_on(x, a):
    f = make_scaler(a)
    return apply(f, x)


SCALE_BY_TWO = make_scaler(2.0)


def closure_over_a_constant(x):
    return np.sum(SCALE_BY_TWO(x) ** 2)


CASES = [(nested_factories, nested_factories, "g(x)"), (closure_passed_on, apply, "fn(x)")]


@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
@pytest.mark.parametrize("f", [factory_call, closure_in_a_loop], ids=lambda f: f.__name__)
def test_a_factory_defined_closure_bound_once_and_called_is_differentiated(f, mode):
    """`f = make_scaler(a); f(x)`: the factory's body is read in place of the call, so the
    gradient reaches `a` through the captured value (refused until 2026-11-24)."""
    x = np.arange(3.0)
    slope = numerical_grad(lambda a: f(x, a), [2.0], 0)
    if mode == "grad":
        assert_close(ad.grad(f, wrt=1)(x, 2.0), slope)
    elif mode == "jvp":
        assert_close(ad.jvp(f, wrt=1)(x, 2.0, tangent=1.0)[1], slope)
    else:       # f is linear in a: its second derivative is 0
        assert_close(ad.hvp(f, wrt=1)(x, 2.0, vector=1.0), 0.0)


@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
@pytest.mark.parametrize("f, at, marker", CASES, ids=[c[0].__name__ for c in CASES])
def test_a_closure_over_active_values_is_refused_at_the_call(f, at, marker, mode):
    x = np.arange(3.0)
    with pytest.raises(TransformError) as caught:
        if mode == "grad":
            ad.grad(f, wrt=1)(x, 2.0)
        elif mode == "jvp":
            ad.jvp(f, wrt=1)(x, 2.0, tangent=1.0)
        else:
            ad.hvp(f, wrt=1)(x, 2.0, vector=1.0)
    err = caught.value
    if f is closure_passed_on:
        # the factory's result is passed on as an argument: the factory is differentiated
        # first, and refused where it returns its nested def, in every mode
        filename, line, col, _ = location_of(make_scaler, "def scaler")
        assert "nested `def`" in str(err)
    else:
        filename, line, col, _ = location_of(at, marker)
        assert "captured as constants" in str(err)
    assert (err.filename, err.lineno, err.col + 1) == (filename, line, col), str(err)
    assert err.hint


def test_a_closure_over_constants_is_differentiated():
    x = np.array([0.5, -1.0, 2.0])
    assert_close(ad.grad(closure_over_a_constant)(x), numerical_grad(closure_over_a_constant, [x], 0))
    assert_close(ad.jvp(closure_over_a_constant)(x, tangent=np.ones(3))[1],
                 np.sum(numerical_grad(closure_over_a_constant, [x], 0)))


def make_weighting(c):
    def weigh(u):
        return u * c
    return weigh


def weighs_by_a_view_written_later(x):
    a = np.ones(3)
    weigh = make_weighting(a[0:2])      # the closure holds a view of `a`
    y = weigh(x)
    a[0] = 5.0                          # ... written after the call
    return np.sum(y)


def test_a_closure_holding_a_view_of_an_array_written_later_sees_the_value_it_was_called_with():
    """The derivative of `weigh(x)` reads its captured view in the backward pass: the write
    into `a` after the call must be undone first (it gave [5, 1], a fuzzer find, 2026-11-24)."""
    x = np.array([0.3, -0.7])
    assert_close(ad.grad(weighs_by_a_view_written_later)(x), [1.0, 1.0])
    assert_close(ad.jvp(weighs_by_a_view_written_later)(x, tangent=np.array([1.0, 0.0]))[1], 1.0)


def scaled_by_a_view(c, u):
    return u * c


def passes_a_view_then_writes_its_base(x):
    a = np.ones(3)
    c = a[0:2]
    y = scaled_by_a_view(c, x)
    a[0] = 5.0
    return np.sum(y)


def test_a_callee_given_a_view_of_an_array_written_after_the_call_sees_the_value_it_was_given():
    """The callee runs once and its backward pass keeps its arguments: the caller undoes the
    write into `a` before that backward pass runs (it gave [5, 1], 2026-11-24)."""
    x = np.array([0.3, -0.7])
    assert_close(ad.grad(passes_a_view_then_writes_its_base)(x), [1.0, 1.0])


# --- factories returning a lambda, called at once, or bound inside a loop (refused until
# 2026-11-25: the largest refusal of the fuzzer's all-features programs) -----------------------
def _scaler(c):
    s = 0.5 * c + 0.25

    def apply(v):
        return v * s
    return apply


def _shifted_sine(c):
    s = 0.5 * c + 0.25
    return lambda v: np.sin(v + s)


def _factories_every_way(x):
    y = _scaler(np.sum(x))(x ** 2)                 # called at once
    g = _shifted_sine(x[0])                        # a lambda made by the factory
    total = np.sum(g(y)) + np.sum(g(x))
    for k in range(2):
        h = _scaler(x[1] * k)                      # bound inside a loop
        total = total + np.sum(h(x))
    return total + np.sum(_shifted_sine(x[2])(x))


def test_factories_returning_lambdas_called_at_once_or_bound_in_loops():
    x = np.array([0.3, -0.4, 1.2])
    expected = numerical_grad(_factories_every_way, (x,), 0)
    np.testing.assert_allclose(ad.grad(_factories_every_way)(x), expected, rtol=1e-6)
    _, tangent = ad.jvp(_factories_every_way)(x, tangent=np.ones(3))
    assert tangent == pytest.approx(np.sum(expected))


def _stored_then_called(x, a):
    scalers = [make_scaler(a)]
    return np.sum(scalers[0](x))


def test_a_stored_closure_is_refused_naming_the_users_expression():
    with pytest.raises(TransformError, match=r"the call of `scalers\[0\]`") as info:
        ad.grad(_stored_then_called, wrt=1)(np.ones(3), 2.0)
    assert info.value.filename == __file__ and "_item" not in str(info.value)
