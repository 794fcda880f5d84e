"""Callables that cannot key a dict (a ctypes function, an object whose `__hash__` is None or
raises) work wherever a hashable one does: with a registered rule, named in the source or
reached only at run time; without one, they are refused at the user's call."""
import ctypes
import math
import ctypes.util

import numpy as np
import pytest

import s2s_ad as ad
import s2s_ad.rules
from s2s_ad import d
from s2s_ad.errors import NoDerivativeRule
from fd import assert_close, numerical_grad
from test_errors import location_of

_libm_path = ctypes.util.find_library("m")
needs_libm = pytest.mark.skipif(_libm_path is None, reason="no C math library to load")


def _c_function(name):
    function = getattr(ctypes.CDLL(_libm_path), name)
    function.restype = ctypes.c_double
    function.argtypes = [ctypes.c_double]
    return function


c_cos = _c_function("cos") if _libm_path else None
c_sin = _c_function("sin") if _libm_path else None      # no rule: refused
TABLE = {"cos": c_cos}
LISTED = [c_cos]


class Unhashable:
    """A callable with no Python source whose `__hash__` raises (not TypeError)."""

    __call__ = staticmethod(math.tanh)

    def __hash__(self):
        raise ValueError("not hashable")


scaled_tanh = Unhashable()


@pytest.fixture(scope="module", autouse=True)
def rules():
    primals = [scaled_tanh] + ([c_cos] if _libm_path else [])
    for primal in primals:
        ad.adjoint(primal)(_cos_adjoint if primal is c_cos else _tanh_adjoint)
        ad.tangent(primal)(_cos_tangent if primal is c_cos else _tanh_tangent)
    yield
    for primal in primals:
        s2s_ad.rules.ADJOINTS.pop(primal, None)
        s2s_ad.rules.TANGENTS.pop(primal, None)


def _cos_adjoint(y, x):
    d[x] = -d[y] * np.sin(x)


def _cos_tangent(y, x):
    d[y] = -d[x] * np.sin(x)


def _tanh_adjoint(y, x):
    d[x] = d[y] * (1 - y * y)


def _tanh_tangent(y, x):
    d[y] = d[x] * (1 - y * y)


def by_name(x):
    return c_cos(x) * x


def from_default(x, fn=c_cos):
    return fn(x) * x


def from_dict(x):
    return TABLE["cos"](x) * x


def from_list(x):
    return LISTED[0](x) * x


def unhashable_by_name(x):
    return scaled_tanh(x) * x


def passed_in(x, fn):
    return fn(x) * x


def no_rule(x):
    return c_sin(x) * x                       # marker: c_sin(x)


def no_rule_from_dict(x):
    return {"sin": c_sin}["sin"](x) * x       # marker: {"sin"


def _reference(fn, x):
    return float(numerical_grad(lambda v: fn(float(v)), [x], 0))


@needs_libm
@pytest.mark.parametrize("fn", [by_name, from_default, from_dict, from_list])
def test_ctypes_function_with_a_rule_in_both_modes(fn):
    x = 0.7
    assert_close(ad.grad(fn)(x), _reference(fn, x))
    _, tangent = ad.jvp(fn)(x, tangent=1.0)
    assert_close(tangent, _reference(fn, x))


@needs_libm
def test_ctypes_function_with_a_rule_second_order():
    x = 0.4
    first = lambda v: -np.sin(v) * v + np.cos(v)           # d/dx cos(x) x, by hand
    assert_close(ad.grad(ad.grad(by_name))(x), numerical_grad(first, [x], 0))
    assert_close(ad.hessian(by_name)(np.float64(x)), numerical_grad(first, [x], 0))


def test_callable_whose_hash_raises_uses_its_rule():
    x = 0.3
    for call in (lambda: ad.grad(unhashable_by_name)(x),
                 lambda: ad.grad(passed_in)(x, scaled_tanh),
                 lambda: ad.jvp(passed_in)(x, scaled_tanh, tangent=1.0)[1]):
        assert_close(call(), _reference(unhashable_by_name, x))


def _assert_located(err, fn, marker):
    filename, line, col, source_line = location_of(fn, marker)
    assert (err.filename, err.lineno, err.col + 1) == (filename, line, col), str(err)
    assert str(err).splitlines()[1].strip() == source_line.strip()
    assert "ctypes" not in err.hint and err.hint


@needs_libm
@pytest.mark.parametrize("transform", [ad.grad, lambda f: (lambda x: ad.jvp(f)(x, tangent=1.0))])
def test_ctypes_function_without_a_rule_is_refused_at_the_call(transform):
    with pytest.raises(NoDerivativeRule) as info:
        transform(no_rule)(0.5)
    _assert_located(info.value, no_rule, "c_sin(x)")
    with pytest.raises(NoDerivativeRule) as info:
        transform(no_rule_from_dict)(0.5)
    _assert_located(info.value, no_rule_from_dict, '{"sin"')
    assert "no adjoint registered" in str(info.value) or "no tangent registered" in str(info.value)
