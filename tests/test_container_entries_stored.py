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


def each_entry_twice(ws, x):
    total = 0.0
    for i in range(-len(ws), len(ws)):      # -1 and len(ws) - 1 name one entry
        total = total + np.sum(np.sin(ws[i] * x))
    return total


def from_a_start_passed_in(ws, x, start=-1):
    total = 0.0
    for i in range(start, len(ws)):
        total = total + np.sum(np.sin(ws[i] * x))
    return total


def entries_of_an_array_twice(w, x):
    total = 0.0
    for i in range(-len(w), len(w)):
        total = total + np.sin(w[i] * x)
    return total


def one_entry_each_step(ws, x):
    total = 0.0
    for i in range(len(ws)):
        total = total + np.sum(ws[0] * x) * 0.5 + np.sum(ws[i])
    return total


def _list_of_layers(rng):
    return [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 2)),
                                                              rng.normal(size=2))]


@pytest.mark.parametrize("f", [each_entry_once, each_entry_twice, from_a_start_passed_in,
                               read_twice_a_step, first_read_again_after, some_entries_skipped,
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


# found 2026-11-30 by a second reader: a range of negative and non-negative indexes visits
# an entry twice, and the store kept the second step's gradient alone (half the right one);
# a number into an array had the same fault, older
def test_a_range_that_may_name_an_entry_twice_keeps_the_addition():
    x, w = np.array([1.0, 2.0, 3.0]), np.array([0.1, 0.2, 0.3])
    assert_close(ad.grad(entries_of_an_array_twice)(w, 2.0),
                 numerical_grad(entries_of_an_array_twice, [w, 2.0], 0))
    ws = [np.array([0.1, 0.2, 0.3]), np.array([0.4, 0.5, 0.6])]
    for f in (each_entry_twice, from_a_start_passed_in):
        df = ad.grad(f)
        for k, g in enumerate(df(ws, x)):
            assert_close(g, numerical_grad(lambda v: f(ws[:k] + [v] + ws[k + 1:], x), [ws[k]], 0))
        assert "dws[i] = " not in df.source


@pytest.mark.parametrize("f, stored", [
    (each_entry_once, True), (read_twice_a_step, False), (first_read_again_after, False),
    (one_entry_each_step, False)])
def test_the_addition_is_a_store_only_onto_an_entry_of_zeros(f, stored):
    rng = np.random.default_rng(2)
    df = ad.grad(f)
    df([rng.normal(size=3) for _ in range(3)], rng.normal(size=3))
    assert ("dws[i] = " in df.source or "dws[_i] = " in df.source) is stored
    assert ("add_at(dws" in df.source) is not stored


@pytest.mark.parametrize("f", [read_twice_a_step, counted_from_the_end, some_entries_skipped])
def test_a_list_indexed_by_a_name_gets_code_for_its_entries(f):
    """`ws[i]` reads entries of `ws` as a loop over it does: the kinds describe them, and
    the code knows the entries' shapes (no unbroadcast left to ask them at run time)."""
    rng = np.random.default_rng(3)
    ws, x = [rng.normal(size=3) for _ in range(4)], rng.normal(size=3)
    df = ad.grad(f)
    got = df(ws, x)
    assert "unbroadcast" not in df.source
    for k, g in enumerate(got):
        assert_close(g, numerical_grad(lambda w: f(ws[:k] + [w] + ws[k + 1:], x), [ws[k]], 0))
