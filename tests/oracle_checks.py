"""One check of a scalar function of one array against both oracles, in every mode: reverse
(`grad`), forward (`jvp` in a random direction), and second order (`hessian`, `hvp`), against
central finite differences in float64 and, where it can run the source, HIPS autograd."""
import types

import autograd
import autograd.numpy as anp
import numpy as np

import s2s_ad as ad
from fd import numerical_grad


def with_autograd_numpy(fn):
    """`fn` with its module's `np` rebound to autograd.numpy, for the oracle."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": anp}, fn.__name__,
                              fn.__defaults__, fn.__closure__)


def check_every_mode(fn, x, second=True, autograd_runs=True):
    """grad, jvp and (with `second`) hessian and hvp of `fn` at `x` against the oracles."""
    expected = numerical_grad(fn, (x,), 0)
    np.testing.assert_allclose(ad.grad(fn)(x.copy()), expected, rtol=1e-5, atol=1e-6,
                               err_msg="reverse vs finite differences")
    if autograd_runs:
        np.testing.assert_allclose(ad.grad(fn)(x.copy()),
                                   autograd.grad(with_autograd_numpy(fn))(x.copy()),
                                   rtol=1e-9, atol=1e-12, err_msg="reverse vs autograd")
    direction = np.random.default_rng(1).normal(size=x.shape)
    value, tangent = ad.jvp(fn)(x.copy(), tangent=direction)
    np.testing.assert_allclose(value, fn(x.copy()), rtol=1e-12, err_msg="forward value")
    np.testing.assert_allclose(tangent, np.sum(expected * direction), rtol=1e-5, atol=1e-6,
                               err_msg="forward vs finite differences")
    if not second:
        return
    hessian = numerical_grad(lambda v: ad.grad(fn)(v) @ direction, (x,), 0)
    np.testing.assert_allclose(ad.hessian(fn)(x.copy()) @ direction, hessian, rtol=1e-5,
                               atol=1e-6, err_msg="hessian vs finite differences of grad")
    np.testing.assert_allclose(ad.hvp(fn)(x.copy(), vector=direction), hessian, rtol=1e-5,
                               atol=1e-6, err_msg="hvp vs finite differences of grad")
    if autograd_runs:
        np.testing.assert_allclose(ad.hessian(fn)(x.copy()),
                                   autograd.hessian(with_autograd_numpy(fn))(x.copy()),
                                   rtol=1e-8, atol=1e-10, err_msg="hessian vs autograd")
