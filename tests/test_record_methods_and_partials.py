"""Constructs that work since issue 15's first round, pinned here (they were refused once):
methods of namedtuple and dataclass parameters (`p.energy(x)`), `functools.partial` of a lambda
or of a function passed to a helper, and `sum(...)` over a generator. In every mode against
central finite differences and, where it runs the source, HIPS autograd."""
import dataclasses
import functools
import typing

import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode
from fd import numerical_grad

X = np.array([0.3, -0.7, 1.1, 0.4])


@dataclasses.dataclass
class Spring:
    k: np.ndarray

    def energy(self, x):
        return np.sum(self.k * x * x) * 0.5


class Wave(typing.NamedTuple):
    amplitude: np.ndarray
    phase: float = 0.3

    def value(self, x):
        return np.sum(self.amplitude * np.sin(x + self.phase))


def apply(f, x):
    return f(x)


def partial_of_a_lambda(x):
    scaled = functools.partial(lambda t, k: np.sin(t) * k, k=2.0)
    return np.sum(scaled(x) * x)


def partial_passed_on(x):
    cube = functools.partial(lambda t, n: t ** n, n=3.0)
    return np.sum(apply(cube, x) + apply(np.tanh, x))


def sum_over_a_generator(x):
    return sum(np.sin(x[i]) * x[i + 1] for i in range(3))


@pytest.mark.parametrize("fn, autograd_runs", [(partial_of_a_lambda, True),
                                               (partial_passed_on, True),
                                               (sum_over_a_generator, True)])
def test_every_mode(fn, autograd_runs):
    check_every_mode(fn, X, autograd_runs=autograd_runs)


def spring_energy(spring, x):
    return spring.energy(np.sin(x)) ** 2


def wave_value(wave, x):
    return wave.value(x * x)


@pytest.mark.parametrize("loss, record", [(spring_energy, Spring(np.array([0.5, 1.5, -1.0, 2.0]))),
                                          (wave_value, Wave(np.array([1.0, -0.5, 2.0, 0.7])))])
def test_a_method_of_a_record_parameter(loss, record):
    expected = numerical_grad(lambda x: loss(record, x), (X,), 0)
    np.testing.assert_allclose(ad.grad(loss, wrt=1)(record, X.copy()), expected,
                               rtol=1e-5, atol=1e-6)
    direction = np.array([0.2, -1.0, 0.4, 0.9])
    _, tangent = ad.jvp(loss, wrt=1)(record, X.copy(), tangent=direction)
    np.testing.assert_allclose(tangent, expected @ direction, rtol=1e-5, atol=1e-6)
    field = "k" if isinstance(record, Spring) else "amplitude"
    grad = ad.grad(loss, wrt=0)(record, X.copy())
    assert type(grad) is type(record)
    moved = lambda v: loss(dataclasses.replace(record, k=v) if isinstance(record, Spring)
                           else record._replace(amplitude=v), X)
    np.testing.assert_allclose(getattr(grad, field),
                               numerical_grad(moved, (getattr(record, field),), 0),
                               rtol=1e-5, atol=1e-6)
