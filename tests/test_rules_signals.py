"""The rules of templates/signals.py, templates/polynomials.py and templates/fft.py (convolve,
correlate, interp, gradient, ediff1d, trapezoid, polyval, fftshift, ifftshift) and of the
helpers their derivatives call: every row in reverse mode and forward mode against central
differences, the vjp/jvp dot-product identity, and second order (hvp, forward over the
generated gradient) against central differences of a central-difference gradient, along a
direction in all differentiated arguments at once (so the mixed terms are checked too)."""
import zlib

import numpy as np
import pytest

import s2s_ad as ad
import test_rules as core
from fd import assert_close, numerical_grad
from s2s_ad import runtime
from s2s_ad.errors import TransformError
from rule_coverage import rows_built, untested_rules
from test_rules import Arg, Const, Row, check_row, check_tangent_row, normal, table

RULE_MODULES = ("signals", "polynomials", "fft")


class Drawn(Arg):
    """A random argument drawn by `draw(rng, n)` (a kind test_rules does not have)."""

    def __init__(self, kind, draw, shape=()):
        super().__init__(kind, shape)
        self.draw = draw

    def __call__(self, rng):
        values = np.asarray(self.draw(rng, int(np.prod(self.shape))), dtype=np.float64)
        return float(values.reshape(())) if self.shape == () else values.reshape(self.shape)


XP = np.array([0.0, 0.3, 0.5, 1.2, 2.0])


def _away_from_samples(rng, n):
    """Query points in [-0.5, 2.5], at least 0.02 from every sample point of XP (the kinks)."""
    x = rng.uniform(-0.5, 2.5, n)
    near = np.abs(x[:, None] - XP[None, :]).min(axis=1) < 0.02
    return np.where(near, x + 0.05, x)


def sample_points(*shape):
    """XP, each moved by at most 0.005: still increasing, and the queries still 0.015 away."""
    return Drawn("sample_points", lambda rng, n: XP + rng.uniform(-0.005, 0.005, n), shape)


def query(*shape):
    return Drawn("query", _away_from_samples, shape)


def increasing(*shape):
    """Coordinates for np.trapezoid and np.gradient: increasing along the last axis."""
    return Drawn("increasing", lambda rng, n: np.cumsum(rng.uniform(0.2, 1.0, n)), shape)


# ---------------------------------------------------------------------------------------------
# the rows: module-level functions, as s2s_ad reads their source
# ---------------------------------------------------------------------------------------------
def np_convolve(a, v, mode): return np.convolve(a, v, mode=mode)
def np_convolve_default(a, v): return np.convolve(a, v)
def np_correlate(a, v, mode): return np.correlate(a, v, mode)
def np_correlate_default(a, v): return np.correlate(a, v)
def convolve_self(a): return np.convolve(a, a, "same") * a
def np_polyval(p, x): return np.polyval(p, x)
def np_interp(x, xp, fp): return np.interp(x, xp, fp)
def np_interp_outside(x, xp, fp, left, right): return np.interp(x, xp, fp, left=left, right=right)
def np_interp_left(x, xp, fp, left): return np.interp(x, xp, fp, left)
def np_interp_lists(x): return np.interp(x, [0.0, 0.5, 2.0], [1.0, -1.0, 3.0])
def np_interp_list_queries(fp): return np.interp([0.1, 1.9, 2.5], [0.0, 0.5, 2.0], fp, 0.0)
def np_polyval_list(x): return np.polyval([1.0, -2.0, 0.5], x)
def np_gradient(f): return np.gradient(f)
def np_gradient_spacing(f, h, axis, edge_order):
    return np.gradient(f, h, axis=axis, edge_order=edge_order)
def np_gradient_all(f, edge_order): return np.stack(np.gradient(f, 0.5, 2.0, edge_order=edge_order))
def np_gradient_first(f): return np.gradient(f, axis=(1, 0))[1] * 2.0
def gradient_at(f, x, edge_order): return np.gradient(f, x, axis=0, edge_order=edge_order)
def gradient_at_both(f, x, y, edge_order): return np.stack(np.gradient(f, x, y, edge_order=edge_order))
def gradient_mixed(f, x, h): return np.concatenate(np.gradient(f, h, x, axis=(1, 0)), axis=1)
def np_ediff1d(ary): return np.ediff1d(ary)
def np_ediff1d_ends(ary, to_end, to_begin): return np.ediff1d(ary, to_end=to_end, to_begin=to_begin)
def np_trapezoid(y): return np.trapezoid(y)
def np_trapezoid_dx(y, dx, axis): return np.trapezoid(y, dx=dx, axis=axis)
def np_trapezoid_x(y, x, axis): return np.trapezoid(y, x, axis=axis)
def fftshift(x, axes): return np.fft.fftshift(x, axes)
def ifftshift(x, axes): return np.fft.ifftshift(x, axes=axes)
# the transforms of real values, read as real numbers: both parts, weighed apart (written out
# in each: a complex value passed to a function of yours is refused)
def fft(x, n, axis, norm): return np.real(np.fft.fft(x, n, axis, norm) * (0.7 - 1.3j))
def ifft(x, n, axis, norm): return np.real(np.fft.ifft(x, n, axis, norm) * (0.7 - 1.3j))
def fft2(x, s, axes, norm): return np.real(np.fft.fft2(x, s, axes, norm) * (0.7 - 1.3j))
def ifft2(x, s, axes, norm): return np.real(np.fft.ifft2(x, s, axes, norm) * (0.7 - 1.3j))
def fftn(x, s, axes, norm): return np.real(np.fft.fftn(x, s, axes, norm) * (0.7 - 1.3j))
def ifftn(x, s, axes, norm): return np.real(np.fft.ifftn(x, s, axes, norm) * (0.7 - 1.3j))
def rfft(x, n, axis, norm): return np.real(np.fft.rfft(x, n, axis, norm) * (0.7 - 1.3j))
def irfft(x, n, axis, norm): return np.fft.irfft(x, n, axis, norm) ** 2


MODES = ["full", "same", "valid"]
LENGTHS = [(5, 3), (3, 5), (4, 6), (6, 4), (4, 4), (1, 3)]

ROWS = [
    *[Row(np_convolve, normal(n), normal(m), Const(mode)) for n, m in LENGTHS for mode in MODES],
    *[Row(np_correlate, normal(n), normal(m), Const(mode)) for n, m in LENGTHS for mode in MODES],
    Row(np_convolve_default, normal(4), normal(2)), Row(np_correlate_default, normal(2), normal(4)),
    Row(np_convolve, normal(), normal(3), Const("same")), Row(convolve_self, normal(5)),
    Row(np_polyval, normal(4), normal(3)), Row(np_polyval, normal(5), normal(2, 3)),
    Row(np_polyval, normal(3), normal()), Row(np_polyval, normal(1), normal(3)),
    Row(np_polyval, normal(2), normal(4)),
    Row(np_interp, query(7), Const(XP, "XP"), normal(5)),
    Row(np_interp, query(2, 3), Const(XP, "XP"), normal(5)),
    Row(np_interp, query(), Const(XP, "XP"), normal(5)),
    Row(np_interp, query(7), sample_points(5), normal(5)), Row(np_interp, query(2, 3), sample_points(5), Const(XP ** 2, "XP**2")),
    Row(np_interp_outside, query(8), sample_points(5), normal(5), normal(), normal()),
    Row(np_interp_left, query(6), sample_points(5), Const(XP * 3, "XP*3"), Const(3.0)),
    Row(np_interp_outside, query(8), Const(XP, "XP"), normal(5), normal(), normal()),
    Row(np_interp_outside, query(8), Const(XP, "XP"), normal(5), Const(-1.0), Const(None)),
    Row(np_interp_left, query(6), Const(XP, "XP"), normal(5), Const(3.0)),
    Row(np_interp_lists, query(4)), Row(np_interp_list_queries, normal(3)),
    Row(np_polyval_list, normal(3)),
    Row(np_gradient, normal(6)), Row(np_gradient, normal(2)),
    *[Row(np_gradient_spacing, normal(5, 4), Const(h), Const(axis), Const(order))
      for h, axis, order in [(0.5, 0, 1), (2.0, -1, 2), (0.5, 1, 2), (1.0, 0, 2)]],
    Row(np_gradient_spacing, normal(3), Const(0.25), Const(None), Const(2)),
    Row(np_gradient_all, normal(4, 5), Const(1)), Row(np_gradient_all, normal(3, 4), Const(2)),
    Row(np_gradient_first, normal(3, 4)),
    # np.gradient at coordinates (which move too) and at spacings that move
    *[Row(gradient_at, normal(*shape), increasing(shape[0]), Const(order))
      for shape, order in [((5,), 1), ((6,), 2), ((4, 3), 2), ((2,), 1), ((3, 2), 2)]],
    Row(gradient_at, normal(5), Const(np.array([0, 1, 3, 4, 7]), "ints[5]"), Const(2)),
    Row(gradient_at_both, normal(4, 5), increasing(4), increasing(5), Const(1)),
    Row(gradient_at_both, normal(3, 4), increasing(3), normal(), Const(2)),
    Row(gradient_mixed, normal(4, 3), increasing(4), normal()),
    Row(np_gradient_spacing, normal(5, 4), normal(), Const(-1), Const(2)),
    Row(np_ediff1d, normal(5)), Row(np_ediff1d, normal(2, 3)), Row(np_ediff1d, normal(1)),
    Row(np_ediff1d_ends, normal(4), normal(2), normal(3)),
    Row(np_ediff1d_ends, normal(2, 2), normal(), Const(None)),
    Row(np_ediff1d_ends, normal(4), Const(None), Const(np.array([1.0, 2.0]), "[1,2]")),
    Row(np_trapezoid, normal(5)), Row(np_trapezoid, normal(3, 4)),
    Row(np_trapezoid_dx, normal(3, 4), normal(), Const(0)),
    Row(np_trapezoid_dx, normal(2, 3, 4), Const(0.5), Const(-2)),
    Row(np_trapezoid_x, normal(3, 4), increasing(4), Const(-1)),
    Row(np_trapezoid_x, normal(3, 4), increasing(3), Const(0)),
    Row(np_trapezoid_x, normal(3, 4), increasing(3, 4), Const(1)),
    Row(np_trapezoid_x, normal(3, 4), increasing(1, 4), Const(-1)),
    Row(np_trapezoid_x, normal(6), normal(6), Const(0)),
    Row(fftshift, normal(5), Const(None)), Row(fftshift, normal(4, 5), Const(None)),
    Row(fftshift, normal(4, 5), Const(1)), Row(fftshift, normal(3, 4, 5), Const((0, 2))),
    Row(ifftshift, normal(5), Const(None)), Row(ifftshift, normal(4, 5), Const((-1,))),
    Row(ifftshift, normal(3, 4, 5), Const(0)),
    Row(fft, normal(5), Const(None), Const(-1), Const(None)),
    Row(fft, normal(3, 4), Const(6), Const(0), Const("ortho")),
    Row(ifft, normal(3, 4), Const(3), Const(-1), Const("forward")),
    Row(fft2, normal(3, 4), Const((4, 3)), Const((0, 1)), Const(None)),
    Row(ifft2, normal(2, 3, 4), Const(None), Const((0, 2)), Const("ortho")),
    Row(fftn, normal(3, 4), Const(None), Const(None), Const(None)),
    Row(ifftn, normal(3, 4), Const((5,)), Const((0,)), Const(None)),
    Row(rfft, normal(3, 5), Const(None), Const(-1), Const(None)),
    Row(rfft, normal(3, 5), Const(4), Const(0), Const("ortho")),
    Row(irfft, normal(3, 4), Const(None), Const(-1), Const(None)),
    Row(irfft, normal(4, 3), Const(7), Const(0), Const("forward")),
]


# the helpers the derivatives call, checked on their own (their rules serve second order)
def rt_full_signal(g, a, v, kind, mode): return runtime.full_signal(g, a, v, kind, mode)
def rt_signal_window(t, a, v, kind, mode): return runtime.signal_window(t, a, v, kind, mode)
def rt_interp_values(t, x, xp, left, right): return runtime.interp_values(t, x, xp, left, right)
def rt_uninterp(g, x, xp, left, right): return runtime.uninterp(g, x, xp, left, right)
def rt_slopes_at(fp, x, xp): return runtime.slopes_at(fp, x, xp)
def rt_unslope(g, x, xp): return runtime.unslope(g, x, xp)
def rt_unit_differences(f, order): return runtime.unit_differences(f, order)
def rt_unit_differences_transposed(g, order): return runtime.unit_differences_transposed(g, order)
def rt_unediff1d(g, ary, to_end, to_begin, part):
    return runtime.unediff1d(g, ary, to_end, to_begin, part)
def rt_reediff1d(t, ary, to_end, to_begin, part):
    return runtime.reediff1d(t, ary, to_end, to_begin, part)
def rt_pair_means(y, axis): return runtime.pair_means(y, axis)
def rt_unpair_means(g, axis): return runtime.unpair_means(g, axis)
def rt_spacing_of(t, x, y, axis): return runtime.spacing_of(t, x, y, axis)
def rt_unspacing(g, x, y, axis): return runtime.unspacing(g, x, y, axis)
def rt_trapezoid_widths(y, x, dx, axis): return runtime.trapezoid_widths(y, x, dx, axis)
def rt_widths_of_dx(t, x, y, axis): return runtime.widths_of_dx(t, x, y, axis)
def rt_poly_derivative(p): return runtime.poly_derivative(p)
def rt_unpoly_derivative(g): return runtime.unpoly_derivative(g)
def rt_polyval_grad_p(g, p, x): return runtime.polyval_grad_p(g, p, x)


A5, V3, XS = Const(np.zeros(5), "zeros[5]"), Const(np.zeros(3), "zeros[3]"), Const(XP, "XP")
Y34 = Const(np.zeros((3, 4)), "zeros[3,4]")
HELPER_ROWS = [
    Row(rt_full_signal, normal(5), A5, V3, Const("convolve"), Const("same")),
    Row(rt_full_signal, normal(3), V3, A5, Const("correlate"), Const("valid")),
    Row(rt_signal_window, normal(7), V3, A5, Const("correlate"), Const("same")),
    Row(rt_interp_values, normal(5), query(6), XS, Const(None), Const(0.0)),
    Row(rt_uninterp, normal(6), query(6), XS, Const(1.0), Const(None)),
    Row(rt_slopes_at, normal(5), query(6), XS), Row(rt_unslope, normal(6), query(6), XS),
    Row(rt_interp_values, normal(5), query(6), sample_points(5), Const(None), Const(0.0)),
    Row(rt_uninterp, normal(6), query(6), sample_points(5), Const(1.0), Const(None)),
    Row(rt_slopes_at, normal(5), query(6), sample_points(5)), Row(rt_unslope, normal(6), query(6), sample_points(5)),
    Row(rt_unit_differences, normal(5, 3), Const(2)), Row(rt_unit_differences, normal(4), Const(1)),
    Row(rt_unit_differences_transposed, normal(4, 2), Const(1)),
    Row(rt_unit_differences_transposed, normal(5), Const(2)),
    Row(rt_unediff1d, normal(6), A5, Const(None), Const(np.zeros(2)), Const("ary")),
    Row(rt_unediff1d, normal(6), A5, Const(None), Const(np.zeros(2)), Const("to_begin")),
    Row(rt_reediff1d, normal(2), A5, Const(np.zeros(2)), Const(None), Const("to_end")),
    Row(rt_pair_means, normal(3, 4), Const(0)), Row(rt_unpair_means, normal(3, 3), Const(-1)),
    Row(rt_spacing_of, normal(4), Const(np.zeros(4)), Y34, Const(1)),
    Row(rt_unspacing, normal(3, 3), Const(np.zeros(4)), Y34, Const(1)),
    Row(rt_unspacing, normal(2, 4), Y34, Y34, Const(0)),
    Row(rt_trapezoid_widths, normal(3, 4), increasing(4), normal(), Const(-1)),
    Row(rt_trapezoid_widths, normal(3, 4), Const(None), normal(), Const(-1)),
    Row(rt_widths_of_dx, normal(), Const(None), Y34, Const(0)),
    Row(rt_widths_of_dx, normal(), Const(np.zeros(4)), Y34, Const(-1)),
    Row(rt_poly_derivative, normal(4)), Row(rt_unpoly_derivative, normal(3)),
    Row(rt_polyval_grad_p, normal(2, 3), Const(np.zeros(4)), normal(2, 3)),
]


@pytest.mark.parametrize("row", table(*ROWS, *HELPER_ROWS))
def test_reverse(row):
    check_row(row)


@pytest.mark.parametrize("row", table(*ROWS, *HELPER_ROWS))
def test_forward(row):
    check_tangent_row(row)


@pytest.mark.parametrize("row", table(*ROWS, *HELPER_ROWS))
def test_vjp_and_jvp_are_transposes(row):
    core.test_vjp_and_jvp_are_transposes(row)


def _seeded(row):
    """<seed, row.fn(*args)> as a function of the arguments, with s2s_ad's `seeded_sum_k`
    (its arguments: fn, seed, args) and the seed drawn for the row."""
    rng = np.random.default_rng(zlib.crc32(("hvp " + row.id).encode()))
    args = [make(rng) for make in row.args]
    seed = rng.standard_normal(np.shape(row.fn(*args)))
    return rng, args, seed, core.SEEDED_SUMS[len(args)]


@pytest.mark.parametrize("row", table(*ROWS))
def test_second_order(row):
    """hvp of <seed, fn> along a direction in every differentiated argument at once, against a
    central difference of a central-difference gradient (no s2s_ad derivative involved)."""
    rng, args, seed, seeded_sum = _seeded(row)
    directions = [core._direction(rng, args[k]) for k in row.wrt]

    def gradient_at(step, k):
        shifted = list(args)
        for j, v in zip(row.wrt, directions):
            shifted[j] = args[j] + step * v
        return numerical_grad(lambda *a: np.sum(np.asarray(row.fn(*a)) * seed), shifted, k,
                              eps=1e-5)

    wrt = tuple(2 + k for k in row.wrt)
    vector = directions[0] if len(wrt) == 1 else tuple(directions)
    actual = ad.hvp(seeded_sum, wrt=wrt[0] if len(wrt) == 1 else wrt)(
        row.fn, seed, *args, vector=vector)
    actual = actual if len(wrt) > 1 else (actual,)
    for k, part in zip(row.wrt, actual):
        expected = (gradient_at(1e-4, k) - gradient_at(-1e-4, k)) / 2e-4
        assert_close(part, expected, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# HIPS autograd, where it has the function: np.gradient (unit spacing), the shifts
# ---------------------------------------------------------------------------------------------
AUTOGRAD_ROWS = [
    Row(np_gradient, normal(6)), Row(np_gradient_first, normal(4, 5)),
    Row(fftshift, normal(4, 5), Const(None)), Row(ifftshift, normal(3, 4, 5), Const((0, 2))),
]


@pytest.mark.parametrize("row", table(*AUTOGRAD_ROWS))
def test_against_autograd(row):
    core.test_against_autograd(row)


def test_every_rule_in_these_templates_has_a_row(monkeypatch):
    """An adjoint or tangent rule added to these tables without a row that reaches it fails."""
    built = rows_built(ROWS + HELPER_ROWS, second_order_rows=ROWS, seeded=_seeded)
    untested = untested_rules(monkeypatch, RULE_MODULES, built)
    assert not untested, f"rules without a row: {untested}"


# ---------------------------------------------------------------------------------------------
# np.interp at its kinks: JAX's convention (the segment to the right of a sample point, the
# last segment at xp[-1], zero outside the samples), in x, fp and xp, against slopes worked
# out by hand
# ---------------------------------------------------------------------------------------------
def interp_sum(x, fp): return np.sum(np.interp(x, XP, fp))
def interp_in_samples(x, xp, fp): return np.sum(np.interp(x, xp, fp))


def test_interp_at_the_sample_points_takes_the_slope_to_the_right():
    fp = np.array([1.0, 2.0, 0.0, 3.5, 1.5])
    slopes = np.diff(fp) / np.diff(XP)              # [10/3, -10, 5, -2.5]
    x = np.array([0.0, 0.3, 0.5, 1.2, 2.0, -0.1, 2.1])
    expected = [slopes[0], slopes[1], slopes[2], slopes[3], slopes[3], 0.0, 0.0]
    assert_close(ad.grad(interp_sum)(x, fp), expected, rtol=1e-12, atol=0)
    _, forward = ad.jvp(interp_sum)(x, fp, tangent=np.ones_like(x))
    assert_close(forward, np.sum(expected), rtol=1e-12)
    # in fp, at a sample point all the weight is on that sample's value
    assert_close(ad.grad(interp_sum, wrt=1)(x, fp), [2.0, 1.0, 1.0, 1.0, 2.0], rtol=1e-12)
    # in xp, the same segment: t = 0 on it (x == xp[k]) moves y by -slope dxp[k], t = 1 at
    # xp[-1] by -slope dxp[-1]; nothing outside
    in_samples = [-slopes[0], -slopes[1], -slopes[2], -slopes[3], -slopes[3]]
    assert_close(ad.grad(interp_in_samples, wrt=1)(x, XP, fp), in_samples, rtol=1e-12, atol=0)
    _, forward = ad.jvp(interp_in_samples, wrt=1)(x, XP, fp, tangent=np.ones(5))
    assert_close(forward, np.sum(in_samples), rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# what the rules do not differentiate is refused, never differentiated wrongly
# ---------------------------------------------------------------------------------------------
def interp_period(x, fp): return np.sum(np.interp(x, XP, fp, period=2.0))
def polyval_2d(p, x): return np.sum(np.polyval(p, x))


def test_interp_period_is_refused_at_transform_time():
    for transform in (ad.grad(interp_period), ad.jvp(interp_period)):
        with pytest.raises(TransformError, match="period"):
            ad.source(transform)


@pytest.mark.parametrize("fn, args, message", [
    (polyval_2d, (np.ones((2, 3)), np.ones(3)), "1-D array of coefficients"),
])
def test_unsupported_arguments_are_refused_in_reverse_mode(fn, args, message):
    """Their adjoints are refused; their tangents, the functions applied to the tangent of
    what they are linear in, are right and checked against central differences."""
    with pytest.raises(NotImplementedError, match=message):
        ad.grad(fn)(*args)
    direction = np.linspace(-1.0, 1.0, args[0].size).reshape(args[0].shape)
    _, forward = ad.jvp(fn)(*args, tangent=direction)
    moved = [fn(args[0] + step * direction, *args[1:]) for step in (1e-6, -1e-6)]
    assert_close(forward, (moved[0] - moved[1]) / 2e-6, rtol=1e-6)


def test_polyval_with_2d_coefficients_is_refused_in_x():
    with pytest.raises(NotImplementedError, match="1-D array of coefficients"):
        ad.jvp(polyval_2d, wrt=1)(np.ones((2, 3)), np.ones(3), tangent=np.ones(3))


def test_unknown_convolution_mode_is_refused():
    with pytest.raises(NotImplementedError, match="mode"):
        runtime.full_signal(np.ones(3), np.ones(3), np.ones(2), "convolve", "wrap")
