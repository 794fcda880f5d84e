"""The helpers of np.fft's rules and of complex values: the conjugate without a copy of a real
value, an adjoint cut or padded back to the shape of what was transformed, and the adjoints of
the real transforms (rfft, irfft), which are not transforms NumPy has.

The convention is that of JAX and HIPS autograd: the adjoint of a linear map is its transpose
(no conjugate), the pairing of an adjoint `g` with a tangent `t` being `Re(sum(g * t))`. The
DFT matrix is symmetric, so the adjoint of each complex transform is the same transform."""
import numpy as np

from .arrays import _xp, real_like
from .checks import is_complex


def conj(x):
    """`np.conj(x)`, without the copy NumPy makes of a real value (its own conjugate)."""
    return np.conj(x) if is_complex(x) else x


def conj_sign(x, y):
    """`conj(x) / y` for `y = abs(x)`, 0 where `y` is 0: the derivative of `abs`, in the
    pairing of the README (`np.sign(x)` for a real `x`, at the cost of one pass)."""
    if not is_complex(x):
        return np.sign(x)
    zero = y == 0
    return np.where(zero, 0, np.conj(x) / np.where(zero, 1, y))


def angle_unit(deg=False):
    """The factor np.angle(z, deg) gives its radians in: 180 / pi for degrees."""
    return 180 / np.pi if deg else 1.0


def fit_to(g, like):
    """`g` cut or padded with zeros, axis by axis, to `like`'s shape, and its real part where
    `like` is real: the adjoint of a transform that read `like` through its `n` or `s`
    (which cut or pad the input) and of the cast of a real input to complex."""
    shape = np.shape(like)
    if np.shape(g) != shape:
        g = g[tuple(slice(0, n) for n in shape)]
        missing = [(0, n - m) for n, m in zip(shape, np.shape(g))]
        if any(after for _, after in missing):
            g = _xp(g).pad(g, missing)
    return real_like(g, like)


def transformed_axes(a, s=None, axes=None):
    """The axes np.fft.fftn(a, s, axes) transforms: `axes`, else the last len(s), else all."""
    if axes is not None:
        return tuple(axes)
    ndim = np.ndim(a)
    return tuple(range(ndim - len(s), ndim)) if s is not None else tuple(range(ndim))


def rfft_grad(g, a, n=None, axis=-1, norm=None):
    """The adjoint of `np.fft.rfft(a, n, axis, norm)` (for a real `a`): the half spectrum `g`
    padded with zeros to the full length, transformed (the DFT is symmetric), real part, cut
    or padded back to `a`'s length."""
    full = n if n is not None else np.shape(a)[axis]
    g = np.moveaxis(g, axis, -1)
    widths = [(0, 0)] * (np.ndim(g) - 1) + [(0, full - np.shape(g)[-1])]
    spectrum = np.fft.fft(_xp(g).pad(g, widths), None, -1, norm)
    return fit_to(np.moveaxis(spectrum, -1, axis), a)


def irfft_grad(g, a, n=None, axis=-1, norm=None):
    """The adjoint of `np.fft.irfft(a, n, axis, norm)`: irfft reads the half spectrum
    `a[:n // 2 + 1]` and counts each entry strictly inside it twice (with its conjugate
    mirror), so the adjoint is the inverse transform of `g` on that half, weighted so."""
    full = np.shape(g)[axis]
    half = np.moveaxis(np.fft.ifft(np.real(g), None, axis, norm), axis, -1)[..., :full // 2 + 1]
    weights = np.full(full // 2 + 1, 2.0)
    weights[0] = 1.0
    if full % 2 == 0:
        weights[-1] = 1.0
    return fit_to(np.moveaxis(half * weights, -1, axis), a)
