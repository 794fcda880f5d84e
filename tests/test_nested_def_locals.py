"""A nested def's local is of its own scope: named like a list of the function around it
(`output` in both, as in autograd's rnn example), it does not make that list look like an
object the caller passed in, so `output.append(...)` is no write into an argument (it was
refused as `predict` writing into `inputs`)."""
import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad.errors import TransformError
from fd import assert_close, numerical_grad


def predict(W, inputs):
    def readout(h):
        output = h @ W
        return output - 1.0

    output = [readout(inputs[0])]
    output.append(readout(inputs[1]))
    return output


def loss(W, inputs):
    return np.sum(np.tanh(predict(W, inputs)[-1]))


def test_a_list_named_like_a_nested_defs_local_is_the_functions_own():
    W = 0.1 * np.arange(16.0).reshape(4, 4)
    inputs = np.random.default_rng(0).normal(size=(3, 2, 4))
    before = inputs.copy()
    assert_close(ad.grad(loss)(W, inputs), numerical_grad(loss, [W, inputs], 0))
    assert np.array_equal(inputs, before)


def appends_to_its_argument(xs, W):
    def readout(h):
        xs = h @ W                  # the nested def's own `xs`
        return xs

    xs.append(readout(xs[0]))
    return xs


def test_a_real_write_into_an_argument_is_still_refused():
    def outer(W):
        return np.sum(appends_to_its_argument([np.ones(2)], W)[-1])
    with pytest.raises(TransformError, match="appends to its argument `xs`"):
        ad.grad(outer)(np.eye(2))
