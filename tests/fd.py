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


def assert_layers_close(got, f, layers, *rest, rtol=1e-6):
    """`got`, a gradient of `f(layers, *rest)` for a list of (W, b) tuples, leaf by leaf
    against central differences: each leaf of its layer's shape."""
    for i, layer in enumerate(layers):
        for j, leaf in enumerate(layer):
            def at(v, i=i, j=j):
                changed = [list(p) for p in layers]
                changed[i][j] = v
                return f([tuple(p) for p in changed], *rest)
            assert np.shape(got[i][j]) == np.shape(leaf)
            assert_close(got[i][j], numerical_grad(at, [leaf], 0), rtol=rtol)


def numerical_complex_grad(f, z, eps=1e-6):
    """The gradient of a real-valued f at complex z under the convention of JAX and HIPS
    autograd, df/da - i df/db at z = a + ib, by central differences along a and b."""
    z = np.array(z, dtype=np.complex128)
    grad = np.zeros_like(z)
    for index in np.ndindex(z.shape):
        step = np.zeros(z.shape)
        step[index] = eps
        along_a = (float(f(z + step)) - float(f(z - step))) / (2 * eps)
        along_b = (float(f(z + 1j * step)) - float(f(z - 1j * step))) / (2 * eps)
        grad[index] = along_a - 1j * along_b
    return grad


def assert_close_complex(actual, expected, rtol=1e-6, atol=1e-7):
    np.testing.assert_allclose(np.asarray(actual, dtype=np.complex128), expected, rtol=rtol,
                               atol=atol)
