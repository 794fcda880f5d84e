"""A dict argument's gradient lists its keys in the argument's order, as autograd's does: a
training step written `zip(params.values(), grads.values())` pairs them by position. Found
2026-11-30 by a new user: a callee reading the dict in a loop over key names handed back
its gradient in the order its backward pass filled it (reversed)."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad

NAMES = ["a", "b", "c"]


def model_by_names(p, x):
    for n in NAMES:
        x = np.tanh(x @ p[n])
    return x


def loss_through_a_callee(p, x):
    out = model_by_names(p, x)
    return np.sum(out ** 2)


def loss_inline(p, x):
    for n in NAMES:
        x = np.tanh(x @ p[n])
    return np.sum(x ** 2)


def nested_through_a_callee(q, x):
    out = model_by_names(q["layers"], x)
    return np.sum(out ** 2) + np.sum(q["scale"] ** 2)


def _params(rng):
    return {n: rng.normal(size=(3, 3)) * 0.5 for n in NAMES}


@pytest.mark.parametrize("f", [loss_through_a_callee, loss_inline])
def test_the_gradient_keeps_the_arguments_key_order(f):
    rng = np.random.default_rng(0)
    p, x = _params(rng), rng.normal(size=(4, 3))
    for make in (ad.grad, lambda g: (lambda *a: ad.value_and_grad(g)(*a)[1])):
        got = make(f)(p, x)
        assert list(got) == list(p)
        for k in p:
            assert_close(got[k], numerical_grad(lambda v: f({**p, k: v}, x), [p[k]], 0))


def test_a_nested_dict_keeps_its_key_order():
    rng = np.random.default_rng(1)
    q = {"scale": rng.normal(size=2), "layers": _params(rng)}
    x = rng.normal(size=(4, 3))
    got = ad.grad(nested_through_a_callee)(q, x)
    assert list(got) == list(q) and list(got["layers"]) == NAMES


def test_hvp_keeps_the_key_order():
    rng = np.random.default_rng(2)
    p, x = _params(rng), rng.normal(size=(4, 3))
    v = {k: rng.normal(size=(3, 3)) for k in p}
    got = ad.hvp(loss_through_a_callee)(p, x, vector=v)
    assert list(got) == list(p)
