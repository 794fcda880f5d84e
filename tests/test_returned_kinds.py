"""What a call of a user function returns, known to the caller's shape facts from the callee's
source (analysis/returned_kinds.py), and the arguments such a call only reads
(analysis/callee_reads.py): a loss calling a model writes its softmax's adjoint as if the
model were inline. Checked against HIPS autograd, and made again when a function the answer
was read from is rebound."""
import os
import sys
import types

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import rebound_activations
import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.analysis.kinds import Array, Entries

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
from workloads.layered import loss  # noqa: E402   loss -> model -> dense -> act


def autograd_loss(params, X, y):
    h = X
    for W, b in params:
        h = anp.tanh(anp.dot(h, W) + b)
    shifted = h - anp.max(h, axis=1, keepdims=True)
    log_probs = shifted - anp.log(anp.sum(anp.exp(shifted), axis=1, keepdims=True))
    return -anp.mean(log_probs[anp.arange(X.shape[0]), y])


def _inputs(seed, batch, widths):
    rng = np.random.default_rng(seed)
    params = [(rng.normal(size=(n_in, n_out)), rng.normal(size=n_out))
              for n_in, n_out in zip(widths[:-1], widths[1:])]
    return params, rng.normal(size=(batch, widths[0])), rng.integers(0, widths[-1], size=batch)


def _assert_gradients(ours, theirs):
    for (dW, db), (eW, eb) in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(dW, eW, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(db, eb, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("batch, widths", [(8, [4, 8, 8, 3]), (1, [3, 2]), (5, [2, 1, 3]),
                                           (4, [3, 3, 1]), (2, [1, 4, 2])])
def test_a_loss_calling_a_model_matches_autograd(batch, widths):
    params, X, y = _inputs(0, batch, widths)
    _assert_gradients(ad.grad(loss)(params, X, y), autograd.grad(autograd_loss)(params, X, y))


def test_the_loss_knows_what_the_model_returns():
    params, X, y = _inputs(1, 8, [4, 8, 8, 3])
    df = ad.grad(loss)
    df(params, X, y)
    assert isinstance(df.kinds[0], Entries) and df.kinds[1] == Array(2, ("n1", "n0"))
    source = df.source
    assert "unbroadcast" not in source and "logits.max(axis=1, keepdims=True)" in source


def pick(h, W, wide):
    if wide:
        return h @ W
    return np.sum(h, axis=1, keepdims=True)


def two_ways(h, W, wide):
    out = pick(h, W, wide)
    return np.sum((out - np.mean(out, axis=0)) ** 2)


@pytest.mark.parametrize("wide", [True, False])
def test_a_callee_returning_other_shapes_on_other_paths(wide):
    rng = np.random.default_rng(2)
    h, W = rng.normal(size=(4, 3)), rng.normal(size=(3, 5))

    def theirs(h, W):
        out = anp.dot(h, W) if wide else anp.sum(h, axis=1, keepdims=True)
        return anp.sum((out - anp.mean(out, axis=0)) ** 2)
    ours = ad.grad(two_ways, wrt=(0, 1))(h, W, wide)
    expected = autograd.grad(theirs, (0, 1))(h, W)
    for got, want in zip(ours, expected):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def wide_act(z):
    return np.tanh(z)


def narrow_act(z):
    return np.sum(np.tanh(z), axis=1, keepdims=True)


def applied(x, times):
    for _ in range(times):          # a loop: called, not copied into the caller
        x = activation(x)
    return x


activation = wide_act


def head(x, v):
    out = applied(x, 1)
    return np.sum((out + v) ** 2)


def test_rebinding_a_function_the_facts_were_read_from_makes_the_derivative_again():
    """`head` knows `out` has x's shape from `applied` and `wide_act`; once `activation` is
    `narrow_act`, `out` is a column that `+ v` stretches, whose adjoint must be summed."""
    global activation
    rng = np.random.default_rng(4)
    x, v = rng.normal(size=(4, 3)), rng.normal(size=(1, 3))
    df = ad.grad(head)
    assert_close(df(x, v), numerical_grad(head, (x, v), 0))
    assert "unbroadcast" not in df.source
    activation = narrow_act
    try:
        assert_close(df(x, v), numerical_grad(head, (x, v), 0))
    finally:
        activation = wide_act


# --- a second reader's cases (2026-11-30): source the facts cannot read as written ----------

def pooled_by_case(x, mode):
    y = x * 1.0
    match mode:
        case "rows":
            return np.sum(y, axis=1, keepdims=True), y
    return y, y


def loss_of_a_case(x, c, mode):
    out, _ = pooled_by_case(x, mode)
    return np.sum((out + c) ** 2)


def pooled_by_walrus(x):
    y = x * 1.0
    if (y := np.sum(y, axis=1, keepdims=True)) is not None:
        pass
    return y, x * 2.0


def loss_of_a_walrus(x, c):
    out, _ = pooled_by_walrus(x)
    return np.sum((out + c) ** 2)


def _pooled_expected(x, c):
    s = np.sum(x, axis=1, keepdims=True)
    return np.sum(2 * (s + c), axis=1, keepdims=True) * np.ones_like(x)


@pytest.mark.parametrize("loss, extra", [(loss_of_a_case, ("rows",)), (loss_of_a_walrus, ())],
                         ids=["match", "walrus"])
def test_a_callee_returning_from_a_case_or_binding_by_walrus(loss, extra):
    x, c = np.arange(12.0).reshape(3, 4) / 10, np.ones((3, 4))
    assert_close(ad.grad(loss)(x, c, *extra), _pooled_expected(x, c))


def loss_through_an_attribute(x, c):
    h, _ = rebound_activations.act(x)
    return np.sum((h + c) ** 2)


def test_a_callee_reached_through_a_module_attribute_and_rebound():
    """The facts follow a callee called by its name alone: `module.act` may be rebound
    without the derivative knowing, so what it returns is not read from its source."""
    x, c = np.arange(12.0).reshape(3, 4) / 10, np.ones((3, 4))
    df = ad.grad(loss_through_an_attribute)
    original = rebound_activations.act
    df(x, c)
    rebound_activations.act = rebound_activations.pooled
    try:
        t = np.tanh(x)
        s = t.sum(axis=1, keepdims=True)
        assert_close(df(x, c), np.sum(2 * (s + c), axis=1, keepdims=True) * (1 - t ** 2))
    finally:
        rebound_activations.act = original


def summed_activation(x):
    return np.sum(rebound_activations.tanh(x))


def test_forward_mode_follows_a_callee_reached_through_a_module_attribute_and_rebound():
    # found 2026-11-30 by a new user's try: jvp kept the first callee's derivative
    x, t = np.array([0.5, -1.0, 2.0]), np.ones(3)
    value, tangent = ad.jvp(summed_activation)(x, tangent=t)
    assert_close(tangent, np.sum(1 - np.tanh(x) ** 2))
    original = rebound_activations.tanh
    rebound_activations.tanh = rebound_activations.square
    try:
        value, tangent = ad.jvp(summed_activation)(x, tangent=t)
        assert_close(value, np.sum(x * x))
        assert_close(tangent, np.sum(2 * x))
    finally:
        rebound_activations.tanh = original


def branchy_activation(x):
    y = rebound_activations.tanh(x)
    if y.ndim > 3:                  # a branch: called, not copied into the caller
        y = y * 2.0
    return np.sum(y ** 2)


def test_hvp_follows_a_callee_rebound_after_its_first_call(monkeypatch):
    # found 2026-11-30: the tangent of the callee's vjp stayed the first callee's (a silent
    # wrong Hessian-vector product; the gradient part followed)
    x, v = np.array([0.3, -0.5, 1.2]), np.array([1.0, 0.5, -2.0])
    hvp = ad.hvp(branchy_activation)
    hvp(x, vector=v)
    monkeypatch.setattr(rebound_activations, "tanh", rebound_activations.square)
    assert_close(hvp(x, vector=v), 12 * x ** 2 * v)         # sum(x**4): Hessian 12 x**2


def test_a_callee_rebound_to_a_numpy_function_after_its_first_call(monkeypatch):
    """`module.tanh = np.sin` after the first call: the caller's derivative is made again, and
    applies np.sin's rule (it was refused with the transformer's frames)."""
    x, v = np.array([0.3, -0.5, 1.2]), np.array([1.0, 0.5, -2.0])
    grad, value_and_grad, jvp = ad.grad(branchy_activation), \
        ad.value_and_grad(branchy_activation), ad.jvp(branchy_activation)
    grad(x), value_and_grad(x), jvp(x, tangent=v)
    hvp = ad.hvp(branchy_activation)
    hvp(x, vector=v)
    monkeypatch.setattr(rebound_activations, "tanh", np.sin)         # sum(sin(x)**2)
    assert_close(hvp(x, vector=v), 2 * np.cos(2 * x) * v)
    assert_close(grad(x), np.sin(2 * x))
    value, gradient = value_and_grad(x)
    assert_close(value, np.sum(np.sin(x) ** 2))
    assert_close(gradient, np.sin(2 * x))
    value, tangent = jvp(x, tangent=v)
    assert_close(tangent, np.sin(2 * x) @ v)


def summed_total(x):
    return np.sum(rebound_activations.total(x) ** 2)


@pytest.mark.parametrize("replacement, value, gradient", [
    (np.sum, lambda x: np.sum(x) ** 2, lambda x: np.full_like(x, 2 * np.sum(x))),
    (lambda t: np.sum(t * t, axis=0), lambda x: np.sum(np.sum(x * x, axis=0) ** 2),
     lambda x: 4 * x * np.sum(x * x, axis=0))])
def test_a_callee_rebound_to_one_of_other_parameters_after_its_first_call(
        monkeypatch, replacement, value, gradient):
    """`module.total(x)` with `total(a, axis=0)`, rebound to np.sum or to a lambda of another
    parameter name: the caller's derivative is made again and reads the call as written
    (the arguments laid out for `total`, its default filled in, went to np.sum as `axis`, and
    the lambda's parameter was not the one differentiated: wrong values, found 2026-11-30 by
    a second reader)."""
    x, v = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, -1.0], [0.5, 2.0]])
    value_and_grad, jvp = ad.value_and_grad(summed_total), ad.jvp(summed_total)
    value_and_grad(x), jvp(x, tangent=v)
    monkeypatch.setattr(rebound_activations, "total", replacement)
    got_value, got_gradient = value_and_grad(x)
    assert_close(got_value, value(x))
    assert_close(got_gradient, gradient(x))
    assert_close(jvp(x, tangent=v)[1], np.sum(gradient(x) * v))


def scaled_once(x, W):
    return x @ W


def scaled_twice(x, W):
    h = scaled_once(x, W)
    if h.ndim > 5:                  # a branch: called, not copied into the caller
        h = h * 2.0
    return scaled_once(h, W)


def reads_x_after_a_call(x, y, W):
    out = scaled_twice(x, W)
    return np.sum(out) + np.sum((x + y) ** 2)


def test_a_callee_calling_one_helper_twice_leaves_the_caller_its_facts():
    """`scaled_once` met a second time in `scaled_twice` was taken for a recursion that may
    reshape an argument in place, and the caller's facts of `x` were dropped: `x + y` then
    kept an `unbroadcast` and the values it reads."""
    rng = np.random.default_rng(7)
    x, y, W = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(3, 3))
    df = ad.grad(reads_x_after_a_call, wrt=(0, 1, 2))
    got = df(x, y, W)
    assert "unbroadcast" not in df.source
    expected = autograd.grad(lambda x, y, W: anp.sum(anp.dot(anp.dot(x, W), W)) +
                             anp.sum((x + y) ** 2), (0, 1, 2))(x, y, W)
    for ours, theirs in zip(got, expected):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


layers_package = types.ModuleType("layers_package")         # `layers_package.inner.act(x)`
layers_package.inner = types.ModuleType("layers_package.inner")
layers_package.inner.act = rebound_activations.tanh


def through_a_package(x):
    y = layers_package.inner.act(x)
    if y.ndim > 3:                  # a branch: called, not copied into the caller
        y = y * 2.0
    return np.sum(y ** 2)


def test_a_callee_reached_through_a_package_and_rebound(monkeypatch):
    x = np.array([0.3, -0.5, 1.2])
    grad = ad.grad(through_a_package)
    assert_close(grad(x), 2 * np.tanh(x) * (1 - np.tanh(x) ** 2))
    monkeypatch.setattr(layers_package.inner, "act", lambda t: t * t)
    assert_close(grad(x), 4 * x ** 3)
