"""A loop that unpacks differentiable elements in its header (`for W, b in params:`), the way
models are written: both modes, against finite differences and HIPS autograd. It was refused
("cannot unpack differentiable loop elements") until 2026-11-24."""
import autograd
import autograd.numpy as anp
import types

import numpy as np
import pytest

import s2s_ad as ad


def network(params, x):
    h = x
    for W, b in params:
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2)


def nested_unpacking(pairs):
    total = 0.0
    for scale, (a, b) in pairs:
        total = total + np.sum(scale * a * b)
    return total


def unpacking_a_list_of_lists(rows):
    total = 0.0
    for first, second in rows:
        total = total + first * np.sin(second)
    return total


rng = np.random.default_rng(3)
SIZES = [4, 5, 3]
PARAMS = [(rng.normal(size=(m, n)), rng.normal(size=n)) for m, n in zip(SIZES[:-1], SIZES[1:])]
X = rng.normal(size=(6, 4))
PAIRS = [(0.5, (rng.normal(size=3), rng.normal(size=3))), (-1.5, (rng.normal(size=3), rng.normal(size=3)))]
ROWS = [[0.3, 1.2], [-0.7, 0.4], [2.0, -1.1]]


def _leaves(tree):
    if isinstance(tree, (list, tuple)):
        return [leaf for part in tree for leaf in _leaves(part)]
    return [np.asarray(tree, dtype=np.float64)]


def _unit_tangent(tree):
    if isinstance(tree, (list, tuple)):
        return type(tree)(_unit_tangent(part) for part in tree)
    return np.ones_like(np.asarray(tree, dtype=np.float64)) if np.ndim(tree) else 1.0


CASES = [(network, (PARAMS, X)), (nested_unpacking, (PAIRS,)), (unpacking_a_list_of_lists, (ROWS,))]


@pytest.mark.parametrize("fn, args", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_gradient_matches_autograd(fn, args):
    with_autograd_numpy = types.FunctionType(fn.__code__, {**fn.__globals__, "np": anp})
    expected = autograd.grad(with_autograd_numpy)(*args)
    actual = ad.grad(fn)(*args)
    for mine, theirs in zip(_leaves(actual), _leaves(expected), strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("fn, args", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_tangent_matches_finite_differences(fn, args):
    tangent = _unit_tangent(args[0])
    eps = 1e-6

    def moved(sign):
        def shift(tree, direction):
            if isinstance(tree, (list, tuple)):
                return type(tree)(shift(p, d) for p, d in zip(tree, direction))
            return tree + sign * eps * direction
        return fn(shift(args[0], tangent), *args[1:])

    expected = (moved(1.0) - moved(-1.0)) / (2 * eps)
    _, actual = ad.jvp(fn)(*args, tangent=tangent)
    assert actual == pytest.approx(expected, rel=1e-6)
