"""np.fft: the transforms and the shifts, each linear in its input.

The adjoint is the transpose (README "Complex numbers"): the DFT matrix is symmetric, so the
adjoint of each complex transform is the same transform of the adjoint, cut or padded back to
the input's shape (`n` and `s` cut or pad the input) and its real part for a real input. The
real transforms read or write half a spectrum, which runtime.rfft_grad and irfft_grad weigh."""
import numpy as np
from numpy.fft import fft, fft2, fftn, fftshift, ifft, ifft2, ifftn, ifftshift, irfft, rfft

from s2s_ad.rules import adjoint, constant_parameters, d, linear, tangent, transposes
from s2s_ad.runtime import fit_to, irfft_grad, rfft_grad, transformed_axes


@transposes(fftshift, ifftshift, complex=True)
def fftshift_(y, x, axes=None):
    d[x] = ifftshift(d[y], axes)


@linear(fft, complex=True)
def fft_(y, a, n=None, axis=-1, norm=None):
    d[a] = fit_to(fft(d[y], None, axis, norm), a)


@linear(ifft, complex=True)
def ifft_(y, a, n=None, axis=-1, norm=None):
    d[a] = fit_to(ifft(d[y], None, axis, norm), a)


@linear(fft2, complex=True)
def fft2_(y, a, s=None, axes=(-2, -1), norm=None):
    d[a] = fit_to(fft2(d[y], None, axes, norm), a)


@linear(ifft2, complex=True)
def ifft2_(y, a, s=None, axes=(-2, -1), norm=None):
    d[a] = fit_to(ifft2(d[y], None, axes, norm), a)


@linear(fftn, complex=True)
def fftn_(y, a, s=None, axes=None, norm=None):
    d[a] = fit_to(fftn(d[y], None, transformed_axes(a, s, axes), norm), a)


@linear(ifftn, complex=True)
def ifftn_(y, a, s=None, axes=None, norm=None):
    d[a] = fit_to(ifftn(d[y], None, transformed_axes(a, s, axes), norm), a)


@linear(rfft, complex=True)
def rfft_(y, a, n=None, axis=-1, norm=None):
    d[a] = rfft_grad(d[y], a, n, axis, norm)


@linear(irfft, complex=True)
def irfft_(y, a, n=None, axis=-1, norm=None):
    d[a] = irfft_grad(d[y], a, n, axis, norm)
