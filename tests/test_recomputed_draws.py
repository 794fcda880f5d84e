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


@ad.checkpoint
def noisy_checkpoint(x):
    return x * np.random.normal(size=x.shape)


def uses_checkpoint(x):
    return np.sum(noisy_checkpoint(x) ** 2)


X = np.array([0.5, -1.0, 2.0])


@pytest.mark.parametrize("derivative, f", [
    (lambda f: ad.hvp(f)(X, vector=np.ones(3)), uses_noisy),
    (lambda f: ad.hessian(f)(X), uses_noisy),
    (lambda f: ad.hessian(f)(X), uses_deeper),
    (lambda f: ad.grad(f)(X), uses_checkpoint)])
def test_a_draw_run_twice_is_refused_at_the_call(derivative, f):
    with pytest.raises(UnsupportedSyntax, match="draws random numbers") as caught:
        derivative(f)
    assert "np.random.normal(size=x.shape)" in str(caught.value)
    assert "pass them in" in caught.value.hint


def test_a_draw_in_a_callee_that_runs_once_is_differentiated_with_its_own_draw():
    np.random.seed(3)
    grad = ad.grad(uses_noisy)(X)
    np.random.seed(3)
    draw = np.random.normal(size=3)
    assert_close(grad, 2 * X * draw ** 2)
