"""A backward loop that visits each index of a list of layers once adds each step's gradient
onto an entry of the list's adjoint of zeros, which holds None there: the addition is a store
(`dparams[_i] = d_element`, optimize/accumulate_in_place.py), where `add_at` would ask what the
entry holds at each step. Where a step adds twice, an entry already holds a gradient, or the
loop may visit an index twice, the addition stays. Gradients against central differences."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def chain(params, x):
    h = x
    for W, b in params:
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2)


def read_twice_a_step(ws, x):
    total = 0.0
    for i in range(len(ws)):
        total = total + np.sum(ws[i] * x) + np.sum(ws[i] ** 2)
    return total


def each_entry_once(ws, x):
    total = 0.0
    for w in ws:
        total = total + np.sum(np.sin(w * x))
    return total


def first_read_again_after(ws, x):
    total = 0.0
    for i in range(len(ws)):
        total = total + np.sum(np.sin(ws[i] * x))
    return total + np.sum(ws[0] ** 3)


def some_entries_skipped(ws, x):
    total = 0.0
    for i in range(1, len(ws)):
        total = total + np.sum(np.cos(ws[i]) * x)
    return total


def counted_from_the_end(ws, x):
    total = 0.0
    for i in range(-len(ws), 0):
        total = total + np.sum(ws[i] * ws[i] * x)
    return total


def one_entry_each_step(ws, x):
    total = 0.0
    for i in range(len(ws)):
        total = total + np.sum(ws[0] * x) * 0.5 + np.sum(ws[i])
    return total


def _list_of_layers(rng):
    return [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 2)),
                                                              rng.normal(size=2))]


@pytest.mark.parametrize("f", [each_entry_once, read_twice_a_step, first_read_again_after, some_entries_skipped,
                               counted_from_the_end, one_entry_each_step])
def test_gradients_of_loops_over_list_entries(f):
    rng = np.random.default_rng(0)
    ws, x = [rng.normal(size=3) for _ in range(4)], rng.normal(size=3)
    got = ad.grad(f)(ws, x)
    for k, g in enumerate(got):
        expected = numerical_grad(lambda w: f(ws[:k] + [w] + ws[k + 1:], x), [ws[k]], 0)
        assert_close(g, expected)


def test_a_list_of_layers_adjoint_takes_each_layer_by_a_store():
    rng = np.random.default_rng(1)
    params, x = _list_of_layers(rng), rng.normal(size=(5, 3))
    df = ad.grad(chain)
    got = df(params, x)
    assert "params[_i] = " in df.source and "add_at(dparams" not in df.source
    for k, (dW, db) in enumerate(got):
        for j, g in enumerate((dW, db)):
            def at(v):
                layer = list(params[k])
                layer[j] = v
                return chain(params[:k] + [tuple(layer)] + params[k + 1:], x)
            assert_close(g, numerical_grad(at, [params[k][j]], 0))


@pytest.mark.parametrize("f, stored", [
    (each_entry_once, True), (read_twice_a_step, False), (first_read_again_after, False),
    (one_entry_each_step, False)])
def test_the_addition_is_a_store_only_onto_an_entry_of_zeros(f, stored):
    rng = np.random.default_rng(2)
    df = ad.grad(f)
    df([rng.normal(size=3) for _ in range(3)], rng.normal(size=3))
    assert ("dws[i] = " in df.source or "dws[_i] = " in df.source) is stored
    assert ("add_at(dws" in df.source) is not stored
