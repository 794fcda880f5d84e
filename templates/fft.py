"""np.fft: the shifts, which only rearrange entries (each the other's transpose)."""
from numpy.fft import fftshift, ifftshift

from s2s_ad.rules import d, transposes


@transposes(fftshift, ifftshift)
def fftshift_(y, x, axes=None):
    d[x] = ifftshift(d[y], axes)
