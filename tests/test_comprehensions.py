"""Comprehensions and loops over a dict's entries, as model code writes them: lowered to
loops that both modes differentiate (refused until 2026-11-24). Against HIPS autograd and
central finite differences."""
import types

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import s2s_ad as ad


def layers_in_a_list_comprehension(x):
    hs = [np.tanh(x * k) for k in range(3)]
    return np.sum(hs[0] + hs[2])


def sum_of_a_generator(x):
    return sum(np.sum(np.sin(x * k) ** 2) for k in range(1, 4) if k != 2)


def nested_comprehension(x):
    pairs = [x[i] * x[j] for i in range(3) for j in range(i, 3)]
    return sum(pairs)


def comprehension_variable_shadows_a_local(x):
    k = 10.0
    scaled = [x * k for k in (1.0, 2.0)]
    return np.sum(scaled[1]) * k                 # k is still 10: the comprehension's is its own


def loss_over_named_parameters(p):
    total = 0.0
    for name, value in p.items():
        total = total + np.sum(value ** 2) * (2.0 if name == "W" else 1.0)
    return total


def sum_over_values(p):
    return sum(np.sum(np.tanh(v)) for v in p.values())


def loop_over_keys(p):
    total = 0.0
    for name in p.keys():
        total = total + np.sum(p[name] ** 3)
    return total


X = np.array([0.3, -0.7, 1.1])
P = {"W": np.array([[0.2, -0.4], [1.0, 0.5]]), "b": np.array([0.1, -0.3])}
CASES = [(layers_in_a_list_comprehension, X), (sum_of_a_generator, X),
         (nested_comprehension, X), (comprehension_variable_shadows_a_local, X),
         (loss_over_named_parameters, P), (sum_over_values, P), (loop_over_keys, P)]


def _with_autograd_numpy(fn):
    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": anp})


def _leaves(tree):
    return [np.asarray(tree[k]) for k in sorted(tree)] if isinstance(tree, dict) else [np.asarray(tree)]


@pytest.mark.parametrize("fn, arg", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_gradient_matches_autograd(fn, arg):
    expected = autograd.grad(_with_autograd_numpy(fn))(arg)
    for mine, theirs in zip(_leaves(ad.grad(fn)(arg)), _leaves(expected), strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("fn, arg", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_tangent_matches_finite_differences(fn, arg):
    eps = 1e-6
    if isinstance(arg, dict):
        tangent = {k: np.ones_like(v) for k, v in arg.items()}
        moved = [{k: v + s * eps for k, v in arg.items()} for s in (1.0, -1.0)]
    else:
        tangent = np.ones_like(arg)
        moved = [arg + eps, arg - eps]
    expected = (fn(moved[0]) - fn(moved[1])) / (2 * eps)
    assert ad.jvp(fn)(arg, tangent=tangent)[1] == pytest.approx(expected, rel=1e-6)
