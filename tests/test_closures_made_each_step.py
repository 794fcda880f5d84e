"""A closure made anew at each step over new arrays (`grad(lambda w: loss(w, X, y))` in a
training loop) gets the derivative of the first such closure, made again for what its own
cells hold (s2s_ad/closure_templates.py): each step's gradient is that of its own batch, the
cache does not grow with the steps and keeps no step's batch alive."""
import gc
import weakref

import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad import cache, closure_templates
from fd import assert_close, numerical_grad


def objective(w, X, y, decay):
    return np.sum((np.tanh(X @ w) - y) ** 2) + decay * np.sum(w * w)


def step(w, X, y, decay=0.1):
    return ad.grad(lambda v: objective(v, X, y, decay))(w)


def batches(count, rows=6, columns=3, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(rows, columns)), rng.normal(size=rows)) for _ in range(count)]


W = np.array([0.3, -0.2, 0.5])


def test_each_steps_gradient_is_that_of_its_own_batch():
    for X, y in batches(4):
        expected = numerical_grad(lambda v: objective(v, X, y, 0.1), [W], 0)
        assert_close(step(W, X, y), expected)


def test_the_cache_does_not_grow_with_the_steps():
    data = batches(6, seed=1)
    step(W, *data[0])
    size = cache.size()
    for X, y in data[1:]:
        step(W, X, y)
    assert cache.size() == size


def test_no_steps_batch_is_kept_alive():
    X, y = batches(1, seed=2)[0]
    step(W, X, y)                       # the first closure of its kind: the template
    X, y = batches(1, seed=3)[0]
    held = weakref.ref(X)
    step(W, X, y)
    del X, y
    gc.collect()
    assert held() is None


def test_another_shape_dtype_or_plain_value_gets_its_own_derivative():
    (X, y), = batches(1, seed=4)
    for X_, y_, decay in [(X, y, 0.1), (X[:4], y[:4], 0.1), (X.astype(np.float32), y, 0.1),
                          (X, y, 0.0), (X, y, -0.0), (X, y, 2)]:
        expected = numerical_grad(lambda v: objective(v, X_, y_, decay), [W], 0)
        assert_close(step(W, X_, y_, decay), expected, rtol=1e-5 if X_.dtype == np.float32
                     else 1e-6, atol=1e-4 if X_.dtype == np.float32 else 1e-7)


def test_a_cell_rebound_after_the_first_call_is_followed():
    (X1, y1), (X2, y2) = batches(2, seed=5)
    X, y = X1, y1
    g = ad.grad(lambda v: objective(v, X, y, 0.1))
    assert_close(g(W), numerical_grad(lambda v: objective(v, X1, y1, 0.1), [W], 0))
    X, y = X2, y2
    assert_close(g(W), numerical_grad(lambda v: objective(v, X2, y2, 0.1), [W], 0))


@pytest.mark.parametrize("order", ["jvp", "hessian-vector", "second"])
def test_other_derivatives_of_closures_made_each_step(order):
    for X, y in batches(3, seed=6):
        def f(v):
            return objective(v, X, y, 0.1)
        gradient = numerical_grad(f, [W], 0)
        direction = np.array([1.0, -0.5, 0.25])
        if order == "jvp":
            assert_close(ad.jvp(f)(W, tangent=direction)[1], gradient @ direction)
        elif order == "hessian-vector":
            expected = numerical_grad(lambda v: ad.grad(f)(v) @ direction, [W], 0)
            assert_close(ad.hvp(f)(W, vector=direction), expected, rtol=1e-5)
        else:
            expected = numerical_grad(lambda v: np.sum(ad.grad(f)(v) ** 2), [W], 0)
            assert_close(ad.grad(lambda v: np.sum(ad.grad(f)(v) ** 2))(W), expected, rtol=1e-5)


def test_a_derivative_holding_a_view_of_a_cell_array_is_no_template():
    X = np.ones((2, 2))

    def f(w):
        return X @ w
    generated = type("Generated", (), {})()
    generated.closure_names = frozenset({"X"})
    for bound, reusable in [(X, True), (X.T, False), (X.sum, False), ([X[0]], False),
                            (lambda: X, False), (np.zeros(2), True)]:
        names = ("X", "other") if bound is not X else ("X",)
        values = (X, bound) if bound is not X else (X,)
        generated.function = lambda: None
        generated.function.__s2s_factory__ = (None, names, values)
        assert closure_templates.reusable(generated, f) is reusable, bound


def test_a_closure_over_a_tuple_of_arrays():
    data = batches(4, seed=7)
    sizes = []
    for batch in data:
        def f(v):
            return objective(v, batch[0], batch[1], 0.5)
        expected = numerical_grad(f, [W], 0)
        assert_close(ad.grad(f)(W), expected)
        sizes.append(cache.size())
    assert sizes[1:] == sizes[:1] * (len(sizes) - 1)
