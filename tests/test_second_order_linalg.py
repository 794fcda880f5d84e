"""Second derivatives through np.linalg (cholesky, solve, inv, det, slogdet), np.einsum and the
list joins (np.concatenate, np.stack, builtin sum of a list): hvp and hessian (forward over
reverse) and grad of grad (reverse over reverse), each against central differences of an
independent first derivative, HIPS autograd's gradient of the same function written with
autograd.numpy (never of s2s_ad's own gradient)."""
import importlib
import zlib

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close
from test_rules import _gradient_probe      # x -> sum(grad(fn)(x) * w), kept alive

autograd = importlib.import_module("autograd")
anp = importlib.import_module("autograd.numpy")

STEP = 1e-5


# each function twice: with NumPy for s2s_ad, with autograd.numpy for the oracle
def cholesky(x): return np.sum(np.linalg.cholesky(x @ x.T + np.eye(3)) ** 3)
def cholesky_ag(x): return anp.sum(anp.linalg.cholesky(anp.dot(x, x.T) + anp.eye(3)) ** 3)
# the upper factor of a symmetric matrix is the lower one transposed
def cholesky_upper(x):
    return np.sum(np.linalg.cholesky(x @ x.T + np.eye(3), upper=True) ** 2 * x)
def cholesky_upper_ag(x):
    return anp.sum(anp.linalg.cholesky(anp.dot(x, x.T) + anp.eye(3)).T ** 2 * x)
def solve(x): return np.sum(np.linalg.solve(x + 3 * np.eye(3), x[:, 0]) ** 2) * np.sum(x)
def solve_ag(x): return anp.sum(anp.linalg.solve(x + 3 * anp.eye(3), x[:, 0]) ** 2) * anp.sum(x)
def inv(x): return np.sum(np.linalg.inv(x + 3 * np.eye(3)) ** 3)
def inv_ag(x): return anp.sum(anp.linalg.inv(x + 3 * anp.eye(3)) ** 3)
def det(x): return np.linalg.det(x + 2 * np.eye(3)) ** 2 + np.linalg.det(x) * x[0, 1]
def det_ag(x): return anp.linalg.det(x + 2 * anp.eye(3)) ** 2 + anp.linalg.det(x) * x[0, 1]
def slogdet(x): return np.linalg.slogdet(x @ x.T + np.eye(3))[1] * np.sum(x ** 2)
def slogdet_ag(x): return anp.linalg.slogdet(anp.dot(x, x.T) + anp.eye(3))[1] * anp.sum(x ** 2)
def einsum(x): return np.einsum("ij,jk,ik->", x, x, x) ** 2 + np.sum(np.einsum("ij,kj->ik", x, x) ** 2)
def einsum_ag(x):
    return anp.einsum("ij,jk,ik->", x, x, x) ** 2 + anp.sum(anp.einsum("ij,kj->ik", x, x) ** 2)
def concatenate(x):
    return np.sum(np.concatenate([x, x[:2] ** 2], axis=0) ** 3) + np.sum(np.concatenate([x[0], x[:, 1]]) ** 2) * x[2, 2]
def concatenate_ag(x):
    return anp.sum(anp.concatenate([x, x[:2] ** 2], axis=0) ** 3) + anp.sum(anp.concatenate([x[0], x[:, 1]]) ** 2) * x[2, 2]
def stack(x): return np.sum(np.stack([x, np.sin(x), x * x[0]], axis=1) ** 2 * x[1, 1])
def stack_ag(x): return anp.sum(anp.stack([x, anp.sin(x), x * x[0]], axis=1) ** 2 * x[1, 1])
def sum_of_list(x): return np.sum(sum([x, x ** 2, x[0] * x]) ** 3)
def sum_of_list_ag(x): return anp.sum(sum([x, x ** 2, x[0] * x]) ** 3)

PAIRS = [(cholesky, cholesky_ag), (cholesky_upper, cholesky_upper_ag), (solve, solve_ag),
         (inv, inv_ag), (det, det_ag), (slogdet, slogdet_ag), (einsum, einsum_ag),
         (concatenate, concatenate_ag), (stack, stack_ag), (sum_of_list, sum_of_list_ag)]
JOINS = [(concatenate, concatenate_ag), (stack, stack_ag), (sum_of_list, sum_of_list_ag)]


def _point(fn):
    rng = np.random.default_rng(zlib.crc32(fn.__name__.encode()))
    return 0.5 * rng.standard_normal((3, 3)), rng.standard_normal((3, 3))


def _hessian_along(oracle, x, v):
    """Hessian @ v: a central difference of autograd's gradient along v."""
    gradient = autograd.grad(oracle)
    return (gradient(x + STEP * v) - gradient(x - STEP * v)) / (2 * STEP)


@pytest.mark.parametrize("fn, oracle", PAIRS, ids=[f.__name__ for f, _ in PAIRS])
def test_hvp(fn, oracle):
    x, v = _point(fn)
    assert_close(ad.hvp(fn)(x, vector=v), _hessian_along(oracle, x, v), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("fn, oracle", PAIRS, ids=[f.__name__ for f, _ in PAIRS])
def test_hessian(fn, oracle):
    x, _ = _point(fn)
    basis = np.eye(x.size).reshape((x.size,) + x.shape)
    columns = np.stack([_hessian_along(oracle, x, e) for e in basis], axis=-1)
    assert_close(ad.hessian(fn)(x), columns.reshape(x.shape + x.shape), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("fn, oracle", JOINS, ids=[f.__name__ for f, _ in JOINS])
def test_grad_of_grad(fn, oracle):
    x, w = _point(fn)
    assert_close(ad.grad(_gradient_probe(fn, w))(x), _hessian_along(oracle, x, w),
                 rtol=1e-6, atol=1e-6)


def sum_of_a_list_of_scalars(s): return sum([s, s * s, 3.0, np.sin(s)]) ** 3


def test_grad_of_grad_of_a_sum_of_a_list_built_from_a_scalar():
    s = 0.7
    total = s + s * s + 3.0 + np.sin(s)
    slope = 1 + 2 * s + np.cos(s)
    # d2/ds2 total**3 = 6 total slope**2 + 3 total**2 (2 - sin s), written out by hand
    expected = 6 * total * slope ** 2 + 3 * total ** 2 * (2 - np.sin(s))
    assert_close(ad.grad(ad.grad(sum_of_a_list_of_scalars))(s), expected, rtol=1e-12, atol=0)
