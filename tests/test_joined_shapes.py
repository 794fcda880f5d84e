"""Shape facts joined over the entries of a container walked by a loop: the layers of a
network have different widths, so a layer's `W` is known to be a matrix whose axes are not 1
(analysis/dims.py OTHER_THAN_1) and the loop's body needs no `unbroadcast` where NumPy's rules
make the shapes agree. A width of 1, or a bias that broadcasts, must keep it: checked against
HIPS autograd on networks of every such shape."""
import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import s2s_ad as ad
from s2s_ad.analysis.dims import OTHER_THAN_1, broadcast, matmul


def network(params, x):
    h = x
    for W, b in params:
        h = np.tanh(h @ W + b)
    return np.sum(h * h)


def autograd_network(params, x):
    h = x
    for W, b in params:
        h = anp.tanh(anp.dot(h, W) + b)
    return anp.sum(h * h)


def loss(params, x):
    return np.mean(layers(params, x) ** 2)


def layers(params, x):
    for W, b in params:
        x = np.tanh(x @ W + b)
    return x


def autograd_loss(params, x):
    for W, b in params:
        x = anp.tanh(anp.dot(x, W) + b)
    return anp.mean(x ** 2)


def _bias(rng, width, form):
    return rng.normal(size={"vector": (width,), "row": (1, width), "one": (1,)}[form])


def _inputs(seed, batch, widths, forms):
    rng = np.random.default_rng(seed)
    params = [(rng.normal(size=(n_in, n_out)), _bias(rng, n_out, form))
              for n_in, n_out, form in zip(widths[:-1], widths[1:], forms)]
    return params, rng.normal(size=(batch, widths[0]))


def _assert_gradients(ours, theirs):
    assert len(ours) == len(theirs)
    for (dW, db), (eW, eb) in zip(ours, theirs):
        np.testing.assert_allclose(dW, eW, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(db, eb, rtol=1e-10, atol=1e-12)
        assert np.shape(db) == np.shape(eb)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**16), batch=st.integers(1, 3),
       widths=st.lists(st.integers(1, 3), min_size=2, max_size=5),
       forms=st.lists(st.sampled_from(["vector", "row", "one"]), min_size=4, max_size=4))
def test_layers_of_any_widths_match_autograd(seed, batch, widths, forms):
    params, x = _inputs(seed, batch, widths, forms)
    _assert_gradients(ad.grad(network)(params, x), autograd.grad(autograd_network)(params, x))
    _assert_gradients(ad.grad(loss)(params, x), autograd.grad(autograd_loss)(params, x))


def test_the_loop_over_layers_of_other_widths_needs_no_unbroadcast():
    params, x = _inputs(1, 8, [4, 8, 8, 3], ["vector"] * 3)
    df = ad.grad(network)
    _assert_gradients(df(params, x), autograd.grad(autograd_network)(params, x))
    assert "unbroadcast" not in df.source and "matmul_grad" not in df.source
    assert ".sum(axis=0)" in df.source              # each bias: summed over the batch


@pytest.mark.parametrize("widths", [[4, 1, 3], [1, 3, 2], [3, 2, 1]])
def test_a_layer_of_width_1_keeps_the_broadcasting_helpers(widths):
    params, x = _inputs(2, 5, widths, ["vector"] * 2)
    df = ad.grad(network)
    _assert_gradients(df(params, x), autograd.grad(autograd_network)(params, x))


def test_a_bias_that_broadcasts_over_a_width_keeps_its_sum():
    rng = np.random.default_rng(3)
    params = [(rng.normal(size=(3, 4)), rng.normal(size=(1,))),
              (rng.normal(size=(4, 2)), rng.normal(size=(2,)))]
    x = rng.normal(size=(5, 3))
    _assert_gradients(ad.grad(network)(params, x), autograd.grad(autograd_network)(params, x))


def test_an_axis_other_than_1_meets_sizes_as_numpy_does():
    assert broadcast([("n0", OTHER_THAN_1), (OTHER_THAN_1,)]) == ("n0", OTHER_THAN_1)
    assert broadcast([(OTHER_THAN_1,), ("n1",)]) == ("n1",)
    assert broadcast([(OTHER_THAN_1,), (1,)]) == (OTHER_THAN_1,)
    assert matmul(("n0", OTHER_THAN_1), (OTHER_THAN_1, "n2")) == ("n0", "n2")
    assert matmul(("n0", 1), (OTHER_THAN_1, "n2")) is None        # NumPy raises there


def squared_error(params, x, y):
    return np.sum((layers(params, x) - y) ** 2)


def autograd_squared_error(params, x, y):
    for W, b in params:
        x = anp.tanh(anp.dot(x, W) + b)
    return anp.sum((x - y) ** 2)


@pytest.mark.parametrize("widths, target", [([3, 4, 2], (5, 2)), ([3, 4, 1], (5, 1)),
                                            ([3, 4, 1], (5, 3)), ([3, 4, 2], (2,))])
def test_a_joined_axis_meets_an_exact_one(widths, target):
    """`layers(...)` returns (batch, n?); `- y` with y of an exact width: where the output's
    width is not 1, its adjoint is the difference's (no `unbroadcast`); a width of 1
    stretched by y keeps its sum."""
    rng = np.random.default_rng(5)
    params, x = _inputs(5, 5, widths, ["vector"] * 2)
    y = rng.normal(size=target)
    df = ad.grad(squared_error)
    _assert_gradients(df(params, x, y), autograd.grad(autograd_squared_error)(params, x, y))
    if widths[-1] != 1:
        assert "unbroadcast" not in df.source, df.source
