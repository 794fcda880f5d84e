"""`jacobian` and `hessian` run the derivative once per column (or per row): a function that
draws random numbers must see the same draws in every one, the draws of one call (found
2026-11-28: each column drew new numbers, and the Jacobian of `x * normal()` mixed draws).
The oracles see one draw: finite differences reseeded before every evaluation, and HIPS
autograd, which runs the function once."""
import autograd
import numpy as np
import pytest

import s2s_ad as ad
from fd import numerical_grad
from oracle_checks import with_autograd_numpy


def scaled_by_global_draws(x):
    return x * np.random.normal(size=x.shape)


def squares_by_global_draws(x):
    return np.sum(x * x * np.random.normal(size=x.shape))


def fewer_outputs_than_inputs(x):
    return np.sum(x[:, None] * np.random.uniform(size=(x.shape[0], 2)), axis=0)


def by_generator(x, rng):
    return np.sin(x) * rng.normal(size=x.shape)


RNG = np.random.default_rng(5)


def by_module_generator(x):
    return np.tanh(x) * RNG.normal(size=x.shape)


class Noisy:
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def apply(self, x):
        return np.sum(x ** 3 * self.rng.normal(size=x.shape))


X = np.array([0.3, -0.7, 1.1])


def reseeded(fn, seed):
    def run(x):
        np.random.seed(seed)
        return fn(x)
    return run


def numerical_jacobian(fn, x):
    return np.stack([numerical_grad(lambda v: fn(v)[k], (x,), 0)
                     for k in range(np.size(fn(x)))])


@pytest.mark.parametrize("fn", [scaled_by_global_draws, fewer_outputs_than_inputs])
def test_jacobian_of_global_draws(fn):
    np.random.seed(3)
    jac = ad.jacobian(fn)(X)
    np.random.seed(3)
    value = fn(X)
    np.testing.assert_allclose(jac, numerical_jacobian(reseeded(fn, 3), X), rtol=1e-6,
                               atol=1e-8)
    np.random.seed(3)
    np.testing.assert_allclose(jac, autograd.jacobian(with_autograd_numpy(fn))(X), rtol=1e-12)
    np.random.seed(3)
    ad.jacobian(fn)(X)
    after = np.random.normal()
    np.random.seed(3)
    np.testing.assert_allclose(fn(X), value)
    assert np.random.normal() == after          # the state moves on as after one call


def test_hessian_of_global_draws():
    np.random.seed(4)
    hess = ad.hessian(squares_by_global_draws)(X)
    np.random.seed(4)
    draws = np.random.normal(size=X.shape)
    np.testing.assert_allclose(hess, np.diag(2 * draws), rtol=1e-12)
    np.random.seed(4)
    np.testing.assert_allclose(
        hess, autograd.hessian(with_autograd_numpy(squares_by_global_draws))(X), rtol=1e-12)


def test_jacobian_with_a_generator_argument():
    jac = ad.jacobian(by_generator)(X, np.random.default_rng(1))
    draws = np.random.default_rng(1).normal(size=X.shape)
    np.testing.assert_allclose(jac, np.diag(np.cos(X) * draws), rtol=1e-12)


def test_jacobian_with_a_module_generator():
    state = RNG.bit_generator.state
    jac = ad.jacobian(by_module_generator)(X)
    RNG.bit_generator.state = state
    draws = RNG.normal(size=X.shape)
    np.testing.assert_allclose(jac, np.diag((1 - np.tanh(X) ** 2) * draws), rtol=1e-12)


def test_hessian_with_a_generator_attribute():
    noisy = Noisy(2)
    hess = ad.hessian(noisy.apply)(X)
    draws = np.random.default_rng(2).normal(size=X.shape)
    np.testing.assert_allclose(hess, np.diag(6 * X * draws), rtol=1e-12)


def fresh_generator_inside(x):
    rng = np.random.default_rng()
    return x * rng.normal(size=x.shape)


def fresh_generator_squares(x):
    rng = np.random.default_rng(None)
    return np.sum(x ** 2 * rng.normal(size=x.shape))


def seeded_generator_inside(x):
    rng = np.random.default_rng(7)
    return np.sum(x ** 2 * rng.normal(size=x.shape))


def by_python_random(x):
    import random
    return x * random.random()


@pytest.mark.parametrize("transform", [ad.jacobian, ad.hessian])
def test_a_generator_made_without_a_seed_inside_is_refused(transform):
    fn = fresh_generator_inside if transform is ad.jacobian else fresh_generator_squares
    with pytest.raises(ad.TransformError, match="made without a seed") as err:
        transform(fn)(X)
    assert err.value.filename == __file__
    assert "pass it in" in str(err.value)


def test_a_seeded_generator_inside_is_differentiated():
    draws = np.random.default_rng(7).normal(size=X.shape)
    np.testing.assert_allclose(ad.hessian(seeded_generator_inside)(X), np.diag(2 * draws),
                               rtol=1e-12)


def test_python_random_module():
    import random
    random.seed(11)
    jac = ad.jacobian(by_python_random)(X)
    random.seed(11)
    np.testing.assert_allclose(jac, np.eye(3) * random.random(), rtol=1e-12)


def bit_generator_inside(x):
    rng = np.random.Generator(np.random.PCG64())
    return x * rng.normal(size=x.shape)


def test_a_bit_generator_made_without_a_seed_is_refused():
    with pytest.raises(ad.TransformError, match="made without a seed"):
        ad.jacobian(bit_generator_inside)(X)


def sum_of_a_noisy_jacobian(x):
    return np.sum(ad.jacobian(scaled_by_global_draws)(x) * x)


def test_a_jacobian_of_draws_inside_a_derivative_is_refused():
    # found 2026-11-28: the columns of the inner jacobian, run inside the gradient, drew
    # other numbers each
    with pytest.raises(ad.TransformError, match="runs it once per column") as err:
        ad.grad(sum_of_a_noisy_jacobian)(X)
    assert err.value.filename == __file__
