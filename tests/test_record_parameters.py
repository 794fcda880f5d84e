"""Dataclass and NamedTuple parameters (issue 15): the derivative with respect to one comes
back as the same type, field by field, in grad, jvp (a tangent of the same type) and hvp;
each checked against central finite differences, field by field."""
import dataclasses
from typing import NamedTuple

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close

_rng = np.random.default_rng(15)


@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray


@dataclasses.dataclass(frozen=True)
class Scaled:
    a: np.ndarray
    s: float


@dataclasses.dataclass
class Net:
    first: Layer
    scale: float
    extra: dict


class Pair(NamedTuple):
    W: np.ndarray
    b: np.ndarray


def layer_loss(p, x):
    return np.sum(np.tanh(p.W @ x + p.b) ** 2)


def frozen_loss(p, x):
    return np.sum(p.a ** 2 * x) * p.s


def nested_loss(n, x):
    h = np.tanh(n.first.W @ x + n.first.b) * n.scale
    return np.sum(h * n.extra["c"])


def reads_W(p, x):
    return np.sum(np.sin(p.W @ x))


def through_a_helper(p, x):
    return reads_W(p, x) + np.sum(p.b ** 3)


def one_field_unused(p, x):
    return np.sum(p.W * x)


def _fields(value):
    """(field path, leaf) of a dataclass / NamedTuple / dict tree, in order."""
    if dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            for path, leaf in _fields(getattr(value, f.name)):
                yield (f.name,) + path, leaf
    elif isinstance(value, dict):
        for k, v in value.items():
            for path, leaf in _fields(v):
                yield (k,) + path, leaf
    elif isinstance(value, tuple):
        for k, v in zip(value._fields, value):
            for path, leaf in _fields(v):
                yield (k,) + path, leaf
    else:
        yield (), value


def _at(value, path):
    for key in path:
        value = value[key] if isinstance(value, dict) else getattr(value, key)
    return value


def _with(value, path, leaf):
    if not path:
        return leaf
    key, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, key: _with(value[key], rest, leaf)}
    if isinstance(value, tuple):
        return value._replace(**{key: _with(getattr(value, key), rest, leaf)})
    return dataclasses.replace(value, **{key: _with(getattr(value, key), rest, leaf)})


def _numerical(f, p, x, eps=1e-6):
    """{field path: d f / d that field}, by central differences."""
    out = {}
    for path, leaf in _fields(p):
        leaf = np.asarray(leaf, dtype=float)
        g = np.zeros(leaf.size)
        for i in range(leaf.size):
            for sign in (1.0, -1.0):
                probe = leaf.copy().reshape(-1)
                probe[i] += sign * eps
                moved = probe.reshape(leaf.shape) if leaf.ndim else float(probe[0])
                g[i] += sign * f(_with(p, path, moved), x)
        out[path] = (g / (2 * eps)).reshape(leaf.shape)
    return out


def _layer():
    return Layer(_rng.normal(size=(2, 3)), _rng.normal(size=2))


CASES = [
    (layer_loss, _layer),
    (frozen_loss, lambda: Scaled(_rng.normal(size=3), 1.5)),
    (nested_loss, lambda: Net(_layer(), 0.7, {"c": _rng.normal(size=2)})),
    (through_a_helper, _layer),
    (one_field_unused, _layer),
    (layer_loss, lambda: Pair(_rng.normal(size=(2, 3)), _rng.normal(size=2))),
]


@pytest.mark.parametrize("f, make", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_gradient_is_the_parameter_type(f, make):
    p, x = make(), _rng.normal(size=3)
    g = ad.grad(f)(p, x)
    assert type(g) is type(p)
    expected = _numerical(f, p, x)
    for path, _ in _fields(p):
        assert_close(_at(g, path), expected[path])


@pytest.mark.parametrize("f, make", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_jvp_along_a_tangent_of_the_parameter_type(f, make):
    p, x = make(), _rng.normal(size=3)
    tangent = p
    for path, leaf in _fields(p):
        tangent = _with(tangent, path, _rng.normal(size=np.shape(leaf)) if np.ndim(leaf)
                        else float(_rng.normal()))
    value, directional = ad.jvp(f)(p, x, tangent=tangent)
    expected = _numerical(f, p, x)
    assert_close(value, f(p, x))
    assert_close(directional, sum(np.sum(expected[path] * _at(tangent, path))
                                  for path, _ in _fields(p)))


@pytest.mark.parametrize("f, make", CASES[:3] + CASES[5:], ids=lambda c: getattr(c, "__name__", ""))
def test_hvp_is_the_parameter_type(f, make):
    p, x = make(), _rng.normal(size=3)
    v = ad.grad(f)(p, x)
    hv = ad.hvp(f)(p, x, vector=v)
    assert type(hv) is type(p)
    # H v by central differences of the gradient along v
    eps = 1e-5
    def moved(sign):
        q = p
        for path, leaf in _fields(p):
            q = _with(q, path, leaf + sign * eps * _at(v, path))
        return ad.grad(f)(q, x)
    plus, minus = moved(1.0), moved(-1.0)
    for path, _ in _fields(p):
        assert_close(_at(hv, path), (_at(plus, path) - _at(minus, path)) / (2 * eps),
                     rtol=1e-5, atol=1e-6)


def test_a_tangent_of_another_type_is_refused_clearly():
    p, x = _layer(), _rng.normal(size=3)
    with pytest.raises(TypeError, match="must be a Layer"):
        ad.jvp(layer_loss)(p, x, tangent=(p.W, p.b))


def test_an_object_that_is_not_a_record_is_refused_clearly():
    class Opaque:
        W = np.ones((2, 3))
        b = np.ones(2)
    with pytest.raises(TypeError, match="dict, list, tuple or dataclass"):
        ad.grad(layer_loss)(Opaque(), np.ones(3))
