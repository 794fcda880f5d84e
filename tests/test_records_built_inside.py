"""A namedtuple or dataclass built inside the differentiated function (issue 15): `p =
Point(np.sin(x), b=x * 2.0)`, then its fields read (`p.a`), passed to a helper, or built in a
loop. Each in every mode against central finite differences and, for the namedtuples, HIPS
autograd. A dataclass whose `__init__` does more than store the fields stays refused."""
import dataclasses
import typing

import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode

X = np.array([0.3, -0.7, 1.1, 0.4])


class Point(typing.NamedTuple):
    a: np.ndarray
    b: np.ndarray
    scale: float = 2.0


@dataclasses.dataclass
class Layer:
    w: np.ndarray
    bias: float = 0.5


def energy(p):
    return np.sum(p.a * p.b) * p.scale


def namedtuple_fields(x):
    p = Point(np.sin(x), b=x * 2.0)
    q = Point(p.b, p.a * p.a, scale=3.0)
    return energy(p) + np.sum(q.a * x) + energy(q)


def dataclass_fields(x):
    layer = Layer(np.tanh(x))
    other = Layer(w=x * x, bias=np.sum(x))
    return np.sum(layer.w * other.w) + layer.bias * other.bias


def built_in_a_loop(x):
    total = 0.0
    p = Point(x, x)
    for k in range(3):
        p = Point(np.sin(p.a) + p.b * 0.1, p.a, scale=k + 1.0)
        total = total + energy(p)
    return total


@pytest.mark.parametrize("fn, autograd_runs", [(namedtuple_fields, True),
                                               (dataclass_fields, False),
                                               (built_in_a_loop, True)])
def test_every_mode(fn, autograd_runs):
    check_every_mode(fn, X, autograd_runs=autograd_runs)


@dataclasses.dataclass
class Normalized:
    w: np.ndarray

    def __post_init__(self):
        self.w = self.w / np.sum(self.w)


def post_init(x):
    return np.sum(Normalized(x * x).w)


def test_a_dataclass_whose_init_computes_stays_refused():
    with pytest.raises(ad.TransformError):
        ad.grad(post_init)(X)
