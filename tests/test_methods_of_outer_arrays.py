"""A method of an array the function does not compute, a module's or a closure's (`X.dot(w)`,
`X.T.dot(w)`), is the method of that array, as it is on an argument: differentiated through
its other operands in both modes (it was refused as a callable with no rule)."""
import numpy as np
import pytest

import layer_classes
import s2s_ad as ad
from s2s_ad.errors import TransformError
from fd import assert_close, numerical_grad

RNG = np.random.default_rng(3)
FEATURES = RNG.normal(size=(5, 3))
TARGETS = RNG.normal(size=5)
W = RNG.normal(size=3)


def module_array_dot(w):
    r = FEATURES.dot(w) - TARGETS
    return np.sum(r * r)


def module_array_transposed_dot(v):
    return np.sum(np.sin(FEATURES.T.dot(v)))


def method_with_keywords(w):
    return np.sum(FEATURES.dot(w).clip(min=-0.5, max=0.5) ** 2)


def make_loss(X, y):
    def loss(w):
        return np.sum((np.tanh(X.dot(w)) - y) ** 2) + X.shape[0] * np.sum(w * w)
    return loss


CASES = [(module_array_dot, W), (module_array_transposed_dot, TARGETS),
         (method_with_keywords, W), (make_loss(FEATURES, TARGETS), W)]


@pytest.mark.parametrize("f, x", CASES)
def test_reverse_mode_matches_central_differences(f, x):
    assert_close(ad.grad(f)(x), numerical_grad(f, [x], 0))


@pytest.mark.parametrize("f, x", CASES)
def test_forward_mode_matches_central_differences(f, x):
    direction = np.linspace(-1.0, 1.0, x.size)
    _, slope = ad.jvp(f)(x, tangent=direction)
    assert_close(slope, numerical_grad(f, [x], 0) @ direction)


def test_matches_autograd():
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    X, y = anp.array(FEATURES), anp.array(TARGETS)

    def reference(w):
        return anp.sum((anp.tanh(anp.dot(X, w)) - y) ** 2) + X.shape[0] * anp.sum(w * w)
    assert_close(ad.grad(make_loss(FEATURES, TARGETS))(W), autograd.grad(reference)(W))


def test_the_method_of_a_random_generator_is_still_a_draw():
    rng = np.random.default_rng(0)

    def noisy(w):
        return np.sum(w * rng.normal(size=3))
    state = rng.bit_generator.state
    g = ad.grad(noisy)(W)
    rng.bit_generator.state = state
    assert_close(g, np.random.default_rng(0).normal(size=3))


MASKED = np.ma.array(FEATURES, mask=np.eye(5, 3, dtype=bool))


def masked_product(w):
    return np.sum(np.asarray(MASKED.dot(w)) ** 2)


def test_a_method_of_a_masked_array_in_view_is_refused_not_read_as_an_arrays():
    with pytest.raises(TransformError, match="MASKED.dot"):
        ad.grad(masked_product)(W)


M = FEATURES[:2]


def through_a_module(lin, x):
    return np.sum(np.sin(lin.dot(x)))


def test_a_class_reached_only_through_a_module_of_yours():
    """`layer_classes.Scaled` is never named here, and no class here has a `dot`: its
    `dot` is found through the module, not read as an array's (a crash, or a wrong gradient)."""
    lin, x = layer_classes.make_scaled(M), np.array([0.1, -0.2, 0.3])
    assert_close(ad.grad(through_a_module)(lin, x).W, np.outer(np.cos(M @ x), x))
    assert_close(ad.grad(through_a_module, wrt=1)(lin, x), M.T @ np.cos(M @ x))
