"""Shape facts of arrays: shapes known up to the arguments' size classes through matmul,
broadcasting, reductions along axes, `.T` and the entries of container arguments. Each test
would fail if a fact were wrong: a dropped `unbroadcast` where broadcasting did stretch a
value gives a gradient of the wrong shape or the wrong sum, checked against central
differences; and the code must drop it where it changes nothing."""
import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import s2s_ad as ad
from s2s_ad.analysis.kinds import Array, DescribedContainers, Entries, kinds_of
from fd import assert_close, assert_layers_close, numerical_grad
from test_shape_facts import kinds_of_names


def entry_grads(f, params, *rest):
    """Central differences of `f(params, *rest)` for each entry of a dict or a list."""
    keys = params.keys() if isinstance(params, dict) else range(len(params))

    def at(key, value):
        changed = dict(params) if isinstance(params, dict) else list(params)
        changed[key] = value
        return f(changed, *rest)

    return {k: numerical_grad(lambda v, k=k: at(k, v), [params[k]], 0) for k in keys}


def assert_entries_close(got, expected):
    for k, value in expected.items():
        assert np.shape(got[k]) == np.shape(value), k
        assert_close(got[k], value, rtol=1e-6, atol=1e-8)


def two_layers(params, x):
    h = np.tanh(x @ params["W1"] + params["b1"])
    out = h @ params["W2"] + params["b2"]
    return np.sum((out - np.max(out, axis=1, keepdims=True)) ** 2) + np.sum(h * h)


def parameters(rng, n_in, n_hidden, n_out, b1_shape=None):
    return {"W1": rng.normal(size=(n_in, n_hidden)),
            "b1": rng.normal(size=b1_shape or (n_hidden,)),
            "W2": rng.normal(size=(n_hidden, n_out)), "b2": rng.normal(size=n_out)}


def test_matmul_and_bias_of_dict_entries():
    rng = np.random.default_rng(0)
    params, x = parameters(rng, 3, 4, 2), rng.normal(size=(5, 3))
    df = ad.grad(two_layers)
    assert_entries_close(df(params, x), entry_grads(two_layers, params, x))
    source = ad.source(df)
    # the biases are stretched over the rows, the maximum over the columns: those sums stay,
    # written out where the shapes say which axes they are
    assert "unbroadcast(" not in source, source
    assert "d_item2 = d_add.sum(axis=0)" in source and "d_item4 = dout.sum(axis=0)" in source
    assert "d_max = -d_sub.sum(axis=1, keepdims=True)" in source    # summed, then negated
    assert "unbroadcast(-dshifted" not in source      # no such name: see the next line
    assert "_matmul)" not in source                   # x @ W has the sum's shape


@pytest.mark.parametrize("b1_shape", [(1, 4), (5, 4), (5, 1), (1, 1), (4,)])
def test_a_bias_of_each_broadcasting_shape_specializes_the_code(b1_shape):
    """One transform called with biases that stretch over rows, over columns, over both, or
    not at all: each gets code of its own, and the gradient has the bias's shape."""
    rng = np.random.default_rng(1)
    df = ad.grad(two_layers)
    x = rng.normal(size=(5, 3))
    for shape in [(4,), b1_shape, (4,)]:
        params = parameters(rng, 3, 4, 2, shape)
        assert_entries_close(df(params, x), entry_grads(two_layers, params, x))
    stretched = ad.source(df)
    params = parameters(rng, 3, 4, 2, (5, 4))
    df(params, x)
    assert "d_add.sum(" not in ad.source(df)                  # b1 has the sum's shape
    assert "d_item2 = d_add.sum(axis=0)\n" in stretched       # the latest call's b1 was (4,)


def test_sizes_that_become_equal_get_other_code():
    """Size classes: (3, 4) @ (4, 5) and (4, 4) @ (4, 4) are not the same kinds, and a
    batch of another size that equals no other axis reuses the code."""
    a = kinds_of([np.ones((3, 4)), np.ones((4, 5))])
    assert a == (Array(2, ("n0", "n1")), Array(2, ("n1", "n2")))
    assert kinds_of([np.ones((4, 4)), np.ones((4, 4))]) != a
    assert kinds_of([np.ones((7, 4)), np.ones((4, 5))]) == a
    assert kinds_of([{"W": np.ones((1, 3))}])[0] == Entries(dict, (("W", Array(2, (1, "n0"))),))


def square_plus_row(x, W, b):
    return np.sum((x @ W + b) ** 2 * np.arange(1.0, 1.0 + W.shape[-1]))


@pytest.mark.parametrize("shapes", [
    ((3, 3), (3, 3), (3,)), ((3, 3), (3, 3), (3, 1)), ((3, 3), (3, 3), (1, 3)),
    ((2, 3), (3, 2), (2, 1)), ((2, 3), (3, 2), (2,)), ((1, 3), (3, 1), (1,)), ((3,), (3, 2), (2,)),
    ((2, 2, 3), (3, 2), (2, 1, 2)), ((2, 3), (2, 3, 2), (2,))])
def test_matmul_results_and_biases_whose_sizes_coincide(shapes):
    """Square weights, a bias whose size equals the batch's, size-1 axes: every argument's
    gradient against central differences, one transform for all of them."""
    df = ad.grad(square_plus_row, wrt=(0, 1, 2))
    rng = np.random.default_rng(sum(map(len, shapes)))
    args = [rng.normal(size=s) for s in shapes]
    for k, got in enumerate(df(*args)):
        assert np.shape(got) == shapes[k]
        assert_close(got, numerical_grad(square_plus_row, args, k), rtol=1e-6, atol=1e-8)


def reductions(x, b):
    centred = x - np.mean(x, axis=0) + b
    top = np.max(centred, axis=-1, keepdims=True)
    row = x.sum(1, keepdims=True)
    return np.sum((centred - top) ** 2 * row) + np.sum(np.sum(centred.T, axis=(0,)) ** 2)


def reductions_autograd(x, b):
    centred = x - anp.mean(x, axis=0) + b
    top = anp.max(centred, axis=-1, keepdims=True)
    row = anp.sum(x, 1, keepdims=True)
    return anp.sum((centred - top) ** 2 * row) + anp.sum(anp.sum(centred.T, axis=(0,)) ** 2)


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(1, 3), columns=st.integers(1, 3), bias=st.integers(0, 3),
       seed=st.integers(0, 2 ** 16))
def test_reductions_along_axes_agree_with_autograd(rows, columns, bias, seed):
    """Reductions with axis and keepdims, `.T`, and a bias of every broadcasting shape; a
    size-1 axis makes a reduction keep the shape, where its unbroadcast goes."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, columns))
    b = rng.normal(size=[(columns,), (1, columns), (rows, 1), (rows, columns)][bias])
    for wrt in (0, 1):
        got = ad.grad(reductions, wrt=wrt)(x, b)
        expected = autograd.grad(reductions_autograd, wrt)(x, b)
        assert np.shape(got) == np.shape(expected)
        assert_close(got, expected, rtol=1e-10, atol=1e-12)


def recurrent(W, U, xs):
    h = np.zeros((W.shape[0], xs.shape[2]))
    for t in range(len(xs)):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def test_a_recurrence_keeps_no_value_for_its_shape():
    rng = np.random.default_rng(4)
    W, U, xs = rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(3, 2)), rng.normal(size=(4, 2, 5))
    df = ad.grad(recurrent, wrt=(0, 1))
    for k, got in enumerate(df(W, U, xs)):
        assert_close(got, numerical_grad(recurrent, [W, U, xs], k), rtol=1e-6)
    source = ad.source(df)
    assert "unbroadcast" not in source and source.count(".append(") == 1, source
    # a batch of one: h has a size-1 axis, and the code is other code, still right
    xs = rng.normal(size=(4, 2, 1))
    for k, got in enumerate(df(W, U, xs)):
        assert_close(got, numerical_grad(recurrent, [W, U, xs], k), rtol=1e-6)


def list_of_layers(params, x):
    W, b = params[0]
    h = np.tanh(x @ W + b)
    last = params[1]
    return np.sum(h @ last[0] + last[1])


def test_entries_of_a_list_of_pairs():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4, 3))
    df = ad.grad(list_of_layers)
    for b_shape in [(2,), (4, 2), (1, 2)]:
        params = [(rng.normal(size=(3, 2)), rng.normal(size=b_shape)),
                  (rng.normal(size=(2, 2)), rng.normal(size=2))]
        assert_layers_close(df(params, x), list_of_layers, params, x)


def replaces_an_inner_entry(params, x):
    inner = params[0]
    first = inner[0]
    return np.sum(x * first) + np.sum(params[0][0])


def test_a_list_inside_a_container_may_change_and_is_not_known():
    facts = kinds_of_names(replaces_an_inner_entry, [[np.ones(3)]], np.ones((2, 3)))
    assert facts.kinds["inner"] is None and facts.token("first") is None
    facts = kinds_of_names(replaces_an_inner_entry, [(np.ones(3),)], np.ones((2, 3)))
    assert facts.token("first") == ("n0",)


def resizes_a_copy(x, b):
    y = x * 1.0
    y.resize((x.size,), refcheck=False)
    return np.sum(y + b)


def test_an_array_resized_anywhere_leaves_no_array_known():
    facts = kinds_of_names(resizes_a_copy, np.ones((2, 3)), np.ones(6))
    assert facts.kinds["x"] is None and facts.token("y") is None


@pytest.mark.parametrize("b1_shape", [(4,), (1, 4), (5, 1)])
def test_forward_mode_through_dict_entries(b1_shape):
    rng = np.random.default_rng(6)
    params, x = parameters(rng, 3, 4, 2, b1_shape), rng.normal(size=(5, 3))
    direction = {k: rng.normal(size=np.shape(v)) for k, v in params.items()}
    jf = ad.jvp(two_layers)
    value, tangent = jf(params, x, tangent=direction)
    expected = sum(np.sum(g * direction[k])
                   for k, g in entry_grads(two_layers, params, x).items())
    assert value == pytest.approx(two_layers(params, x))
    assert tangent == pytest.approx(expected, rel=1e-6)


def sums_layers(params, x):
    for W, b in params:
        x = np.tanh(x @ W + b)
    return np.sum(x)


def counts_layers(params, x):
    return len(params) * np.sum(x ** 2)


def test_containers_read_by_a_constant_key_or_walked_are_described():
    """Describing a container costs at every call: one the function never reads entries of
    is not described; one it indexes or walks with a loop is (the loop's body then knows the
    entries' shapes: a layer's `unbroadcast` becomes a sum over the batch axis)."""
    rng = np.random.default_rng(7)
    params = [(rng.normal(size=(3, 2)), rng.normal(size=2))]
    df = ad.grad(counts_layers, wrt=1)
    df(params, rng.normal(size=(4, 3)))
    assert df.kinds[0] is None and df.kinds[1] == Array(2, ("n0", "n1"))
    df = ad.grad(sums_layers)
    df(params, rng.normal(size=(4, 3)))
    assert isinstance(df.kinds[0], Entries) and "unbroadcast" not in df.source
    df = ad.grad(list_of_layers)
    df(params + [(rng.normal(size=(2, 2)), rng.normal(size=2))], rng.normal(size=(4, 3)))
    assert isinstance(df.kinds[0], Entries)


def summed_sequences(sequences, w):
    total = 0.0
    for s in sequences:
        total = total + np.sum(np.tanh(w * s))
    return total


def test_containers_whose_kinds_change_at_every_call_are_no_longer_described():
    """A list of sequences of other lengths at each call would get code made at each call:
    after a few, its entries are not described, and the code made for that serves them all."""
    rng = np.random.default_rng(8)
    df = ad.grad(summed_sequences, wrt=1)
    for call in range(12):
        sequences = [rng.normal(size=n) for n in rng.integers(2, 9, size=4)]
        w = rng.normal(size=())
        expected = sum(np.sum((1 - np.tanh(w * s) ** 2) * s) for s in sequences)
        assert df(sequences, w) == pytest.approx(expected, rel=1e-10)
    assert df.kinds[0] is None
    assert len(df.containers.seen) == DescribedContainers.MOST + 1
