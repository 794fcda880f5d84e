"""Complex values, under the convention of JAX and HIPS autograd (README "Complex numbers"):
for a real-valued f of z = a + ib, grad returns df/da - i df/db; the adjoint of a holomorphic
function is g * f'(z); a real input gets a real gradient. Checked against autograd and against
finite differences along the real and imaginary parts. Rules that hold for real values only
still refuse complex ones, naming the user's line."""
import inspect
import os

import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import s2s_ad as ad
from fd import (assert_close, assert_close_complex, numerical_complex_grad, numerical_grad)
from s2s_ad.errors import ComplexValue, TransformError

C = np.array([1 + 2j, 3j])
Z = np.array([1 + 2j, -0.5 + 0.3j, 0.2 - 0.7j, -1.1 - 0.4j])
W = np.array([0.3 - 0.2j, 1.5 + 0.1j, -0.4 + 0.9j, 0.7 + 0.0j])


def rng_complex(shape, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


# --- the convention, checked against autograd and finite differences ------------------------

def squared_modulus(z): return np.sum(np.abs(z) ** 2)
def real_of_square(z): return np.real(np.sum(z * z))
def modulus_of_fft(z): return np.sum(np.abs(np.fft.fft(z)))
def angle_sum(z): return np.sum(np.angle(z) * np.arange(4))
def imag_and_real(z): return np.sum(np.imag(z) ** 2 * np.real(z)) + np.sum(z.real * z.imag)
def conjugate_product(z): return np.real(np.sum(np.conj(z) * W * z * np.exp(1j * z)))
def holomorphic_chain(z): return np.sum(np.abs(np.sin(z) * np.cos(z) + np.tanh(z) / (z + 3)))
def powers_and_roots(z): return np.sum(np.abs(np.sqrt(z) ** 3 + np.log(z) - z ** 2))
def matrix_product(z): return np.sum(np.abs(z.reshape(2, 2) @ W.reshape(2, 2)) ** 2)
def indexing_and_mean(z): return np.abs(np.mean(z[1:] * z[:-1])) + np.real(z[0] * 2j)


def a_squared_modulus(z): return anp.sum(anp.abs(z) ** 2)
def a_real_of_square(z): return anp.real(anp.sum(z * z))
def a_modulus_of_fft(z): return anp.sum(anp.abs(anp.fft.fft(z)))
def a_angle_sum(z): return anp.sum(anp.angle(z) * anp.arange(4))
def a_imag_and_real(z): return anp.sum(anp.imag(z) ** 2 * anp.real(z)) + anp.sum(anp.real(z) * anp.imag(z))
def a_conjugate_product(z): return anp.real(anp.sum(anp.conj(z) * W * z * anp.exp(1j * z)))
def a_holomorphic_chain(z): return anp.sum(anp.abs(anp.sin(z) * anp.cos(z) + anp.tanh(z) / (z + 3)))
def a_powers_and_roots(z): return anp.sum(anp.abs(anp.sqrt(z) ** 3 + anp.log(z) - z ** 2))
def a_matrix_product(z): return anp.sum(anp.abs(anp.dot(anp.reshape(z, (2, 2)), W.reshape(2, 2))) ** 2)
def a_indexing_and_mean(z): return anp.abs(anp.mean(z[1:] * z[:-1])) + anp.real(z[0] * 2j)


REAL_VALUED = [(squared_modulus, a_squared_modulus), (real_of_square, a_real_of_square),
               (modulus_of_fft, a_modulus_of_fft), (angle_sum, a_angle_sum),
               (imag_and_real, a_imag_and_real), (conjugate_product, a_conjugate_product),
               (holomorphic_chain, a_holomorphic_chain), (powers_and_roots, a_powers_and_roots),
               (matrix_product, a_matrix_product), (indexing_and_mean, a_indexing_and_mean)]


@pytest.mark.parametrize("f, af", REAL_VALUED, ids=[f.__name__ for f, _ in REAL_VALUED])
def test_grad_of_a_real_function_of_complex_values_is_autograds(f, af):
    expected = autograd.grad(af)(Z)
    assert_close_complex(ad.grad(f)(Z), expected)
    # the convention itself: df/da - i df/db, not its conjugate (PyTorch's)
    assert_close_complex(expected, numerical_complex_grad(f, Z), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", [f for f, _ in REAL_VALUED], ids=[f.__name__ for f, _ in REAL_VALUED])
def test_forward_mode_agrees_with_the_gradient(f):
    # jvp along v is Re(sum(grad * v)) under the convention
    v = rng_complex(4, 1)
    _, directional = ad.jvp(f)(Z, tangent=v)
    assert np.isrealobj(directional)
    assert_close(directional, np.real(np.sum(ad.grad(f)(Z) * v)))


def test_gradient_descent_takes_the_conjugate():
    # README: PyTorch's convention (the direction of steepest ascent) is the conjugate
    z = Z.copy()
    for _ in range(50):
        z = z - 0.1 * np.conj(ad.grad(squared_modulus)(z))
    assert squared_modulus(z) < 1e-6 * squared_modulus(Z)


def sin_times_exp(z): return np.sin(z) * np.exp(z) / (1 + z * z)
def a_sin_times_exp(z): return anp.sin(z) * anp.exp(z) / (1 + z * z)


def test_holomorphic_functions_through_vjp_and_jvp():
    seed = rng_complex(4, 2)
    _, g = ad.vjp(sin_times_exp)(Z, seed=seed)
    assert_close_complex(g, autograd.make_vjp(a_sin_times_exp)(Z)[0](seed))
    derivative = np.cos(Z) * np.exp(Z) / (1 + Z * Z) + np.sin(Z) * np.exp(Z) / (1 + Z * Z) \
        - np.sin(Z) * np.exp(Z) * 2 * Z / (1 + Z * Z) ** 2
    assert_close_complex(g, seed * derivative)          # the transpose: no conjugate
    _, t = ad.jvp(sin_times_exp)(Z, tangent=seed)
    assert_close_complex(t, derivative * seed)


def cube(z): return z ** 3 + 2 * z


def test_the_derivative_of_a_holomorphic_scalar_is_its_vjp_of_one():
    # grad needs a real output, as autograd's and JAX's do; vjp(seed=1) is autograd's
    # holomorphic_grad
    z = 0.5 + 0.25j
    _, derivative = ad.vjp(cube)(z, seed=1.0)
    assert_close_complex(derivative, 3 * z ** 2 + 2)
    with pytest.raises(TypeError, match="returned a complex one"):
        ad.grad(cube)(z)


# --- real inputs that meet complex values get real gradients --------------------------------

def literal_times_x(x): return np.sum(np.abs(x * (1 + 2j)))


def constructor_meets_x(x):
    c = complex(1.0, 2.0)
    return np.sum(np.abs(x * c))


def astype_meets_x(x):
    y = x.astype(np.complex128) * (0.5 - 1j)
    return np.sum(np.abs(y) ** 2)


def module_array_meets_x(x):
    y = x * C
    return np.sum(np.abs(y))


def module_array_meets_x_later(x):
    h = np.sin(x)
    y = np.cos(h) * C
    return np.sum(np.abs(y))


def argument_meets_x(x, c):
    return np.sum(np.abs(x * c))


def imaginary_part_of_x_times_complex(x):
    # np.imag and np.angle were constants once: the gradient through them was dropped
    z = x * (0.3 + 0.8j)
    return np.sum(np.imag(z) ** 2) + np.sum(np.angle(z * (1 + 1j)))


def inactive_complex(x, c):
    w = np.real(np.exp(1j * c))
    return np.sum(w * x)


def a_literal_times_x(x): return anp.sum(anp.abs(x * (1 + 2j)))
def a_module_array_meets_x(x): return anp.sum(anp.abs(x * C))


@pytest.mark.parametrize("fn", [literal_times_x, constructor_meets_x, astype_meets_x,
                                module_array_meets_x, module_array_meets_x_later,
                                imaginary_part_of_x_times_complex])
def test_a_real_input_that_meets_complex_values_gets_a_real_gradient(fn):
    x = np.array([0.7, -1.3])
    g = ad.grad(fn)(x)
    assert g.dtype == np.float64
    assert_close(g, numerical_grad(fn, [x], 0), rtol=1e-5)
    _, directional = ad.jvp(fn)(x, tangent=np.array([1.0, -0.5]))
    assert np.isrealobj(directional)
    assert_close(directional, g @ np.array([1.0, -0.5]))


def test_real_inputs_agree_with_autograd():
    x = np.array([0.7, -1.3])
    assert_close(ad.grad(literal_times_x)(x), autograd.grad(a_literal_times_x)(x))
    assert_close(ad.grad(module_array_meets_x)(x), autograd.grad(a_module_array_meets_x)(x))


@pytest.mark.parametrize("x", [1.5, np.float64(1.5), np.array([1.5, 2.0])])
def test_complex_argument_not_in_wrt(x):
    # was: -1.34 per entry (the real part of a complex gradient) with only a ComplexWarning;
    # then refused; now the real gradient of a real input
    g = ad.grad(argument_meets_x)(x, 1 + 2j)
    assert np.isrealobj(g) and np.shape(g) == np.shape(x)
    assert_close(g, numerical_grad(argument_meets_x, [x, 1 + 2j], 0))
    _, t = ad.jvp(argument_meets_x)(x, 1 + 2j, tangent=x * 0 + 1.0)
    assert_close(t, np.sum(g))


def test_a_complex_argument_in_wrt_and_its_python_number():
    g = ad.grad(argument_meets_x, wrt=1)(np.array([1.5, 2.0]), 1 + 2j)
    assert isinstance(g, complex)
    assert_close_complex(g, numerical_complex_grad(
        lambda c: argument_meets_x(np.array([1.5, 2.0]), complex(c)), 1 + 2j))


def test_seeds_and_tangents():
    with pytest.raises(TypeError, match="seed for .* is complex, but its value is real"):
        ad.vjp(inactive_complex)(np.ones(2), 0.3, seed=1j)
    with pytest.raises(TypeError, match="tangent for 'x' is complex, but 'x' is real"):
        ad.jvp(inactive_complex)(np.ones(2), 0.3, tangent=np.ones(2) * 1j)
    _, t = ad.jvp(squared_modulus)(Z, tangent=np.ones(4))      # a real tangent of complex z
    assert_close(t, np.sum(2 * Z.real))


def test_inactive_complex_constants_still_work_and_active_ones_too():
    x, c = np.array([0.5, -1.0]), np.array([0.3, 0.5])
    expected = numerical_grad(inactive_complex, [x, c], 0)
    assert_close(ad.grad(inactive_complex)(x, c), expected)
    _, directional = ad.jvp(inactive_complex)(x, c, tangent=np.ones(2))
    assert_close(directional, np.sum(expected))
    # differentiated with respect to c, the constant 1j meets an active value (was refused)
    assert_close(ad.grad(inactive_complex, wrt=1)(x, c), numerical_grad(inactive_complex, [x, c], 1))


# --- the vjp / jvp dot-product identity for each rule that holds for complex values ----------

def _elementwise(name):
    function = getattr(np, name)
    return lambda z: function(z)


ELEMENTWISE = ["exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh", "sqrt", "square",
               "reciprocal", "arcsin", "arccos", "arctan", "arcsinh", "arctanh", "expm1",
               "log1p", "log2", "log10", "exp2", "negative", "positive", "conj", "real", "imag",
               "abs", "angle"]

OTHERS = {
    "add": lambda z: z + W * z, "subtract": lambda z: W - z * 2, "multiply": lambda z: z * z * W,
    "divide": lambda z: W / z + z / 3, "power": lambda z: z ** W + z ** 3 + 2.0 ** z,
    "sum": lambda z: np.sum(z.reshape(2, 2), axis=0), "mean": lambda z: z.reshape(2, 2).mean(1),
    "matmul": lambda z: z.reshape(2, 2) @ z.reshape(2, 2).T, "matvec": lambda z: z @ W,
    "transpose": lambda z: np.transpose(z.reshape(2, 2)) * W.reshape(2, 2),
    "indexing": lambda z: z[::-1][1:] * z[0], "reshape": lambda z: np.ravel(z.reshape(2, 2) * 2),
    "astype": lambda z: z.real.astype(complex) * W, "attributes": lambda z: z.real * z.imag + z.conj(),
    "fftshift": lambda z: np.fft.fftshift(z) * W, "ifftshift": lambda z: np.fft.ifftshift(z * W),
    "dot": lambda z: np.dot(z.reshape(2, 2), z[:2]) + np.dot(z, W) + z.reshape(2, 2).dot(W[:2]),
    "outer": lambda z: np.outer(z, W[:3] * z[:3]), "vdot": lambda z: np.vdot(z * z, W * z),
    "moveaxis": lambda z: np.moveaxis(z.reshape(1, 2, 2), 0, 2) * W.reshape(2, 2, 1),
    "flip": lambda z: np.flip(z * W) + np.fliplr(z.reshape(2, 2)).ravel() + np.flipud(z),
    "roll": lambda z: np.roll(z * W, 1), "tril": lambda z: np.tril(z.reshape(2, 2) * z[0]),
    "triu": lambda z: np.triu(z.reshape(2, 2), 1) * W.reshape(2, 2),
    "broadcast_to": lambda z: np.broadcast_to(z * z, (3, 4)),
    "concatenate": lambda z: np.concatenate([z * z, W, z]),
    "stack": lambda z: np.stack([z, W * z], axis=1) ** 2,
    "hstack": lambda z: np.hstack([z, W * z]) ** 2, "vstack": lambda z: np.vstack([z, W]) * z,
    "einsum": lambda z: np.einsum("ij,jk->ik", z.reshape(2, 2), W.reshape(2, 2) * z.reshape(2, 2)),
    "einsum_trace": lambda z: np.einsum("ii,j->j", z.reshape(2, 2), W * z),
    "tensordot": lambda z: np.tensordot(z.reshape(2, 2), z.reshape(2, 2) * W.reshape(2, 2), 1),
    "inner": lambda z: np.inner(z.reshape(2, 2), W.reshape(2, 2)) * np.inner(z, z),
    "kron": lambda z: np.kron(z[:2], W[:2] * z[2:]),
    "diag": lambda z: np.diag(z * W) @ z + np.sum(np.diag(z.reshape(2, 2) * 1j)),
    "diagonal": lambda z: np.diagonal(z.reshape(2, 2) * W.reshape(2, 2)) * z.reshape(2, 2).diagonal(),
    "trace": lambda z: np.trace(z.reshape(2, 2) * z[:2]) + z.reshape(2, 2).trace() * W,
    "cumsum": lambda z: np.cumsum(z * W) + z.cumsum() * z,
    "repeat": lambda z: np.repeat(z * W, 2) + z.repeat(2),
    "tile": lambda z: np.tile(z * z, (2, 1)), "take": lambda z: np.take(z * W, [0, 3, 3]) * z.take([1, 1, 2]),
    "diff": lambda z: np.diff(z * W) * np.diff(z, prepend=W[0])[1:],
    "atleast_2d": lambda z: np.atleast_2d(z * z) * W,
}


@pytest.mark.parametrize("name", ELEMENTWISE + list(OTHERS))
def test_dot_product_identity_on_complex_inputs(name):
    f = OTHERS[name] if name in OTHERS else _elementwise(name)
    z = Z * 0.4                                   # inside the branch cuts' unit disc
    v = rng_complex(4, 3)
    y, t = ad.jvp(f)(z, tangent=v)
    u = rng_complex(np.shape(y), 4) if np.iscomplexobj(y) else np.random.default_rng(4).normal(
        size=np.shape(y))
    _, g = ad.vjp(f)(z, seed=u)
    assert_close(np.real(np.sum(u * t)), np.real(np.sum(g * v)))
    # and the tangent is the directional derivative along v
    eps = 1e-6
    assert_close_complex(t, (f(z + eps * v) - f(z - eps * v)) / (2 * eps), rtol=1e-5, atol=1e-6)


# --- np.fft ----------------------------------------------------------------------------------

FFTS = {       # written out: a rule reads the arguments it is given by name, not `**options`
    "fft": (lambda z: np.fft.fft(z), {}),
    "fft-n": (lambda z: np.fft.fft(z, n=6), {"n": 6}),
    "fft-n-ortho": (lambda z: np.fft.fft(z, 3, norm="ortho"), {"n": 3, "norm": "ortho"}),
    "fft-axis-forward": (lambda z: np.fft.fft(z, axis=0, norm="forward"),
                         {"axis": 0, "norm": "forward"}),
    "ifft": (lambda z: np.fft.ifft(z), {}),
    "ifft-n-axis": (lambda z: np.fft.ifft(z, n=5, axis=0), {"n": 5, "axis": 0}),
    "ifft-ortho": (lambda z: np.fft.ifft(z, norm="ortho"), {"norm": "ortho"}),
    "fft2": (lambda z: np.fft.fft2(z), {}),
    "fft2-s-ortho": (lambda z: np.fft.fft2(z, s=(3, 5), norm="ortho"),
                     {"s": (3, 5), "norm": "ortho"}),
    "ifft2-axes-forward": (lambda z: np.fft.ifft2(z, axes=(0, 1), norm="forward"),
                           {"axes": (0, 1), "norm": "forward"}),
    "ifft2-s": (lambda z: np.fft.ifft2(z, (5, 2)), {"s": (5, 2)}),
    "fftn": (lambda z: np.fft.fftn(z), {}),
    "fftn-s": (lambda z: np.fft.fftn(z, s=(2, 6), axes=(0, 1)), {"s": (2, 6), "axes": (0, 1)}),
    "fftn-axes-ortho": (lambda z: np.fft.fftn(z, axes=(0,), norm="ortho"),
                        {"axes": (0,), "norm": "ortho"}),
    "ifftn": (lambda z: np.fft.ifftn(z), {}),
    "ifftn-s-forward": (lambda z: np.fft.ifftn(z, s=(6,), axes=(1,), norm="forward"),
                        {"s": (6,), "axes": (1,), "norm": "forward"}),
}


@pytest.mark.parametrize("case", list(FFTS))
def test_complex_ffts_match_autograd_and_the_identity(case):
    f, options = FFTS[case]
    a_transform = getattr(anp.fft, case.split("-")[0])
    z = rng_complex((4, 4), 5)
    y = f(z)
    u, v = rng_complex(y.shape, 6), rng_complex(z.shape, 7)
    _, g = ad.vjp(f)(z, seed=u)
    assert_close_complex(g, autograd.make_vjp(lambda z: a_transform(z, **options))(z)[0](u))
    _, t = ad.jvp(f)(z, tangent=v)
    assert_close_complex(t, f(v))                               # linear
    assert_close(np.real(np.sum(u * t)), np.real(np.sum(g * v)))
    # a real input gets the real part
    _, g_real = ad.vjp(f)(z.real.copy(), seed=u)
    assert np.isrealobj(g_real)
    assert_close(g_real, np.real(g))


REAL_FFTS = {
    "rfft": lambda x: np.fft.rfft(x),
    "rfft-n": lambda x: np.fft.rfft(x, n=7),
    "rfft-n-ortho": lambda x: np.fft.rfft(x, 3, norm="ortho"),
    "rfft-axis-forward": lambda x: np.fft.rfft(x, axis=0, norm="forward"),
    "rfft-n-axis": lambda x: np.fft.rfft(x, n=8, axis=0),
    "irfft": lambda z: np.fft.irfft(z),
    "irfft-n": lambda z: np.fft.irfft(z, n=7),
    "irfft-n-ortho": lambda z: np.fft.irfft(z, 4, norm="ortho"),
    "irfft-n-axis-forward": lambda z: np.fft.irfft(z, n=11, axis=0, norm="forward"),
    "irfft-short": lambda z: np.fft.irfft(z, n=3),
}


@pytest.mark.parametrize("case", list(REAL_FFTS))
def test_real_ffts_by_the_identity_and_finite_differences(case):
    f = REAL_FFTS[case]
    inverse = case.startswith("irfft")
    z = rng_complex((5, 5), 8) if inverse else np.random.default_rng(8).normal(size=(5, 5))
    y = f(z)
    u = rng_complex(y.shape, 9) if np.iscomplexobj(y) else np.random.default_rng(9).normal(size=y.shape)
    v = rng_complex(z.shape, 10) if inverse else np.random.default_rng(10).normal(size=z.shape)
    _, g = ad.vjp(f)(z, seed=u)
    _, t = ad.jvp(f)(z, tangent=v)
    assert_close_complex(t, f(v), atol=1e-12)
    assert_close(np.real(np.sum(u * t)), np.real(np.sum(g * v)))
    expected = numerical_complex_grad(lambda z: np.real(np.sum(u * f(z))), z) \
        if inverse else numerical_grad(lambda z: np.real(np.sum(u * f(z))), [z], 0)
    assert_close_complex(g, expected, rtol=1e-5, atol=1e-6)


def test_real_ffts_match_autograd_where_it_has_them():
    # autograd's rfft/irfft rules hold for even lengths
    x = np.random.default_rng(11).normal(size=(3, 8))
    u = rng_complex((3, 5), 12)
    _, g = ad.vjp(lambda x: np.fft.rfft(x))(x, seed=u)
    assert_close(g, autograd.make_vjp(lambda x: anp.fft.rfft(x))(x)[0](u))
    z = rng_complex((3, 5), 13)
    w = np.random.default_rng(14).normal(size=(3, 8))
    _, g = ad.vjp(lambda z: np.fft.irfft(z))(z, seed=w)
    assert_close_complex(g, autograd.make_vjp(lambda z: anp.fft.irfft(z))(z)[0](w))


# --- second order: real functions of real inputs through complex values ----------------------

def power_spectrum(x): return np.sum(np.abs(np.fft.fft(x)) ** 2)


def test_hessian_through_the_fft_is_parsevals():
    # sum |fft(x)|^2 = n sum x^2: the Hessian is 2n I
    x = np.random.default_rng(15).normal(size=6)
    assert_close(ad.hessian(power_spectrum)(x), 12 * np.eye(6), atol=1e-9)


SECOND_ORDER = {
    "fft": lambda x: np.sum(np.abs(np.fft.fft(x * x, n=7)) * np.arange(7)),
    "ifft": lambda x: np.sum(np.imag(np.fft.ifft(np.sin(x), norm="ortho")) ** 3),
    "fft2": lambda x: np.sum(np.abs(np.fft.fft2(x.reshape(2, 3))) ** 3),
    "ifft2": lambda x: np.sum(np.real(np.fft.ifft2(x.reshape(2, 3), s=(3, 3)) ** 2)),
    "fftn": lambda x: np.sum(np.angle(np.fft.fftn(x.reshape(3, 2) + 0.5j))),
    "ifftn": lambda x: np.real(np.sum(np.fft.ifftn(np.exp(x.reshape(3, 2))) ** 3)),
    "rfft": lambda x: np.sum(np.abs(np.fft.rfft(x * np.arange(6))) ** 3),
    "irfft": lambda x: np.sum(np.fft.irfft(np.fft.rfft(x) * (1 + 0.5j), n=6) ** 3),
    "conj": lambda x: np.real(np.sum(np.conj(x * (1 + 2j)) ** 2 * np.exp(1j * x))),
}


@pytest.mark.parametrize("name", list(SECOND_ORDER))
def test_second_order_through_complex_values(name):
    f = SECOND_ORDER[name]
    x = np.random.default_rng(16).normal(size=6)
    v = np.random.default_rng(17).normal(size=6)
    eps = 1e-5
    grad = ad.grad(f)
    expected = (grad(x + eps * v) - grad(x - eps * v)) / (2 * eps)
    assert_close(ad.hvp(f)(x, vector=v), expected, rtol=1e-5, atol=1e-6)
    assert_close(ad.hessian(f)(x) @ v, expected, rtol=1e-5, atol=1e-6)


def angles_and_moduli(z): return np.sum(np.angle(z) ** 2 * np.abs(z)) + np.sum(np.abs(z) ** 2)


@pytest.mark.parametrize("f", [angles_and_moduli, conjugate_product, modulus_of_fft])
def test_hvp_of_a_real_function_of_complex_values(f):
    # the derivative of the gradient map z -> df/da - i df/db along v, by differences
    v = rng_complex(4, 18)
    grad, eps = ad.grad(f), 1e-6
    expected = (grad(Z + eps * v) - grad(Z - eps * v)) / (2 * eps)
    assert_close_complex(ad.hvp(f)(Z, vector=v), expected, rtol=1e-5, atol=1e-6)


# --- what still refuses complex values -------------------------------------------------------

def maximum_of_complex(x):
    z = x * (1 + 1j)
    return np.sum(np.abs(np.maximum(z, 0.5)))


def sort_of_complex_argument(x, c):
    y = np.maximum(x * c, 0.5)
    return np.sum(np.abs(y))


def cross_of_complex(x):
    # (np.linalg.cond stood here until its complex rows landed, 2026-11-29)
    a = x[:3] + 0.5j
    return np.sum(np.abs(np.cross(a, x[1:4])))


def line_of(fn, marker):
    lines, first = inspect.getsourcelines(fn)
    return next(first + k for k, text in enumerate(lines) if marker in text)


def assert_refused_at(err, fn, marker):
    assert isinstance(err, TransformError)
    assert os.path.samefile(err.filename, __file__)
    assert err.lineno == line_of(fn, marker), str(err)
    assert "complex" in err.message and err.hint
    assert "_mul" not in str(err) and "_add" not in str(err)


@pytest.mark.parametrize("fn, marker, what", [
    (maximum_of_complex, "np.maximum", "np.maximum"),
    (cross_of_complex, "np.cross(", "np.cross"),
])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_rules_for_real_values_refuse_complex_ones_at_transform_time(fn, marker, what, mode):
    transform = ad.grad(fn) if mode == "grad" else ad.jvp(fn)
    with pytest.raises(ComplexValue) as info:
        ad.source(transform)                       # no run needed: transform time
    assert_refused_at(info.value, fn, marker)
    assert what in info.value.message


def test_a_complex_argument_that_meets_a_rule_for_real_values_is_refused_when_called():
    x = np.array([0.5, -1.0])
    assert_close(ad.grad(sort_of_complex_argument)(x, np.array([2.0, 3.0])),
                 numerical_grad(sort_of_complex_argument, [x, np.array([2.0, 3.0])], 0))
    for call in (lambda: ad.grad(sort_of_complex_argument)(x, np.array([2.0, 3j])),
                 lambda: ad.jvp(sort_of_complex_argument)(x, np.array([2.0, 3j]),
                                                          tangent=np.ones(2)),
                 lambda: ad.grad(sort_of_complex_argument, wrt=1)(x, np.array([2.0, 3j]))):
        with pytest.raises(ComplexValue) as info:
            call()
        assert_refused_at(info.value, sort_of_complex_argument, "np.maximum")
        assert "`c` is complex" in info.value.message


def test_hessian_and_jacobian_take_real_arguments():
    with pytest.raises(TypeError, match="complex"):
        ad.hessian(squared_modulus)(Z)
    with pytest.raises(TypeError, match="complex"):
        ad.jacobian(np.sin)(Z)


# --- real and complex values together in one array --------------------------------------------

def listed_together(x, z):
    a = np.sin(x)
    v = np.array([a[0], z[0], a[1] * 2])
    return np.sum(np.abs(v * (1 + 1j)) ** 2)


def concatenated(x, z):
    return np.sum(np.abs(np.concatenate([np.sin(x), z])) ** 2)


def stacked(x, z):
    return np.sum(np.abs(np.stack([np.sin(x), z]) * W[:2]) ** 3)


def stacked_by_hstack(x, z):
    return np.sum(np.abs(np.hstack([np.sin(x), z * z])) ** 2)


def in_a_list(x, z):
    pair = [np.sin(x), z]
    return np.sum(np.abs(pair[0] * pair[1]) ** 2)


def written_into(x, z):
    y = np.zeros(3, dtype=complex)
    y[0] = x[0] * 1j
    y[1:] = np.sin(x) * z
    y[2] += x[1] * z[1]
    w = z * 1.0
    w[0] = x[1] ** 2
    return np.sum(np.abs(y * (1 + 2j)) ** 2) + np.sum(np.abs(w) ** 3)


def differenced(x, z):
    return np.sum(np.abs(np.diff(np.sin(x), prepend=z[0], append=z[1]) * np.diff(z * x)) ** 2)


def contracted(x, z):
    outer = np.einsum("i,j->ij", np.sin(x), z) + np.einsum("ii->i", np.outer(x, z))[:, None]
    return np.sum(np.abs(outer) ** 2) + np.abs(np.tensordot(x, z, 1)) + np.abs(np.inner(z, x))


def multiplied(x, z):
    return np.sum(np.abs(np.dot(np.outer(x, x), z) + x @ np.outer(z, x) + np.vdot(x, z)) ** 2)


@pytest.mark.parametrize("fn", [listed_together, concatenated, stacked, stacked_by_hstack,
                                in_a_list, written_into, differenced, contracted, multiplied])
def test_real_and_complex_values_joined(fn):
    # the real part of the adjoint goes to the real input, all of it to the complex one (a list
    # of a real and a complex value once lost the imaginary part of the complex one's)
    x, z = np.array([0.3, -0.7]), np.array([1 + 2j, 0.5 - 1j])
    gx, gz = ad.grad(fn, wrt=(0, 1))(x, z)
    assert gx.dtype == np.float64
    assert_close(gx, numerical_grad(fn, [x, z], 0))
    assert_close_complex(gz, numerical_complex_grad(lambda z: fn(x, z), z))
    _, t = ad.jvp(fn, wrt=(0, 1))(x, z, tangent=(np.ones(2), np.array([1j, 0.5])))
    assert_close(t, np.sum(gx) + np.real(np.sum(gz * np.array([1j, 0.5]))))


# --- functions of yours ----------------------------------------------------------------------

def complex_from_a_helper(x):
    return x * (1 + 1j)


def helper_result_meets_maximum(x):
    z = complex_from_a_helper(x)
    return np.sum(np.abs(np.maximum(z, 0.5)))


def test_a_complex_value_returned_by_a_helper_is_refused_where_it_meets_a_rule_for_reals():
    # was: np.maximum's rule for real values ran on it (the helper's result was not followed)
    with pytest.raises(ComplexValue) as info:
        ad.grad(helper_result_meets_maximum)(np.array([0.2, 0.9]))
    assert_refused_at(info.value, helper_result_meets_maximum, "np.maximum")
    assert f"from line {line_of(helper_result_meets_maximum, 'complex_from_a_helper(x)')}" \
        in info.value.message


def modulus_of_a_helpers_result(x):
    return np.sum(np.abs(complex_from_a_helper(x)) ** 2)


def test_a_complex_value_returned_by_a_helper_is_differentiated():
    x = np.array([0.2, 0.9])
    assert_close(ad.grad(modulus_of_a_helpers_result)(x), 4 * x)


def passes_complex_to_a_helper(x):
    return np.sum(np.abs(complex_from_a_helper(x * 1j)))


def maximum_of(z):
    return np.maximum(z, 0.5)


def passes_complex_to_maximum(x):
    return np.sum(np.abs(maximum_of(x * 1j)))


def passes_an_argument_to_maximum(z, x):
    return np.sum(np.abs(maximum_of(z) * x))


def passes_through_two_helpers(z):
    return np.sum(np.abs(complex_from_a_helper(complex_from_a_helper(z) * z)) ** 2)


def test_a_complex_value_passed_to_a_helper_is_differentiated():
    # was refused: the helper's own rules were not read at the call
    x, z = np.array([0.2, 0.9]), np.array([1 + 2j, 0.5 - 1j])
    assert_close(ad.grad(passes_complex_to_a_helper)(x), np.sqrt(2) * np.sign(x))
    _, t = ad.jvp(passes_complex_to_a_helper)(x, tangent=np.array([1.0, -2.0]))
    assert_close(t, -np.sqrt(2))
    expected = numerical_complex_grad(passes_through_two_helpers, z)
    assert_close_complex(ad.grad(passes_through_two_helpers)(z), expected, rtol=1e-5)
    v = np.array([0.5j, 1.0])
    _, t = ad.jvp(passes_through_two_helpers)(z, tangent=v)
    assert_close(t, np.real(np.sum(expected * v)), rtol=1e-5)


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_complex_value_passed_to_a_helper_that_refuses_it(mode):
    # the helper's refusal, naming its line and the call
    x, z = np.array([0.2, 0.9]), np.array([1 + 2j, 0.5 - 1j])
    calls = [lambda: ad.grad(passes_complex_to_maximum)(x),
             lambda: ad.grad(passes_an_argument_to_maximum)(z, x)] if mode == "grad" else \
        [lambda: ad.jvp(passes_complex_to_maximum)(x, tangent=x),
         lambda: ad.jvp(passes_an_argument_to_maximum)(z, x, tangent=z)]
    for call in calls:
        with pytest.raises(ComplexValue) as info:
            call()
        assert_refused_at(info.value, maximum_of, "np.maximum")
    # an argument of the helper that is not differentiated is a constant there
    assert_close(ad.grad(passes_an_argument_to_maximum, wrt=1)(z, x),
                 np.abs(np.maximum(z, 0.5)) * np.sign(x))


def power_of_the_spectrum(x):
    return np.real(np.sum(np.fft.fft(x) ** 2 * np.array([1.0, 2.0, 0.5, 1.0])))


def calls_a_helper_that_meets_complex_values(x):
    return power_of_the_spectrum(x * 2.0) + np.sum(x)


def test_a_helper_that_writes_complex_values_and_returns_a_real_one():
    # was refused (the caller's run-time check saw a complex adjoint it did not know of):
    # the helper's own complex values count as the caller's, as its rules were checked for them
    x = np.array([0.1, -1.0, 0.3, 1.0])
    expected = numerical_grad(calls_a_helper_that_meets_complex_values, [x], 0)
    assert_close(ad.grad(calls_a_helper_that_meets_complex_values)(x), expected, rtol=1e-6)
    v = np.array([1.0, -2.0, 0.5, 0.0])
    _, t = ad.jvp(calls_a_helper_that_meets_complex_values)(x, tangent=v)
    assert_close(t, np.sum(expected * v), rtol=1e-6)
    h = ad.hessian(calls_a_helper_that_meets_complex_values)(x)
    assert_close(h @ v, numerical_grad(lambda y: np.sum(ad.grad(
        calls_a_helper_that_meets_complex_values)(y) * v), [x], 0), rtol=1e-5)
