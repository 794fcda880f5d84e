"""A function of yours that the backward pass runs again (a checkpoint, or any callee under a
second derivative: hvp, hessian, grad of grad) and that draws random numbers would draw other
numbers the second time: the derivative would belong to neither draw (found 2026-11-25: the
hvp and the hessian of `sum(noisy(x) ** 2)` had negative diagonals). Refused at the call,
naming the draw; a draw in a callee that runs once (first-order gradients) is differentiated."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close
from s2s_ad.errors import UnsupportedSyntax


def noisy(x):
    return x * np.random.normal(size=x.shape)


def uses_noisy(x):
    return np.sum(noisy(x) ** 2)


def deeper(x):
    return noisy(x) * 2.0


def uses_deeper(x):
    return np.sum(deeper(x) ** 2)


def noisy_called(x):
    for _ in range(1):          # a loop: a call, not copied in (passes/inline_helpers.py)
        x = x * np.random.normal(size=x.shape)
    return x


def uses_noisy_called(x):
    return np.sum(noisy_called(x) ** 2)


@ad.checkpoint
def noisy_checkpoint(x):
    return x * np.random.normal(size=x.shape)


def uses_checkpoint(x):
    return np.sum(noisy_checkpoint(x) ** 2)


def uses_checkpoint_at_the_call(x):
    return np.sum(ad.checkpoint(noisy)(x) ** 2)


X = np.array([0.5, -1.0, 2.0])


@pytest.mark.parametrize("derivative, f", [
    (lambda f: ad.hvp(f)(X, vector=np.ones(3)), uses_noisy_called),
    (lambda f: ad.hessian(f)(X), uses_noisy_called),
    (lambda f: ad.grad(f)(X), uses_checkpoint),
    (lambda f: ad.grad(f)(X), uses_checkpoint_at_the_call)])
def test_a_draw_run_twice_is_refused_at_the_call(derivative, f):
    with pytest.raises(UnsupportedSyntax, match="draws random numbers") as caught:
        derivative(f)
    assert "np.random.normal(size=x.shape)" in str(caught.value)
    assert "pass them in" in caught.value.hint


@pytest.mark.parametrize("f", [uses_noisy, uses_deeper])
def test_a_draw_in_a_helper_copied_in_is_drawn_once_under_second_derivatives(f):
    # `noisy` (and `deeper`, which calls it) are copied into the caller: its one draw, as the
    # function's own draw, is made once per call of the hessian or the hvp
    scale = 4.0 if f is uses_deeper else 1.0
    for second in (lambda: ad.hessian(f)(X), lambda: np.diag(ad.hvp(f)(X, vector=np.ones(3)))):
        np.random.seed(5)
        got = second()
        np.random.seed(5)
        assert_close(got, np.diag(2 * scale * np.random.normal(size=3) ** 2))


def test_a_draw_in_a_callee_that_runs_once_is_differentiated_with_its_own_draw():
    np.random.seed(3)
    grad = ad.grad(uses_noisy)(X)
    np.random.seed(3)
    draw = np.random.normal(size=3)
    assert_close(grad, 2 * X * draw ** 2)


class NoisyLayer:
    """A layer object: its call is dispatched when the derivative runs, and reverse mode's
    dispatch runs the layer again inside its vjp."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def __call__(self, x):
        return x * self.rng.normal(size=x.shape)


def through_a_layer(x, layer):
    return np.sum(layer(x) ** 2)


def test_a_layer_object_that_draws_runs_once_in_reverse_mode():
    """It ran twice, the second time inside vjp_call's backward pass: a silent wrong gradient
    (2 x r1 r2 for two draws r1, r2, where 2 x r^2 is right). It runs once now (split_call)."""
    grad = ad.grad(through_a_layer)(X, NoisyLayer(7))
    draw = np.random.default_rng(7).normal(size=3)
    assert_close(grad, 2 * X * draw ** 2)


def test_a_layer_object_that_draws_is_refused_under_second_derivatives():
    with pytest.raises(UnsupportedSyntax, match="draws random numbers") as caught:
        ad.hvp(through_a_layer)(X, NoisyLayer(0), vector=np.ones(3))
    assert "self.rng.normal(size=x.shape)" in str(caught.value)


def test_a_layer_object_that_draws_runs_once_in_forward_mode():
    value, tangent = ad.jvp(through_a_layer)(X, NoisyLayer(5), tangent=np.ones(3))
    draw = np.random.default_rng(5).normal(size=3)
    assert_close(value, np.sum((X * draw) ** 2))
    assert_close(tangent, np.sum(2 * X * draw ** 2))


RNG = np.random.default_rng(11)


def noisy_through(x, r):
    if r is None:               # a branch: a call, not copied in (passes/inline_helpers.py)
        raise ValueError("a generator is required")
    return x * r.normal(size=x.shape)


def generator_of_the_module(x):
    return np.sum(noisy_through(x, RNG) ** 2)


def generator_passed_in(x, r):
    return np.sum(noisy_through(x, r) ** 2)


@pytest.mark.parametrize("f, args", [(generator_of_the_module, ()),
                                     (generator_passed_in, (np.random.default_rng(1),))])
def test_a_draw_through_a_generator_argument_is_refused_under_second_derivatives(f, args):
    """Both hessians had negative diagonal entries (found 2026-11-25)."""
    with pytest.raises(UnsupportedSyntax, match="draws random numbers"):
        ad.hessian(f)(X, *args)


def noisy_through_copied_in(x, r):
    return x * r.normal(size=x.shape)


def generator_passed_to_a_one_line_helper(x, r):
    return np.sum(noisy_through_copied_in(x, r) ** 2)


def test_a_draw_through_a_generator_in_a_helper_copied_in_is_made_once():
    # copied into the caller, the draw is the function's own: one per hessian
    got = ad.hessian(generator_passed_to_a_one_line_helper)(X, np.random.default_rng(1))
    assert_close(got, np.diag(2 * np.random.default_rng(1).normal(size=3) ** 2))
