"""A call into a user function runs once: the forward pass keeps the callee's backward pass
(`y, back = fwd_callee(...)`) and the backward pass calls it, instead of calling the callee's
vjp, which ran the callee again (a call chain of depth d ran its innermost function d + 1
times, and a callee that draws random numbers saw another draw in the backward pass)."""
import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import s2s_ad as ad

CALLS = []


def counted_tanh(z):
    CALLS.append(1)
    return np.tanh(z)


@ad.adjoint(counted_tanh)
def _counted_tanh_adjoint(y, z):
    d[z] = d[y] * (1 - y * y)      # noqa: F821 (a rule template: `d` is the rule's notation)


@ad.tangent(counted_tanh)
def _counted_tanh_tangent(y, z):
    d[y] = d[z] * (1 - y * y)      # noqa: F821


def act(z):
    return counted_tanh(z)


def dense(W, b, x):
    return act(x @ W + b)


def model(params, x):
    h = x
    for W, b in params:
        h = dense(W, b, h)
    return h


def loss(params, x, y):
    return np.mean((model(params, x) - y) ** 2)


def noisy(x):
    return x + np.random.normal(size=np.shape(x))


def loss_of_a_noisy_callee(x):
    return np.sum(noisy(x) ** 2)


rng = np.random.default_rng(5)
SIZES = [4, 6, 5, 3]
PARAMS = [(rng.normal(size=(m, n)), rng.normal(size=n)) for m, n in zip(SIZES[:-1], SIZES[1:])]
X, Y = rng.normal(size=(7, 4)), rng.normal(size=(7, 3))


def test_each_layer_runs_once_per_gradient():
    ad.grad(loss)(PARAMS, X, Y)                   # transform first: count one gradient alone
    CALLS.clear()
    ad.grad(loss)(PARAMS, X, Y)
    assert len(CALLS) == len(PARAMS)              # recomputation ran it 3 more times a layer


def test_the_layered_gradient_matches_autograd():
    def autograd_loss(params):
        h = X
        for W, b in params:
            h = anp.tanh(h @ W + b)
        return anp.mean((h - Y) ** 2)
    expected = autograd.grad(autograd_loss)(PARAMS)
    for (dW, db), (eW, eb) in zip(ad.grad(loss)(PARAMS, X, Y), expected):
        np.testing.assert_allclose(dW, eW, rtol=1e-10)
        np.testing.assert_allclose(db, eb, rtol=1e-10)


def test_a_callee_drawing_random_numbers_is_differentiated_at_its_own_draw():
    x = np.array([0.5, -1.0, 2.0])
    np.random.seed(7)
    value, gradient = ad.value_and_grad(loss_of_a_noisy_callee)(x)
    np.random.seed(7)
    drawn = x + np.random.normal(size=3)
    assert value == pytest.approx(np.sum(drawn ** 2))
    np.testing.assert_allclose(gradient, 2 * drawn)


def test_second_derivatives_read_the_recomputing_twin():
    # the derivative holds closures; differentiating it again reads the twin that calls the
    # callee's vjp, with the same values
    def cubic(x):
        return x ** 3

    def outer(x):
        return np.sum(cubic(x) * 2.0)

    x = np.array([0.3, -1.2])
    np.testing.assert_allclose(ad.hessian(outer)(x), np.diag(12 * x))
    np.testing.assert_allclose(ad.grad(lambda v: np.sum(ad.grad(outer)(v)))(x), 12 * x)


@ad.checkpoint
def checkpointed_dense(W, b, x):
    return act(x @ W + b)


def checkpointed_model(params, x):
    h = x
    for W, b in params:
        h = checkpointed_dense(W, b, h)
    return np.mean((h - Y) ** 2)


def checkpointed_at_the_call(params, x):
    h = x
    for W, b in params:
        h = ad.checkpoint(dense)(W, b, h)
    return np.mean((h - Y) ** 2)


@pytest.mark.parametrize("fn", [checkpointed_model, checkpointed_at_the_call])
def test_a_checkpointed_callee_is_recomputed_in_the_backward_pass(fn):
    expected = ad.grad(loss)(PARAMS, X, Y)
    ad.grad(fn)(PARAMS, X)
    CALLS.clear()
    actual = ad.grad(fn)(PARAMS, X)
    assert len(CALLS) == 2 * len(PARAMS)          # forward, and again in the backward pass
    for (dW, db), (eW, eb) in zip(actual, expected):
        np.testing.assert_allclose(dW, eW, rtol=1e-12)
        np.testing.assert_allclose(db, eb, rtol=1e-12)


def test_checkpoint_leaves_the_function_itself_unmarked():
    marked = ad.checkpoint(dense)
    assert marked is not dense and not getattr(dense, "__s2s_checkpoint__", False)
    np.testing.assert_array_equal(marked(*PARAMS[0], X), dense(*PARAMS[0], X))

