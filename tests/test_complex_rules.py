"""Rules that hold for complex values too (rules.COMPLEX), one parametrized check per rule:
reverse mode (vjp) against central differences of Re(sum(u * f(z))) along the real and the
imaginary parts (README "Complex numbers": grad is df/da - i df/db), forward mode (jvp) against
central differences along the tangent, the vjp/jvp dot-product identity, for a real and a
complex dtype and two shapes; HIPS autograd where it has the function."""
import autograd
import autograd.numpy as anp
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close_complex, numerical_complex_grad, numerical_grad


def sample(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=shape) * 0.6
    if dtype == "complex":
        x = x + 1j * rng.normal(size=shape) * 0.6
    return x


def well_conditioned(shape, dtype, seed):
    """A batch of square matrices near the identity (invertible, distinct values)."""
    return sample(shape, dtype, seed) * 0.4 + np.eye(shape[-1]) * 2


def spread_spectrum(shape, dtype, seed):
    """Square matrices near diag(0, 2, 4, ...): distinct eigenvalues, real ones for a real dtype."""
    return sample(shape, dtype, seed) * 0.3 + np.diag(2.0 * np.arange(shape[-1]))


def real_roots(shape, dtype, seed):
    """Coefficients of a polynomial with roots near 1, 2, ...: real ones for a real dtype."""
    return np.poly(np.arange(1.0, shape[-1])) + sample(shape, dtype, seed) * 0.01


def phase_free(pair):
    """A function of eigenvalues and eigenvectors that does not depend on the vectors' phases:
    V diag(sin w) V^H and |V|^2."""
    w, v = pair
    rebuilt = np.matmul(v * np.sin(w)[..., None, :], np.conj(np.swapaxes(v, -1, -2)))
    return rebuilt + np.abs(v) ** 2


def phase_free_svd(factors):
    """A function of the SVD that does not depend on the common phase of each pair of singular
    vectors: U diag(s^2) Vh, U diag(s) U^H and |U|^2 (shape permitting)."""
    u, s, vh = factors
    rebuilt = np.matmul(u * (s ** 2)[..., None, :], vh)
    return rebuilt * 2 + np.sum(np.abs(u) ** 2) + np.sum(np.matmul(u * s[..., None, :], np.conj(np.swapaxes(u, -1, -2))))


def seed_like(y, seed):
    rng = np.random.default_rng(seed)
    y = np.asarray(y)
    u = rng.normal(size=y.shape)
    return u + 1j * rng.normal(size=y.shape) if np.iscomplexobj(y) else u


def check_rule(f, x, rtol=1e-5, atol=1e-6):
    """vjp and jvp of `f` at `x` against central differences and each other."""
    y = f(x)
    u, v = seed_like(y, 1), seed_like(x, 2)
    _, g = ad.vjp(f)(x, seed=u)
    def paired(z):
        return np.real(np.sum(u * f(z)))
    expected = numerical_complex_grad(paired, x) if np.iscomplexobj(x) else \
        numerical_grad(paired, [x], 0)
    assert np.iscomplexobj(g) == np.iscomplexobj(x)
    assert_close_complex(g, expected, rtol=rtol, atol=atol)
    _, t = ad.jvp(f)(x, tangent=v)
    eps = 1e-6
    assert_close_complex(t, (f(x + eps * v) - f(x - eps * v)) / (2 * eps), rtol=rtol, atol=atol)
    np.testing.assert_allclose(np.real(np.sum(u * t)), np.real(np.sum(g * v)), rtol=1e-8)
    return g


DTYPES = ["real", "complex"]

# name: (function, [two shapes], make the input)
CASES = {
    "var": (lambda x: np.var(x, axis=-1) + np.var(x), [(5,), (2, 3)], sample),
    "var-ddof": (lambda x: x.var(axis=0, ddof=1, keepdims=True) * 2, [(4,), (3, 2)], sample),
    "std": (lambda x: np.std(x, axis=0) + x.std(), [(5,), (3, 2)], sample),
    "prod": (lambda x: np.prod(x, axis=-1) + x.prod(), [(4,), (2, 3)], sample),
    "cumprod": (lambda x: np.cumprod(x, axis=0) + x.cumprod(axis=0), [(4,), (3, 2)], sample),
    "cumulative_prod": (lambda x: np.cumulative_prod(x, axis=0), [(4,), (3, 2)], sample),
    "where": (lambda x: np.where(np.arange(x.shape[-1]) % 2 == 0, x * x, 2.0), [(4,), (2, 3)],
              sample),
    "where-both": (lambda x: np.where(np.arange(x.shape[-1]) < 2, x, np.sin(x)), [(4,), (2, 3)],
                   sample),
    "pad": (lambda x: np.pad(x * x, 1), [(3,), (2, 3)], sample),
    "compress": (lambda x: np.compress([True, False, True], x * x, axis=-1) + x.compress([1, 0, 1], axis=-1),
                 [(3,), (2, 3)], sample),
    "extract": (lambda x: np.extract(np.arange(x.size).reshape(x.shape) % 2 == 0, x * x), [(3,), (2, 3)],
                sample),
    "pad-edge": (lambda x: np.pad(x, 2, mode="edge") * 3, [(3,), (2, 3)], sample),
    "pad-reflect": (lambda x: np.pad(x, (1, 2), mode="reflect"), [(4,), (3, 4)], sample),
    "sort": (lambda x: np.sort(x * 1.5, axis=-1), [(5,), (2, 4)], sample),
    "inv": (lambda x: np.linalg.inv(x), [(3, 3), (2, 2, 2)], well_conditioned),
    "det": (lambda x: np.linalg.det(x), [(3, 3), (2, 2, 2)], well_conditioned),
    "slogdet": (lambda x: np.linalg.slogdet(x)[1] * 2, [(3, 3), (2, 2, 2)], well_conditioned),
    "slogdet-sign": (lambda x: np.linalg.slogdet(x)[0] * np.linalg.slogdet(x * x)[1],
                     [(3, 3), (2, 2, 2)], well_conditioned),
    "solve": (lambda x: np.linalg.solve(x, x[..., 0] * 2 + 1), [(3, 3), (2, 2, 2)],
              well_conditioned),
    "solve-matrix": (lambda x: np.linalg.solve(x * x, x), [(3, 3), (2, 2, 2)], well_conditioned),
    "matrix_power": (lambda x: np.linalg.matrix_power(x, 3), [(3, 3), (2, 2, 2)],
                     well_conditioned),
    "matrix_power-negative": (lambda x: np.linalg.matrix_power(x, -2), [(2, 2), (2, 3, 3)],
                              well_conditioned),
    "multi_dot": (lambda x: np.linalg.multi_dot([x, x * 2, x.T]), [(3, 3), (2, 2)], sample),
    "cholesky": (lambda x: np.linalg.cholesky(x @ np.conj(np.swapaxes(x, -1, -2))),
                 [(3, 3), (2, 2, 2)], well_conditioned),
    "cholesky-lower-read": (lambda x: np.linalg.cholesky(x + 3 * np.eye(x.shape[-1])),
                            [(3, 3), (2, 2, 2)], sample),
    "eigvalsh": (lambda x: np.linalg.eigvalsh(x + np.diag([0.0, 2.0, 4.0])), [(3, 3), (2, 3, 3)],
                 sample),
    "eigvalsh-upper": (lambda x: np.linalg.eigvalsh(x + np.diag([0.0, 2.0, 4.0]), "U") ** 2,
                       [(3, 3), (2, 3, 3)], sample),
    "eigh": (lambda x: phase_free(np.linalg.eigh(x + np.diag([0.0, 2.0, 4.0]))),
             [(3, 3), (2, 3, 3)], sample),
    "eigh-upper": (lambda x: phase_free(np.linalg.eigh(x + np.diag([0.0, 2.0, 4.0]), UPLO="U")),
                   [(3, 3), (2, 3, 3)], sample),
    "eig": (lambda x: phase_free(np.linalg.eig(x)), [(3, 3), (2, 3, 3)], spread_spectrum),
    "eig-values": (lambda x: np.linalg.eig(x)[0] ** 2, [(3, 3), (2, 2, 2)], spread_spectrum),
    "eigvals": (lambda x: np.linalg.eigvals(x * x), [(3, 3), (2, 3, 3)], spread_spectrum),
    "roots": (lambda x: np.roots(x) ** 2, [(3,), (4,)], real_roots),
    "polyfit": (lambda x: np.polyfit(np.arange(5.0), x, 2), [(5,), (5, 2)], sample),
    "polyfit-x": (lambda x: np.polyfit(x[:, 0] * 0.2 + np.arange(x.shape[0] * 1.0), x[:, 1], 3, w=x[:, 0] * 0 + 2),
                  [(5, 2), (6, 2)], sample),
    "svdvals": (lambda x: np.linalg.svdvals(x), [(3, 2), (2, 2, 3)], sample),
    "svd": (lambda x: phase_free_svd(np.linalg.svd(x, full_matrices=False)), [(3, 2), (2, 2, 3)],
            sample),
    "svd-square": (lambda x: phase_free_svd(np.linalg.svd(x)), [(3, 3), (2, 2, 2)], sample),
    "svd-values": (lambda x: np.linalg.svd(x, compute_uv=False), [(3, 2), (2, 3)], sample),
    "lstsq": (lambda x: np.linalg.lstsq(x, x[:, 0] * x[:, 1] + 1.0)[0], [(4, 2), (3, 3)], sample),
    "lstsq-residuals": (lambda x: np.linalg.lstsq(x, np.sin(x[:, :2]))[1] * 3, [(4, 2), (5, 3)],
                        sample),
    "lstsq-values": (lambda x: np.linalg.lstsq(x * 2, np.ones(x.shape[0]))[3], [(4, 2), (3, 3)],
                     sample),
    "lstsq-real-b": (lambda x: np.linalg.lstsq(x, np.arange(x.shape[0]) * 1.0)[0] ** 2,
                     [(4, 2), (3, 3)], sample),
    "qr": (lambda x: np.linalg.qr(x + 2 * np.eye(*x.shape[-2:]))[0] * 2
           + np.linalg.qr(x + 2 * np.eye(*x.shape[-2:]))[1], [(3, 3), (2, 3, 3)], sample),
    "qr-tall": (lambda x: np.linalg.qr(x)[0], [(4, 2), (2, 3, 2)], sample),
    "qr-wide": (lambda x: np.linalg.qr(x + 2 * np.eye(*x.shape[-2:]))[1], [(2, 4), (2, 2, 3)],
                sample),
    "qr-r": (lambda x: np.linalg.qr(x, mode="r") ** 2, [(4, 3), (3, 3)], sample),
    "pinv": (lambda x: np.linalg.pinv(x), [(3, 2), (2, 2, 3)], sample),
    "pinv-square": (lambda x: np.linalg.pinv(x * x), [(3, 3), (2, 2, 2)], well_conditioned),
    "norm": (lambda x: np.linalg.norm(x), [(4,), (2, 3)], sample),
    "norm-axis": (lambda x: np.linalg.norm(x, axis=-1), [(4,), (2, 3)], sample),
    "norm-ord1": (lambda x: np.linalg.norm(x, ord=1), [(4,), (3,)], sample),
    "norm-ord3": (lambda x: np.linalg.norm(x, ord=3, axis=0), [(4,), (3, 2)], sample),
    "norm-inf": (lambda x: np.linalg.norm(x, ord=np.inf), [(4,), (3, 2)], sample),
    "norm-fro": (lambda x: np.linalg.norm(x, "fro"), [(3, 3), (2, 4)], sample),
    "norm-matrix1": (lambda x: np.linalg.norm(x, 1), [(3, 3), (2, 4)], sample),
    "norm-2": (lambda x: np.linalg.norm(x, 2), [(3, 3), (2, 4)], sample),
    "norm-nuc": (lambda x: np.linalg.norm(x, "nuc", axis=(-2, -1)), [(3, 3), (2, 2, 3)], sample),
    "matrix_norm-2": (lambda x: np.linalg.matrix_norm(x, ord=-2), [(3, 3), (2, 4)], sample),
    "vector_norm": (lambda x: np.linalg.vector_norm(x, ord=2, axis=0), [(4,), (3, 2)], sample),
    "matrix_norm": (lambda x: np.linalg.matrix_norm(x), [(3, 3), (2, 2, 3)], sample),
    "cond": (lambda x: np.linalg.cond(x), [(3, 3), (2, 2, 2)], well_conditioned),
    "cond-wide": (lambda x: np.linalg.cond(x), [(2, 3), (2, 2, 4)], sample),
    "cond-fro": (lambda x: np.linalg.cond(x, "fro") + np.linalg.cond(x, 1), [(3, 3), (2, 2, 2)],
                 well_conditioned),
    "cond-p": (lambda x: np.linalg.cond(x, -2) * np.linalg.cond(x, np.inf) + np.linalg.cond(x, "nuc"),
               [(3, 3), (2, 2, 2)], well_conditioned),
    "cov": (lambda x: np.cov(x), [(2, 4), (3, 5)], sample),
    "corrcoef": (lambda x: np.corrcoef(x), [(2, 4), (3, 5)], sample),
    "cov-rowvar": (lambda x: np.cov(x, rowvar=False, ddof=0), [(4, 2), (5, 3)], sample),
}


try:
    from scipy.special import erf, erfc
    CASES["erf"] = (lambda x: erf(x * 0.8), [(3,), (2, 2)], sample)
    CASES["erfc"] = (lambda x: erfc(x) * x, [(3,), (2, 2)], sample)
except ImportError:              # SciPy is optional
    pass


# complex values in both shapes; real ones (which tests/test_rules*.py check row by row) in
# the second, the larger rank
SHAPES_AND_DTYPES = [(0, "complex"), (1, "complex"), (1, "real")]


@pytest.mark.parametrize("shape_index, dtype", SHAPES_AND_DTYPES)
@pytest.mark.parametrize("name", list(CASES))
def test_rule_on_real_and_complex_values(name, shape_index, dtype):
    f, shapes, make = CASES[name]
    check_rule(f, make(shapes[shape_index], dtype, 10 + shape_index))


# np.fft's n-dimensional real transforms and the Hermitian ones, through their definitions
# (s2s_ad/definitions.py); rfft's input is real
FFTS = {
    "rfftn": (lambda x: np.fft.rfftn(x), [(3, 4), (2, 2, 3)], ["real"]),
    "rfftn-s-axes": (lambda x: np.fft.rfftn(x, s=(2, 6), axes=(0, 1), norm="ortho"),
                     [(3, 4), (3, 5, 2)], ["real"]),
    "rfft2": (lambda x: np.fft.rfft2(x, norm="forward"), [(3, 4), (2, 3, 4)], ["real"]),
    "irfftn": (lambda x: np.fft.irfftn(x), [(3, 3), (2, 2, 3)], DTYPES),
    "irfftn-s": (lambda x: np.fft.irfftn(x, s=(4, 5), axes=(0, 1)), [(3, 3), (3, 4, 2)], DTYPES),
    "irfft2": (lambda x: np.fft.irfft2(x, norm="ortho"), [(3, 3), (2, 3, 4)], DTYPES),
    "hfft": (lambda x: np.fft.hfft(x), [(4,), (2, 3)], DTYPES),
    "hfft-n": (lambda x: np.fft.hfft(x, n=5, axis=0, norm="ortho"), [(4,), (3, 2)], DTYPES),
    "ihfft": (lambda x: np.fft.ihfft(x), [(4,), (2, 5)], ["real"]),
    "ihfft-n": (lambda x: np.fft.ihfft(x, n=6, axis=0, norm="forward"), [(4,), (3, 2)], ["real"]),
}


@pytest.mark.parametrize("shape_index, dtype", SHAPES_AND_DTYPES + [(0, "real")])
@pytest.mark.parametrize("name", list(FFTS))
def test_real_and_hermitian_ffts(name, shape_index, dtype):
    f, shapes, dtypes = FFTS[name]
    if dtype not in dtypes:
        pytest.skip("NumPy takes a real input only")
    check_rule(f, sample(shapes[shape_index], dtype, 20 + shape_index))


AUTOGRAD = {
    "var": (lambda x: np.var(x, axis=0), lambda x: anp.var(x, axis=0), (3, 2)),
    "std": (lambda x: np.std(x), lambda x: anp.std(x), (4,)),
    "prod": (lambda x: np.prod(x, axis=1), lambda x: anp.prod(x, axis=1), (2, 3)),
    "inv": (lambda x: np.linalg.inv(x), lambda x: anp.linalg.inv(x), (3, 3)),
    "det": (lambda x: np.linalg.det(x), lambda x: anp.linalg.det(x), (3, 3)),
    "solve": (lambda x: np.linalg.solve(x, x[:, 0]), lambda x: anp.linalg.solve(x, x[:, 0]),
              (3, 3)),
    "norm": (lambda x: np.linalg.norm(x), lambda x: anp.linalg.norm(x), (4,)),
    "norm-fro": (lambda x: np.linalg.norm(x, "fro"), lambda x: anp.linalg.norm(x, "fro"),
                 (2, 3)),
    "slogdet": (lambda x: np.linalg.slogdet(x)[1], lambda x: anp.linalg.slogdet(x)[1], (3, 3)),
    "sort": (lambda x: np.sort(x), lambda x: anp.sort(x), (5,)),
    "pinv": (lambda x: np.linalg.pinv(x), lambda x: anp.linalg.pinv(x), (3, 3)),
    "svd": (lambda x: np.linalg.svd(x, full_matrices=False)[1],
            lambda x: anp.linalg.svd(x, full_matrices=False)[1], (3, 2)),
    "eigvalsh": (lambda x: np.linalg.eigvalsh(x + np.diag([0.0, 2.0, 4.0])),
                 lambda x: anp.linalg.eigh(x + np.diag([0.0, 2.0, 4.0]))[0], (3, 3)),
    "eig": (lambda x: np.abs(np.linalg.eig(x)[1]) ** 2 + np.linalg.eig(x)[0],
            lambda x: anp.abs(anp.linalg.eig(x)[1]) ** 2 + anp.linalg.eig(x)[0], (3, 3)),
    "where": (lambda x: np.where(x.real > 0, x * x, x), lambda x: anp.where(anp.real(x) > 0, x * x, x),
              (5,)),
}


@pytest.mark.parametrize("name", list(AUTOGRAD))
def test_complex_rule_agrees_with_autograd(name):
    f, af, shape = AUTOGRAD[name]
    x = well_conditioned(shape, "complex", 3) if len(shape) == 2 and shape[0] == shape[1] \
        else sample(shape, "complex", 3)
    u = seed_like(f(x), 4)
    _, g = ad.vjp(f)(x, seed=u)
    assert_close_complex(g, autograd.make_vjp(af)(x)[0](u))


SECOND_ORDER = {
    "var": lambda z: np.var(z * z),
    "std": lambda z: np.std(np.sin(z), axis=0).sum(),
    "prod": lambda z: np.abs(np.prod(z)) ** 2,
    "cumprod": lambda z: np.sum(np.abs(np.cumprod(z)) ** 2),
    "inv-det": lambda z: np.abs(np.linalg.det(z.reshape(2, 2) + 2 * np.eye(2))) ** 2
    + np.real(np.sum(np.linalg.inv(z.reshape(2, 2) + 3 * np.eye(2)))),
    "solve": lambda z: np.sum(np.abs(np.linalg.solve(z.reshape(2, 2) + 3 * np.eye(2), z[:2])) ** 2),
    "matrix_power": lambda z: np.sum(np.abs(np.linalg.matrix_power(z.reshape(2, 2), 3)) ** 2),
    "where-sort-pad": lambda z: np.sum(np.abs(np.pad(np.sort(np.where(z.real > 0, z * z, z)), 1)) ** 2),
    "cov": lambda z: np.sum(np.abs(np.cov(z.reshape(2, 2))) ** 2),
    "compress-extract": lambda z: np.sum(np.abs(np.compress([True, False, True, True], z * z)) ** 2)
    + np.sum(np.abs(np.extract([1, 1, 0, 1], z) ** 3)),
    "pinv": lambda z: np.sum(np.abs(np.linalg.pinv(z.reshape(2, 2) + 2 * np.eye(2)) * z.reshape(2, 2)) ** 2),
    "norm": lambda z: np.linalg.norm(z * z) + np.linalg.norm(z, 3) + np.linalg.norm(z, np.inf),
    "norm-matrix": lambda z: np.linalg.norm(z.reshape(2, 2), "fro") ** 3 + np.linalg.norm(z.reshape(2, 2), 1),
    "norm-spectral": lambda z: np.linalg.norm(z.reshape(2, 2), 2) ** 2 + np.linalg.norm(z.reshape(2, 2) * z[0], "nuc"),
    "vector_norm-matrix_norm": lambda z: np.sum(np.linalg.vector_norm(z.reshape(2, 2), axis=0) ** 3)
    + np.linalg.matrix_norm(z.reshape(2, 2), ord="nuc"),
    "svd": lambda z: np.sum(np.abs(phase_free_svd(np.linalg.svd(z.reshape(2, 2)))) ** 2),
    "qr": lambda z: np.sum(np.abs(np.linalg.qr(z.reshape(2, 2) + 2 * np.eye(2))[0] * z.reshape(2, 2)) ** 2),
    "eigh": lambda z: np.sum(np.abs(phase_free(np.linalg.eigh(z.reshape(2, 2) + np.diag([0.0, 3.0])))) ** 2),
    "eigvalsh": lambda z: np.sum(np.linalg.eigvalsh(z.reshape(2, 2) + np.diag([0.0, 3.0])) ** 3),
    "cond": lambda z: np.linalg.cond(z.reshape(2, 2) + 2 * np.eye(2)) + np.linalg.cond(z.reshape(2, 2) + 3 * np.eye(2), "fro") ** 2,
    "eig": lambda z: np.sum(np.abs(phase_free(np.linalg.eig(z.reshape(2, 2) + np.diag([0.0, 3.0])))) ** 2)
    + np.real(np.sum(np.linalg.eigvals(z.reshape(2, 2) * z[0] + np.diag([0.0, 3.0])) ** 3)),
    "hfft-irfftn": lambda z: np.sum(np.fft.hfft(z * z) ** 2) + np.sum(np.fft.irfftn(z.reshape(2, 2)) ** 3),
    "slogdet": lambda z: np.linalg.slogdet(z.reshape(2, 2) + 2 * np.eye(2))[1]
    + np.real(np.linalg.slogdet(z.reshape(2, 2) + 3 * np.eye(2))[0] * (1 + 2j)),
}


@pytest.mark.parametrize("name", list(SECOND_ORDER))
def test_second_order_on_complex_values(name):
    """hvp of a real function of complex values: the derivative of the gradient map along v."""
    f = SECOND_ORDER[name]
    z, v = sample(4, "complex", 5), sample(4, "complex", 6)
    grad, eps = ad.grad(f), 1e-6
    expected = (grad(z + eps * v) - grad(z - eps * v)) / (2 * eps)
    assert_close_complex(ad.hvp(f)(z, vector=v), expected, rtol=1e-5, atol=1e-6)
    x, w = sample(4, "real", 7), sample(4, "real", 8)      # and of real values
    expected = (grad(x + eps * w) - grad(x - eps * w)) / (2 * eps)
    assert_close_complex(ad.hvp(f)(x, vector=w), expected, rtol=1e-5, atol=1e-6)


def upper_cholesky(z):
    return np.sum(np.abs(np.linalg.cholesky(z @ np.conj(z.T) + np.eye(2), upper=True)) ** 2)


def test_what_stays_refused_for_complex_values():
    """A complex value where a rule holds for real values only is refused, never differentiated
    wrongly: the upper Cholesky factor, hermitian=True, and second order through cholesky."""
    z = well_conditioned((2, 2), "complex", 30)
    with pytest.raises(NotImplementedError, match="upper=True"):
        ad.grad(upper_cholesky)(z)
    with pytest.raises(NotImplementedError, match="hermitian=True"):
        ad.grad(lambda z: np.sum(np.abs(np.linalg.pinv(z, hermitian=True))))(z)
    with pytest.raises(ad.TransformError, match="complex"):
        ad.hvp(lambda z: np.sum(np.abs(np.linalg.cholesky(z @ np.conj(z.T))) ** 2))(z, vector=z)
