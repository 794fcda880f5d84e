"""The classic autograd tutorial's results, asserted directly on the functions of the example."""
import importlib.util
import os

import numpy as np
import pytest

import s2s_ad as ad

_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                     "examples", "d2l_autograd.py")
_spec = importlib.util.spec_from_file_location("d2l_autograd", _PATH)
d2l = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(d2l)


@pytest.fixture
def x():
    return np.arange(4.0)


def test_gradient_of_two_x_dot_x_is_four_x(x):
    np.testing.assert_allclose(ad.grad(d2l.dot_twice)(x), 4 * x)


def test_gradient_of_sum_is_ones(x):
    np.testing.assert_array_equal(ad.grad(d2l.total)(x), np.ones_like(x))


def test_non_scalar_output_with_seed_of_ones_gives_two_x(x):
    value, dx = ad.vjp(d2l.square)(x, seed=np.ones_like(x))
    np.testing.assert_array_equal(value, x * x)
    np.testing.assert_allclose(dx, 2 * x)


def test_grad_of_non_scalar_output_points_to_vjp(x):
    with pytest.raises(TypeError, match=r"\(4,\).*vjp"):
        ad.grad(d2l.square)(x)


def test_detach_gives_u(x):
    np.testing.assert_allclose(ad.grad(d2l.detached)(x), x * x)
    np.testing.assert_allclose(ad.grad(d2l.not_detached)(x), 2 * x)


@pytest.mark.parametrize("a", [0.1257, -0.1257, 3.0, -1234.5, 2e-4])
def test_control_flow_scalar_gradient_is_f_over_a(a):
    a = np.float64(a)
    np.testing.assert_allclose(ad.grad(d2l.f)(a), d2l.f(a) / a)


@pytest.mark.parametrize("shape", [(3,), (2, 2)])
def test_control_flow_vector_with_seed_of_ones(shape, rng):
    a = rng.normal(size=shape)
    value, da = ad.vjp(d2l.f)(a, seed=np.ones(shape))
    np.testing.assert_allclose(value, d2l.f(a))
    np.testing.assert_allclose(da, value / a)


def test_nothing_accumulates_between_calls(x):
    df = ad.grad(d2l.dot_twice)
    first = df(x)
    second = df(x)
    np.testing.assert_array_equal(first, second)
    assert first is not second
    np.testing.assert_array_equal(x, np.arange(4.0))     # the argument is untouched


def test_second_derivative_by_composition():
    assert ad.grad(ad.grad(d2l.cube))(2.0) == pytest.approx(12.0)


def test_float32_in_float32_out():
    x = np.arange(4, dtype=np.float32)
    g = ad.grad(d2l.dot_twice)(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 4 * x)


def test_main_runs(capsys):
    d2l.main()
    assert capsys.readouterr().out.splitlines()[-1] == "all results match the chapter"
