"""The adjoint of a reduction that kept its axes is spread over the array by NumPy's
broadcasting where it meets that array in arithmetic (optimize/spread_by_broadcasting.py):
gradients against central differences and HIPS autograd, the rewrite on generated code, and
the cases where it must not apply."""
import ast

import gast
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad import runtime
from s2s_ad.optimize.spread_by_broadcasting import SpreadByBroadcasting


def log_softmax_picked(z, y):
    shifted = z - np.max(z, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(z.shape[0]), y])


def normalized_columns(z):
    w = np.exp(z) / np.sum(np.exp(z), axis=0, keepdims=True)
    return np.sum(w * np.cos(z))


def scaled_by_its_own_mean(z):
    return np.sum(z * np.mean(z ** 2, axis=-1, keepdims=True))


def over_a_list(xs):
    return np.sum(np.sum(xs, axis=0, keepdims=True) * np.sin(xs))


@pytest.mark.parametrize("f, args", [
    (log_softmax_picked, (np.random.default_rng(0).normal(size=(5, 3)), np.array([0, 2, 1, 1, 0]))),
    (normalized_columns, (np.random.default_rng(1).normal(size=(4, 3)),)),
    (scaled_by_its_own_mean, (np.random.default_rng(2).normal(size=(2, 3, 4)),)),
    (over_a_list, ([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]],)),
])
def test_gradients_against_differences_and_autograd(f, args):
    got = ad.grad(f)(*args)
    assert_close(np.asarray(got), numerical_grad(f, [np.asarray(args[0])] + list(args[1:]), 0),
                 rtol=1e-6, atol=1e-8)
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    plain_np = f.__globals__["np"]
    f.__globals__["np"] = anp
    try:
        expected = autograd.grad(f)(np.asarray(args[0]), *args[1:])
    finally:
        f.__globals__["np"] = plain_np
    assert_close(np.asarray(got), expected, rtol=1e-10, atol=1e-12)


def test_the_softmax_adjoint_spreads_by_broadcasting():
    z, y = np.ones((3, 2)), np.array([0, 1, 1])
    df = ad.grad(log_softmax_picked)
    df(z, y)
    assert "unreduce(d_sum" not in ad.source(df) and "d_sum * _exp" in ad.source(df), \
        ad.source(df)


def _rewritten(source):
    function = gast.parse(source).body[0]
    function = SpreadByBroadcasting({"unreduce": runtime.unreduce}).run(function)
    return ast.unparse(gast.gast_to_ast(function)).splitlines()[1:]


def test_spread_read_by_arithmetic_with_its_array_is_left_to_broadcasting():
    assert _rewritten("def f(g, x, y):\n"
                      "    d = unreduce(g, x, 1, True)\n"
                      "    y = y + 1\n"
                      "    return y + x * d\n") == ["    y = y + 1", "    return y + x * g"]


@pytest.mark.parametrize("body", [
    # read twice
    "    d = unreduce(g, x, 1, True)\n    a = d * x\n    return a + d\n",
    # the array bound again in between: it may have another shape
    "    d = unreduce(g, x, 1, True)\n    x = x[0]\n    return d * x\n",
    # the reduced adjoint bound again in between
    "    d = unreduce(g, x, 1, True)\n    g = g * 2\n    return d * x\n",
    # arithmetic with another array, whose shape is not known to be x's
    "    d = unreduce(g, x, 1, True)\n    return d * y\n",
    # the reduction dropped its axes: g lacks them
    "    d = unreduce(g, x, 1, False)\n    return d * x\n",
    # read inside a block: the array may be bound again there first
    "    d = unreduce(g, x, 1, True)\n    for i in y:\n        x = x * i\n        g = d * x\n    return g\n",
    # a function call, not arithmetic
    "    d = unreduce(g, x, 1, True)\n    return np.maximum(d, x)\n",
])
def test_left_as_it_is_where_broadcasting_could_differ(body):
    source = "def f(g, x, y):\n" + body
    expected = ast.unparse(ast.parse(source)).splitlines()[1:]
    assert _rewritten(source) == expected
