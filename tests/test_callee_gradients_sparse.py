"""A callee's backward pass hands its caller the gradient of a dict, list or tuple argument
with the entries it did not touch left absent (runtime.callee_gradient): a step function
reading one entry of a dict of parameters costs that entry a step, not zeros for every
other entry added into the caller's adjoint. The user still gets every entry."""
import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad import runtime
from s2s_ad.runtime import GradDict, GradList
from fd import assert_close, numerical_grad


def step(params, h, x):
    return np.tanh(h @ params["change"] + x * params["scale"])


def readout(params, h):
    return np.sum(h @ params["predict"])


def unrolled(params, xs):
    h = np.repeat(params["init"], xs.shape[1], axis=0)
    total = 0.0
    for x in xs:
        h = step(params, h, x)
        total = total + readout(params, h)
    return total


def layer(weights, h):
    return np.sin(h @ weights[0])


def stacked(weights, xs):
    return sum(np.sum(layer(weights, x)) for x in xs)


def entry_grad(f, params, key, *rest):
    def at(v):
        changed = dict(params)
        changed[key] = v
        return f(changed, *rest)
    return numerical_grad(at, [params[key]], 0)


def test_a_dict_of_parameters_read_entry_by_entry_in_a_loop():
    rng = np.random.default_rng(0)
    params = {"init": rng.normal(size=(1, 3)), "change": 0.5 * rng.normal(size=(3, 3)),
              "scale": rng.normal(size=3), "predict": rng.normal(size=(3, 2)),
              "unused": rng.normal(size=4)}
    xs = rng.normal(size=(4, 2, 3))
    got = ad.grad(unrolled)(params, xs)
    assert set(got) == set(params)
    assert np.array_equal(got["unused"], np.zeros(4))
    for key in ("init", "change", "scale", "predict"):
        assert_close(got[key], entry_grad(unrolled, params, key, xs))


def test_a_list_of_weights_one_entry_read():
    rng = np.random.default_rng(1)
    weights = [rng.normal(size=(3, 2)), rng.normal(size=5)]
    xs = [rng.normal(size=(2, 3)) for _ in range(3)]
    got = ad.grad(stacked)(weights, xs)
    assert np.array_equal(got[1], np.zeros(5))
    assert_close(got[0], numerical_grad(lambda w: stacked([w, weights[1]], xs), [weights[0]], 0))


def test_the_callees_gradient_leaves_untouched_entries_absent():
    params = {"a": np.ones(2), "b": np.ones(3)}
    sparse = runtime.callee_gradient(GradDict(a=np.full(2, 2.0)), params)
    assert set(sparse) == {"a"} and isinstance(sparse, GradDict)
    listed = runtime.callee_gradient(GradList([None, np.ones(3)]), [np.ones(2), np.ones(3)])
    assert listed[0] is None and isinstance(listed, GradList)
    dense = runtime.gradient_like(GradDict(a=np.full(2, 2.0)), params)
    assert np.array_equal(dense["b"], np.zeros(3))


def model_of_one_entry(params, x):
    h = x
    for _ in range(2):
        h = np.tanh(h @ params["W"])
    return h


def loss_of_one_entry(params, x):
    return np.sum(model_of_one_entry(params, x) ** 2)


def model_of_the_first(weights, x):
    h = x
    for _ in range(2):
        h = np.tanh(h @ weights[0])
    return h


def loss_of_the_first(weights, x):
    return np.sum(model_of_the_first(weights, x) ** 2)


@pytest.mark.parametrize("transform", [ad.grad, lambda f: lambda *a: ad.value_and_grad(f)(*a)[1]])
def test_the_user_gets_every_entry_of_a_container_a_callee_read_in_part(transform):
    """The gradient a callee hands back leaves untouched entries out; the caller's own
    conversion, which hands it to the user, fills them with zeros (a parameter no code
    touches has a zero gradient, not a missing one)."""
    x = np.full((2, 3), 0.5)
    params = {"W": 0.5 * np.eye(3), "unused": np.ones(4)}
    got = transform(loss_of_one_entry)(params, x)
    assert set(got) == {"W", "unused"} and np.array_equal(got["unused"], np.zeros(4))
    assert_close(got["W"], entry_grad(loss_of_one_entry, params, "W", x))
    weights = [0.5 * np.eye(3), np.ones(4)]
    listed = transform(loss_of_the_first)(weights, x)
    assert len(listed) == 2 and np.array_equal(listed[1], np.zeros(4))
