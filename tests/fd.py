"""Central finite differences in float64: the oracle every derivative test compares against."""
import numpy as np


def numerical_grad(f, args, argnum, eps=1e-6):
    """d f(*args) / d args[argnum] by central differences; f must return a scalar."""
    args = list(args)
    x = np.array(args[argnum], dtype=np.float64)
    grad = np.zeros_like(x)
    flat = grad.reshape(-1)
    for i in range(x.size):
        for sign in (1.0, -1.0):
            probe = x.copy().reshape(-1)
            probe[i] += sign * eps
            args[argnum] = probe.reshape(x.shape) if np.ndim(args[argnum]) else float(probe[0])
            flat[i] += sign * float(np.sum(f(*args)))
    return grad / (2 * eps)


def numerical_vjp(f, args, argnum, seed, eps=1e-6):
    """seed . d f(*args) / d args[argnum] by central differences."""
    return numerical_grad(lambda *a: np.sum(np.asarray(f(*a)) * seed), args, argnum, eps)


def assert_close(actual, expected, rtol=1e-6, atol=1e-7):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.float64), expected, rtol=rtol, atol=atol)
