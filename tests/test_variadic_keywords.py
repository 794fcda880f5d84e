"""Helpers and decorators' wrappers that take `**kwargs` (issue 15): `def wrapper(v, *args,
**kwargs)` of a decorator (with or without functools.wraps), `def g(x, **options)` reading
`options["scale"]`, read for each call as if the keywords it passes were named parameters.
Every mode against central finite differences and HIPS autograd."""
import functools

import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode

X = np.array([0.3, -0.7, 1.1, 0.4])


def doubled(fn):
    def wrapper(v, *args, **kwargs):
        return fn(v, *args, **kwargs) * 2.0
    return wrapper


def scaled(fn):
    @functools.wraps(fn)
    def wrapper(v, *args, **kwargs):
        out = fn(v, *args, **kwargs)
        return out * kwargs.get("k", 1.0)
    return wrapper


@doubled
def layer(v, w=1.0, k=1.0):
    return np.sin(v * w) * k


@scaled
def other_layer(v, k=1.0):
    return np.tanh(v) + k


def kwargs_helper(x, **options):
    return x * options["scale"] + options.get("shift", 0.0)


def decorator_without_wraps(x):
    return np.sum(layer(x, k=3.0) + layer(x, 0.5) * layer(x, x, k=x))


def decorator_with_wraps(x):
    return np.sum(other_layer(x, k=2.0) * other_layer(x * x))


def options_read_by_name(x):
    return np.sum(kwargs_helper(x, scale=2.0) * kwargs_helper(x, scale=x, shift=1.0))


@pytest.mark.parametrize("fn", [decorator_without_wraps, decorator_with_wraps,
                                options_read_by_name])
def test_every_mode(fn):
    check_every_mode(fn, X)


def test_gradient_through_a_keyword():
    def loss(x, k):
        return np.sum(layer(x, k=k) * kwargs_helper(x, scale=k))
    k = np.array([0.7, 1.3, -0.2, 0.5])
    assert ad.check_grad(loss, X, k, wrt=1) < 1e-7


def clashing(x, **options):
    scale = 2.0
    return x * options["scale"] * scale


def test_a_keyword_that_is_also_a_local_name_stays_refused():
    def f(x):
        return np.sum(clashing(x, scale=3.0))
    with pytest.raises(ad.TransformError, match="kwargs"):
        ad.grad(f)(X)
