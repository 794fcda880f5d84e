"""A method of a class of yours named like an array method (`parser.get(v)`, `p.take(v)`,
`lin.dot(x)`) is that method, dispatched when the derivative runs, not the array method of
that name: it was refused where the owner did not vary, and read as the array method (a
crash) where it did. An array's own `.dot` in the same module still gets its rule, reached
through the same dispatch."""
from dataclasses import dataclass

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


class Parser:
    def get(self, vect):
        return np.reshape(vect[0:6], (2, 3))
    take = get

    def dot(self, vect):
        return 2.0 * vect[:3]


class Layer:
    def __init__(self):
        self.parser = Parser()

    def through_an_attribute(self, x, v):
        return np.tanh(self.parser.get(v) @ x)

    def through_a_local(self, x, v):
        p = self.parser
        return np.tanh(p.take(v) @ x)


LAYER, PARSER = Layer(), Parser()


@dataclass
class Linear:
    W: np.ndarray

    def dot(self, x):
        return self.W @ x


def via_attribute(v, x):
    return np.sum(LAYER.through_an_attribute(x, v))


def via_local(v, x):
    return np.sum(LAYER.through_a_local(x, v))


def via_argument(v, x, parser):
    return np.sum(np.tanh(parser.get(v) @ x))


def arrays_and_parsers(v, X):
    return np.sum(np.tanh(X.dot(v[:3]))) + np.sum(PARSER.dot(v) ** 2) + np.sum(v[:3].dot(X.T))


def linear_layer(lin, x):
    return np.sum(np.sin(lin.dot(x)))


V, X = np.linspace(0.1, 0.6, 6), np.arange(3.0)
M = np.arange(6.0).reshape(2, 3) / 5


@pytest.mark.parametrize("f, args", [(via_attribute, (V, X)), (via_local, (V, X)),
                                     (via_argument, (V, X, Parser())),
                                     (arrays_and_parsers, (V, M))])
def test_both_modes_match_central_differences(f, args):
    expected = numerical_grad(f, list(args), 0)
    assert_close(ad.grad(f)(*args), expected)
    direction = np.linspace(-1.0, 1.0, V.size)
    assert_close(ad.jvp(f)(*args, tangent=direction)[1], expected @ direction)


def test_a_dataclass_method_named_dot_with_the_owner_differentiated():
    lin, x = Linear(M), np.array([0.1, -0.2, 0.3])
    got = ad.grad(linear_layer)(lin, x)
    assert_close(got.W, np.outer(np.cos(M @ x), x))
    assert_close(ad.grad(linear_layer, wrt=1)(lin, x), M.T @ np.cos(M @ x))
