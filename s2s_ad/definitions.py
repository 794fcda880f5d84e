"""NumPy functions written with the functions that have rules (and, once SciPy is imported,
some of SciPy's: s2s_ad/scipy_definitions.py). A call of one of these in a
differentiated function runs the definition below instead (passes/use_definitions.py), which
s2s_ad differentiates as it would a function of yours; its value is NumPy's (the tests compare
them). A rule registered for the NumPy function (`@s2s_ad.adjoint(np.cov)`) wins over it."""
import importlib
import sys

import numpy as np

from .runtime import (bin_count, bin_dtype, bin_totals, real_spectrum, stripped_coefficients,
                      unique_extras, unique_index, unit_differences)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None):
    """np.cov: observations along axis 1 (axis 0 where `rowvar` is False), optionally
    weighted; derivatives flow to `m`, `y` and `aweights`."""
    observations = _variables_in_rows(m, rowvar)
    if y is not None:
        observations = np.concatenate((observations, _variables_in_rows(y, rowvar)), axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    weights = _product_of_weights(fweights, aweights)
    if weights is None:
        centered = observations - np.mean(observations, axis=1, keepdims=True)
        count = observations.shape[1] - ddof
        return np.squeeze(centered @ np.conj(centered).T / np.maximum(count, 0.0))
    total = np.sum(weights)
    centered = observations - np.sum(observations * weights, axis=1, keepdims=True) / total
    if aweights is None:
        count = total - ddof
    else:
        count = total - ddof * np.sum(weights * np.asarray(aweights)) / total
    # no observations left (ddof too large): NumPy divides by 0, giving inf
    return np.squeeze((centered * weights) @ np.conj(centered).T / np.maximum(count, 0.0))


def corrcoef(x, y=None, rowvar=True):
    """np.corrcoef: the covariance scaled by the standard deviations, clipped to [-1, 1] (for
    complex values, the real and the imaginary parts apart, as NumPy clips them)."""
    c = cov(x, y, rowvar)
    if np.ndim(c) == 0:
        return c / c
    deviations = np.sqrt(np.real(np.diagonal(c)))
    scaled = c / deviations[:, None] / deviations[None, :]
    clipped = np.clip(np.real(scaled), -1.0, 1.0)
    if np.iscomplexobj(scaled):
        clipped = clipped + 1j * np.clip(np.imag(scaled), -1.0, 1.0)
    return clipped


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """np.logspace: `base` raised to evenly spaced exponents."""
    ndim = max(np.ndim(start), np.ndim(stop), np.ndim(base))
    exponents = np.linspace(_with_ndim(start, ndim), _with_ndim(stop, ndim), num, endpoint,
                            axis=axis)
    base = np.expand_dims(_with_ndim(base, ndim), axis)
    return np.asarray(np.power(base, exponents), dtype=dtype)


def _with_ndim(value, ndim):
    """`value` with leading axes of length 1 up to `ndim` axes."""
    return np.reshape(value, (1,) * (ndim - np.ndim(value)) + np.shape(value))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """np.geomspace for real ends of one sign: evenly spaced logarithms, the ends exact."""
    sign = np.sign(start)
    spaced = sign * logspace(np.log10(start * sign), np.log10(stop * sign), num, endpoint,
                             axis=0)
    position = np.reshape(np.arange(num), (num,) + (1,) * (np.ndim(spaced) - 1))
    spaced = np.where(position == 0, start, spaced)
    if endpoint and num > 1:
        spaced = np.where(position == num - 1, stop, spaced)
    return np.asarray(np.moveaxis(spaced, 0, axis), dtype=dtype)


def _variables_in_rows(m, rowvar):
    rows = np.atleast_2d(m)
    return rows.T if not rowvar and rows.shape[0] != 1 else rows


def _product_of_weights(fweights, aweights):
    if fweights is None:
        return None if aweights is None else np.asarray(aweights)
    return np.asarray(fweights) if aweights is None else np.asarray(fweights) * np.asarray(aweights)


def pad_from_values(array, pad_width, mode, stat_length=None, end_values=0):
    """np.pad with a mode that computes the padding from the values: 'maximum', 'mean',
    'median' or 'minimum' of the `stat_length` entries nearest each side, or 'linear_ramp' from
    `end_values` to the edge; axis by axis, each from the array padded along the axes before
    it, as NumPy fills them. An integer array is NumPy's own (it rounds; nothing to
    differentiate)."""
    if not np.issubdtype(np.result_type(array), np.inexact):
        if mode == "linear_ramp":
            return np.pad(array, pad_width, mode, end_values=end_values)
        return np.pad(array, pad_width, mode, stat_length=stat_length)
    padded = np.asarray(array)
    ndim = np.ndim(padded)
    widths = np.broadcast_to(pad_width, (ndim, 2))
    for axis in range(ndim):
        front = np.moveaxis(padded, axis, 0)
        n = front.shape[0]
        before, after = int(widths[axis, 0]), int(widths[axis, 1])
        if mode == "linear_ramp":
            ends = np.broadcast_to(end_values, (ndim, 2))
            left = _ramp(ends[axis, 0], front[0], before)
            right = _ramp(ends[axis, 1], front[n - 1], after)[::-1]
        else:
            left = _statistic(mode, front[:_stat_length(stat_length, ndim, axis, 0, n)], before)
            right = _statistic(mode, front[n - _stat_length(stat_length, ndim, axis, 1, n):],
                               after)
        padded = np.moveaxis(np.concatenate((left, front, right), axis=0), 0, axis)
    return padded


def _ramp(end, edge, count):
    """`count` rows from `end` towards `edge` (which they stop short of), evenly spaced."""
    steps = np.reshape(np.arange(count) / max(count, 1), (count,) + (1,) * np.ndim(edge))
    return end + (edge - end) * steps


def _statistic(mode, part, count):
    """`count` copies of the statistic `mode` names of `part` along its first axis."""
    if mode == "maximum":
        value = np.max(part, axis=0, keepdims=True)
    elif mode == "minimum":
        value = np.min(part, axis=0, keepdims=True)
    elif mode == "median":
        value = np.median(part, axis=0, keepdims=True)
    else:
        value = np.mean(part, axis=0, keepdims=True)
    return np.repeat(value, count, axis=0)


def _stat_length(stat_length, ndim, axis, side, n):
    """How many entries the statistic of `side` (0 before, 1 after) of `axis` reads."""
    if stat_length is None:
        return n
    return min(int(np.broadcast_to(stat_length, (ndim, 2))[axis, side]), n)


def _real_transform_plan(ndim, s, axes):
    """(s, axes) as np.fft's n-dimensional real transforms of an array of `ndim` axes read
    them: `axes` every axis (or the last len(s)), `s` None or one length per axis."""
    if axes is None:
        axes = tuple(range(ndim)) if s is None else tuple(range(-len(s), 0))
    return (None if s is None else tuple(s)), tuple(axes)


def rfftn(a, s=None, axes=None, norm=None):
    """np.fft.rfftn: np.fft.rfft along the last of `axes`, then np.fft.fftn along the others."""
    s, axes = _real_transform_plan(np.ndim(a), s, axes)
    half = np.fft.rfft(a, None if s is None else s[-1], axes[-1], norm)
    if len(axes) == 1:
        return half
    return np.fft.fftn(half, None if s is None else s[:-1], axes[:-1], norm)


def irfftn(a, s=None, axes=None, norm=None):
    """np.fft.irfftn: np.fft.ifftn along all of `axes` but the last, then np.fft.irfft."""
    s, axes = _real_transform_plan(np.ndim(a), s, axes)
    full = a if len(axes) == 1 else np.fft.ifftn(a, None if s is None else s[:-1], axes[:-1],
                                                 norm)
    return np.fft.irfft(full, None if s is None else s[-1], axes[-1], norm)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    """np.fft.rfft2: np.fft.rfftn over two axes."""
    return rfftn(a, s, axes, norm)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    """np.fft.irfft2: np.fft.irfftn over two axes."""
    return irfftn(a, s, axes, norm)


_SWAPPED = {None: "forward", "backward": "forward", "ortho": "ortho", "forward": "backward"}


def hfft(a, n=None, axis=-1, norm=None):
    """np.fft.hfft: the np.fft.irfft of the conjugate, normalized the other way."""
    return np.fft.irfft(np.conj(a), n, axis, _SWAPPED[norm])


def ihfft(a, n=None, axis=-1, norm=None):
    """np.fft.ihfft: the conjugate of np.fft.rfft, normalized the other way."""
    return np.conj(np.fft.rfft(a, n, axis, _SWAPPED[norm]))


def roots(p):
    """np.roots: the eigenvalues of the companion matrix NumPy builds. Distinct roots; complex
    ones from real coefficients are refused (np.linalg.eigvals's rule): pass the coefficients
    as complex. Zero leading and trailing coefficients, which NumPy strips (each trailing one
    a root at 0), refuse a derivative through them."""
    p = np.atleast_1d(p)
    if np.ndim(p) != 1:
        raise ValueError("Input must be a rank-1 array.")
    nonzero = np.nonzero(p)[0]
    if len(nonzero) == 0:
        return np.array([])
    trailing = len(p) - int(nonzero[-1]) - 1
    if trailing or int(nonzero[0]):
        p = stripped_coefficients(p, int(nonzero[0]), int(nonzero[-1]) + 1)
    n = len(p)
    if n > 1:
        companion = np.concatenate(((-p[1:] / p[0])[None, :], np.eye(n - 2, n - 1, dtype=p.dtype)))
        found = np.linalg.eigvals(companion)
        if np.iscomplexobj(found) and not np.iscomplexobj(companion):
            found = real_spectrum(found)   # as np.roots returns
    else:
        found = np.array([])
    return np.concatenate((found, np.zeros(trailing, np.result_type(found))))


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """np.polyfit without `full` or `cov`: the least-squares solution NumPy computes (its
    columns scaled to unit length, which does not change it), differentiated in x, y and w;
    the Vandermonde matrix is assumed of full rank, as np.linalg.lstsq's rule assumes."""
    if full or cov:
        raise NotImplementedError("np.polyfit is differentiated without full=True or cov=True: "
                                  "fit with np.linalg.lstsq on np.vander(x, deg + 1) for those")
    x = np.asarray(x) + 0.0
    y = np.asarray(y) + 0.0
    if rcond is None:
        rcond = len(x) * np.finfo(x.dtype).eps
    lhs = x[:, None] ** np.arange(int(deg), -1, -1)
    rhs = y
    if w is not None:
        lhs = lhs * (np.asarray(w) + 0.0)[:, None]
        rhs = rhs * ((np.asarray(w) + 0.0)[:, None] if np.ndim(rhs) == 2 else np.asarray(w) + 0.0)
    scale = np.sqrt(np.sum(np.real(lhs * np.conj(lhs)), axis=0))
    c = np.linalg.lstsq(lhs / scale, rhs, rcond)[0]
    return (c.T / scale).T


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):
    """np.unique: its values are entries of `ar` (slices along `axis`), each at its first
    occurrence, and the derivative flows to that occurrence only (equal entries later get 0:
    they tie, and the first stands for all); the index, inverse and counts carry none."""
    first = unique_index(ar, axis, equal_nan, sorted)
    values = np.take(np.ravel(ar), first) if axis is None else np.take(ar, first, axis)
    extras = unique_extras(ar, return_index, return_inverse, return_counts, axis, equal_nan,
                           sorted)
    return (values, *extras) if extras else values


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """np.histogram_bin_edges: `bins` itself where it is a sequence of edges, else evenly
    spaced from the smallest entry to the largest (`range` where given; each moved out by 0.5
    where they are equal), which is how they move with the data; how many bins there are
    (a name such as 'auto' computes it) does not change nearby."""
    if np.ndim(bins) == 1:
        return np.asarray(bins)
    if range is not None:
        first, last = range[0], range[1]
    elif np.size(a) == 0:
        first, last = 0.0, 1.0
    else:
        first, last = np.min(a), np.max(a)
    if first == last:
        first, last = first - 0.5, last + 0.5
    return np.linspace(first, last, bin_count(a, bins, range, weights) + 1,
                       dtype=bin_dtype(a, first, last))


def histogram(a, bins=10, range=None, density=None, weights=None):
    """np.histogram: the counts (or summed weights) are constant in the data, so their
    derivative is 0 there and flows to `weights` only; the edges move with the data's extremes
    (histogram_bin_edges); with `density`, the counts divided by the bins' widths and total."""
    edges = histogram_bin_edges(a, bins, range, weights)
    counts = bin_totals(weights, a, edges)
    if density:
        return counts / np.diff(edges) / np.sum(counts), edges
    return counts, edges


def gradient(f, *varargs, axis=None, edge_order=1):
    """np.gradient: central differences inside, one-sided ones (of `edge_order` 1 or 2) at the
    ends, along each of `axis`; with unit, scalar or coordinate spacings, each differentiated
    too. Coordinates give NumPy's formulas for uneven spacing (where they are even, NumPy's
    for even spacing, equal to them but for rounding)."""
    f = np.asarray(f)
    if not np.issubdtype(f.dtype, np.inexact):
        f = f.astype(np.float64)
    ndim = np.ndim(f)
    axes = tuple(range(ndim)) if axis is None else tuple(
        k % ndim for k in ((axis,) if np.ndim(axis) == 0 else axis))
    if len(varargs) == 0:
        spacings = [1.0 for _ in axes]
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacings = [varargs[0] for _ in axes]
    elif len(varargs) == len(axes):
        spacings = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    if len(axes) == 1:                  # no sum of the axes' adjoints to start from zeros
        return np.moveaxis(_gradient_along_first(np.moveaxis(f, axes[0], 0), spacings[0],
                                                 edge_order), 0, axes[0])
    parts = ()
    for k, h in zip(axes, spacings):
        parts = parts + (np.moveaxis(_gradient_along_first(np.moveaxis(f, k, 0), h, edge_order),
                                     0, k),)
    return parts


def _gradient_along_first(f, h, edge_order):
    """np.gradient of `f` along its first axis, at spacing `h` (a number) or at coordinates
    `h` (one per entry along that axis)."""
    n = np.shape(f)[0]
    if edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    if n < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, at least "
                         "(edge_order + 1) elements are required.")
    if np.ndim(h) == 0:                 # even spacing: one linear helper (its rules are cheap)
        return unit_differences(f, edge_order) / h
    if np.shape(h)[0] != n:
        raise ValueError("when 1d, distances must match the length of the corresponding "
                         "dimension")
    dx = np.diff(np.asarray(h) + 0.0)
    steps = [dx[0], dx[min(1, n - 2)], dx[max(n - 3, 0)], dx[n - 2]]   # first two, last two
    dx1 = _along_first(dx[:-1], np.ndim(f))
    dx2 = _along_first(dx[1:], np.ndim(f))
    inner = -dx2 / (dx1 * (dx1 + dx2)) * f[:-2] + (dx2 - dx1) / (dx1 * dx2) * f[1:-1] \
        + dx1 / (dx2 * (dx1 + dx2)) * f[2:]
    if edge_order == 1:
        first = (f[1] - f[0]) / steps[0]
        last = (f[n - 1] - f[n - 2]) / steps[3]
    else:
        a, b = steps[0], steps[1]
        first = -(2.0 * a + b) / (a * (a + b)) * f[0] + (a + b) / (a * b) * f[1] \
            - a / (b * (a + b)) * f[2]
        a, b = steps[2], steps[3]
        last = b / (a * (a + b)) * f[n - 3] - (a + b) / (a * b) * f[n - 2] \
            + (2.0 * b + a) / (b * (a + b)) * f[n - 1]
    return np.concatenate((first[None], inner, last[None]))


def _along_first(values, ndim):
    """1-D `values` shaped to broadcast along the first of `ndim` axes."""
    return np.reshape(values, np.shape(values) + (1,) * (ndim - 1))


DEFINED = {np.cov: cov, np.corrcoef: corrcoef, np.logspace: logspace, np.geomspace: geomspace,
           np.fft.rfftn: rfftn, np.fft.irfftn: irfftn, np.fft.rfft2: rfft2,
           np.fft.irfft2: irfft2, np.fft.hfft: hfft, np.fft.ihfft: ihfft, np.roots: roots,
           np.polyfit: polyfit, np.unique: unique, np.histogram: histogram,
           np.histogram_bin_edges: histogram_bin_edges, np.gradient: gradient}
# those whose definitions hold for complex values (each function they call does)
COMPLEX = (np.cov, np.corrcoef, np.fft.rfftn, np.fft.irfftn, np.fft.rfft2, np.fft.irfft2, np.fft.hfft,
           np.fft.ihfft, np.roots, np.polyfit)
# functions defined here for some values of an argument given as a constant, which the rule of
# the function does not take: (function, its parameter's name, position) -> {value: definition}
DEFINED_FOR = {(np.pad, "mode", 2): {m: pad_from_values for m in (
    "linear_ramp", "maximum", "mean", "median", "minimum")}}


def defined():
    """The functions with a definition: NumPy's, and SciPy's once the user has imported
    scipy.stats (`import s2s_ad` never imports SciPy)."""
    if "scipy.stats" not in sys.modules:
        return DEFINED
    return {**DEFINED, **importlib.import_module(f"{__package__}.scipy_definitions").DEFINED}
