"""`grad(f)` runs code of its own, `grad_<f>(*params) -> gradients`: where the output is known
to be a real number its seed is 1, and what only computed the value (the loss's last
reductions, a running total in a loop) is not computed. value_and_grad and vjp keep computing
the value. The gradients are those of value_and_grad, bit for bit in float64, and match
central differences."""
import math

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def running_total(x):
    total = 0.0
    for k in range(len(x)):
        total = total + x[k] * x[k] + 0.5 * x[k]
    return total / len(x)


def total_read_by_its_loop(x):
    total = 0.0
    steps = 0
    while total < 5.0:
        total = total + np.sum(x * x)
        steps += 1
    return total * steps


def cross_entropy(W, X, y):
    logits = X @ W
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(X.shape[0]), y])


def value_read_by_the_backward(x):
    s = np.sum(np.sin(x))
    return s * s


def picked_by_a_mask(x):
    rows = np.arange(x.shape[0])
    largest = x[0] == np.max(x[0])      # one entry: x[rows, largest] is a column of x
    return np.sum(x[rows, largest] ** 2) + np.sum(x[rows, 0])


CASES = {
    "running_total": (running_total, lambda rng: (rng.normal(size=7),)),
    "total_read_by_its_loop": (total_read_by_its_loop, lambda rng: (rng.normal(size=4),)),
    "cross_entropy": (cross_entropy, lambda rng: (rng.normal(size=(4, 3)), rng.normal(size=(6, 4)),
                                                  rng.integers(0, 3, size=6))),
    "value_read_by_the_backward": (value_read_by_the_backward, lambda rng: (rng.normal(size=5),)),
    "picked_by_a_mask": (picked_by_a_mask, lambda rng: (rng.normal(size=(5, 3)),)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_gradient_alone_is_value_and_grads_gradient(name):
    f, make = CASES[name]
    args = make(np.random.default_rng(3))
    g = ad.grad(f)(*args)
    value, expected = ad.value_and_grad(f)(*args)
    assert value == f(*args)
    np.testing.assert_array_equal(g, expected)
    assert_close(g, numerical_grad(f, args, 0))


def test_what_only_computed_the_value_is_not_computed():
    x = np.random.default_rng(0).normal(size=6)
    g = ad.grad(running_total)
    g(x)
    assert g.source.startswith("def grad_running_total(x):")
    code = [line for line in g.source.splitlines() if "#" not in line]
    assert not any(line.lstrip().startswith("total =") for line in code)   # read by nothing else
    assert sum(line.lstrip().startswith("for ") for line in code) == 1   # the backward loop
    assert "seed" not in g.source
    v = ad.value_and_grad(running_total)
    v(x)
    assert "total = total" in v.source


def test_the_loss_of_a_classifier_is_not_computed():
    W, X, y = CASES["cross_entropy"][1](np.random.default_rng(1))
    g = ad.grad(cross_entropy)
    g(W, X, y)
    code = [line for line in g.source.splitlines() if "#" not in line]
    assert not any("np.mean" in line for line in code) and "    d_neg = 1.0" in code


def test_a_value_its_loop_reads_is_computed():
    x = np.full(3, 0.5)
    g = ad.grad(total_read_by_its_loop)
    assert_close(g(x), numerical_grad(total_read_by_its_loop, (x,), 0))
    assert "total = total" in g.source


def test_grad_still_refuses_an_array_output():
    def double(x):
        return x * 2
    with pytest.raises(TypeError, match="requires double to return a scalar"):
        ad.grad(double)(np.ones(3))


def test_float32_gradients_stay_float32():
    def f(x):
        return np.sum(x * x) * 0.1
    x = np.linspace(-1, 1, 5, dtype=np.float32)
    g = ad.grad(f)(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, ad.value_and_grad(f)(x)[1], rtol=1e-6)


def test_has_aux_still_returns_the_aux():
    def f(x):
        return np.sum(x ** 2), "aux"
    g, aux = ad.grad(f, has_aux=True)(np.arange(3.0))
    assert aux == "aux"
    np.testing.assert_array_equal(g, 2 * np.arange(3.0))


def test_a_math_function_that_raises_still_raises():
    def f(x):
        return math.log(x * x - 1.0) + x
    with pytest.raises(ValueError, match="math domain error"):
        f(0.5)
    with pytest.raises(ValueError, match="math domain error"):
        ad.grad(f)(0.5)
    assert ad.grad(f)(2.0) == pytest.approx(2 * 2.0 / 3.0 + 1.0)


# --- found by a second reader of the change: grad raises where the function raises ----------

def bound_in_a_loop(x, n):
    for i in range(n):
        y = np.sum(np.sin(x))
    return y


def test_an_output_never_bound_is_an_error_not_a_zero_gradient():
    with pytest.raises(TypeError, match="returned None"):
        ad.grad(bound_in_a_loop)(np.array([0.1, 0.2, 0.3]), 0)
    assert_close(ad.grad(bound_in_a_loop)(np.array([0.1, 0.2]), 2), np.cos([0.1, 0.2]))


def plus_a_reciprocal(x, k):
    return np.sum(x * x) + 1.0 / k


def plus_an_entry(x, y):
    return np.sum(x * x) + y[10]


def plus_a_conversion(x, y):
    return np.sum(x * x) + float(y)


def counting_a_range(x, n):
    total = 0.0
    for i in range(n):
        total = total + 1.0
    return np.sum(x * x)


@pytest.mark.parametrize("f, other, error", [
    (plus_a_reciprocal, 0.0, ZeroDivisionError), (plus_an_entry, np.ones(3), IndexError),
    (plus_a_conversion, np.ones(3), TypeError), (counting_a_range, 2.5, TypeError)],
    ids=lambda v: getattr(v, "__name__", ""))
def test_what_only_the_value_needs_still_raises_where_the_function_raises(f, other, error):
    x = np.arange(3.0)
    with pytest.raises(error):
        f(x, other)
    for transform in (ad.grad, ad.value_and_grad):
        with pytest.raises(error):
            transform(f)(x, other)


def test_an_entry_and_a_division_the_backward_pass_repeats_are_not_computed_twice():
    x = np.random.default_rng(0).normal(size=6)
    g = ad.grad(running_total)
    g(x)
    code = [line for line in g.source.splitlines() if "#" not in line]
    forward = code[:code.index("    d_div = 1.0")]
    assert not any("x[k]" in line or "/" in line for line in forward), g.source
    with pytest.raises(ZeroDivisionError):          # as running_total(np.zeros(0)) does
        g(np.zeros(0))


def scaled(x, t):
    return np.sum(x * x) / t


def test_a_python_zero_dividing_the_seed_raises_as_documented():
    """grad's seed is the Python float 1.0 (README, "How it works", API): divided by a Python
    0.0 it raises, where the function's NumPy number gives inf and value_and_grad inf and nan."""
    x = np.arange(3.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        assert scaled(x, 0.0) == np.inf
        assert np.isnan(ad.value_and_grad(scaled)(x, 0.0)[1][0])
    with pytest.raises(ZeroDivisionError):
        ad.grad(scaled)(x, 0.0)
