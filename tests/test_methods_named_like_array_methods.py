"""A method of a class of yours named like an array method (`parser.get(v)`, `p.take(v)`,
`lin.dot(x)`) is that method, dispatched when the derivative runs, not the array method of
that name: it was refused where the owner did not vary, and read as the array method (a
crash) where it did. An array's own `.dot` in the same module still gets its rule, reached
through the same dispatch."""
from configparser import ConfigParser  # noqa: F401  (a standard class with a `get`, in view)
from dataclasses import dataclass

import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad.errors import TransformError
from fd import assert_close, numerical_grad


class Parser:
    def get(self, vect):
        return np.reshape(vect[0:6], (2, 3))
    take = get

    def dot(self, vect):
        return 2.0 * vect[:3]

    def copy(self):
        return self

    def sum(self, **options):
        return 0.0


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


def dict_and_list_methods(params, x):
    rows = [x, x * 2.0]
    named = {"a": x}
    return np.sum(np.tanh(params.get("W") @ x) ** 2) + \
        np.sum(rows.copy()[1] * named.copy()["a"]) + np.sum(named.get("a") ** 3)


def test_a_dict_or_list_method_a_class_also_defines_keeps_its_rule():
    """`get` and `copy` of dicts and lists, where Parser defines `copy` and the standard
    library's ConfigParser (in view) a `get`: dispatched or ruled, the same gradient."""
    params, x = {"W": M}, np.array([0.1, -0.2, 0.3])
    got = ad.grad(dict_and_list_methods, wrt=(0, 1))(params, x)
    assert_close(got[0]["W"], numerical_grad(lambda W: dict_and_list_methods({"W": W}, x),
                                             [M], 0))
    assert_close(got[1], numerical_grad(lambda v: dict_and_list_methods(params, v), [x], 0))


OPTIONS = {"axis": 0}


def summed_with_keywords(x):
    return np.sum(x.sum(**OPTIONS) ** 2)


def test_keywords_unpacked_into_a_method_a_class_also_defines_are_refused_in_both_modes():
    x = np.ones((2, 3))
    for call in (lambda: ad.grad(summed_with_keywords)(x),
                 lambda: ad.jvp(summed_with_keywords)(x, tangent=x)):
        with pytest.raises(TransformError, match="kwargs"):
            call()
