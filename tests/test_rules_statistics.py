"""The rules of templates/cumulative.py, statistics.py, selection.py, piecewise.py and
layout.py, checked as tests/test_rules.py checks the core tables: every row in reverse mode
against central differences, in forward mode against central differences, vjp against jvp by
the dot-product identity, and second order (hvp) against differences of an independent
gradient; rows HIPS autograd can run are checked against it too.
"""
import numpy as np
import pytest

import s2s_ad as ad
import test_rules as core
from fd import assert_close
from rule_coverage import untested_rules
from s2s_ad import runtime
from s2s_ad.errors import TransformError
from test_rules import Arg, Const, Row, check_row, check_tangent_row, normal, table

MODULES = ("cumulative", "statistics", "special_elementwise", "layout")


def zeros(*shape):
    return Const(np.zeros(shape), f"zeros{list(shape)}")


def with_zeros(*shape):
    """Away from zero, but for exact zeros at flat positions 1, 5 and 6 (a (3, 4) array: one
    zero in row 0, two in row 1, none in row 2; along columns, zeros in columns 1 and 2)."""
    return Arg("zeros", shape)


# ---------------------------------------------------------------------------------------------
# cumulative products and sums
# ---------------------------------------------------------------------------------------------
def np_cumprod(x, axis): return np.cumprod(x, axis=axis)
def cumprod_method(x): return x.cumprod()
def cumprod_method_axis(x): return x.cumprod(-1)
def np_cumulative_prod(x, axis, include_initial):
    return np.cumulative_prod(x, axis=axis, include_initial=include_initial)
def np_cumulative_sum(x, axis, include_initial):
    return np.cumulative_sum(x, axis=axis, include_initial=include_initial)
def with_nans(x): return np.where(x > 1.0, np.nan, x)
def np_nancumsum(x, axis): return np.nancumsum(with_nans(x), axis=axis)
def np_nancumprod(x, axis): return np.nancumprod(with_nans(x), axis=axis)
def running_max(x): return np.maximum.accumulate(x)
def running_min_along(x, axis): return np.minimum.accumulate(x, axis=axis)
def running_max_along(x, axis): return np.maximum.accumulate(x, axis)
def add_reduce(x, axis): return np.add.reduce(x, axis=axis)
def add_reduce_default(x): return np.add.reduce(x)
def multiply_reduce(x, axis): return np.multiply.reduce(x, axis)
def maximum_reduce(x): return np.maximum.reduce(x)
def add_accumulate(x, axis): return np.add.accumulate(x, axis)
def multiply_accumulate(x): return np.multiply.accumulate(x)
def multiply_outer(x, y): return np.multiply.outer(x, y)
def subtract_outer(x, y): return np.subtract.outer(x, y)
def arctan2_outer(x, y): return np.arctan2.outer(x, y)
def rt_scan(b, a, axis): return runtime.scan(b, a, axis)
def rt_scan_back(g, a, axis): return runtime.scan_back(g, a, axis)
def rt_shift_along(v, axis): return runtime.shift_along(v, axis)
def rt_unshift_along(v, axis): return runtime.unshift_along(v, axis)
def rt_exclusive_products(y, axis): return runtime.exclusive_products(y, axis)
def rt_lanes(v, axis): return runtime.lanes(v, axis)
def rt_drop_initial(g, axis, include): return runtime.drop_initial(g, axis, include)
def rt_with_initial(g, axis, include): return runtime.with_initial(g, axis, include)


CUMULATIVE_ROWS = [
    Row(running_max, normal(6)), Row(running_max, normal(3, 4)),
    *[Row(fn, normal(3, 4), Const(axis)) for fn in (running_min_along, running_max_along)
      for axis in (0, 1, -1)],
    Row(running_max_along, normal(2, 3, 4), Const(1)),
    *[Row(add_reduce, normal(3, 4), Const(axis)) for axis in (0, 1, None)],
    Row(add_reduce_default, normal(3, 4)), Row(maximum_reduce, normal(3, 4)),
    *[Row(multiply_reduce, normal(3, 4), Const(axis)) for axis in (0, 1)],
    *[Row(add_accumulate, normal(3, 4), Const(axis)) for axis in (0, 1)],
    Row(multiply_accumulate, normal(3, 4)),
    *[Row(fn, normal(3), normal(2, 2)) for fn in (multiply_outer, subtract_outer)],
    Row(arctan2_outer, normal(2, 2), normal(3)),
    *[Row(np_cumprod, make, Const(axis)) for make, axis in [
        (normal(5), None), (normal(3, 4), 1), (normal(3, 4), 0), (normal(3, 4), None),
        (normal(2, 3, 4), -1), (normal(2, 3, 4), 1), (with_zeros(3, 4), 1),
        (with_zeros(3, 4), 0), (with_zeros(3, 4), None), (normal(1), 0)]],
    Row(cumprod_method, normal(3, 4)), Row(cumprod_method_axis, with_zeros(3, 4)),
    *[Row(np_cumulative_prod, make, Const(axis), Const(initial)) for make, axis, initial in [
        (normal(5), None, False), (normal(5), None, True), (normal(3, 4), 1, True),
        (with_zeros(3, 4), 0, True), (with_zeros(3, 4), -1, False)]],
    *[Row(np_cumulative_sum, make, Const(axis), Const(initial)) for make, axis, initial in [
        (normal(5), None, False), (normal(5), 0, True), (normal(3, 4), 1, True),
        (normal(2, 3, 4), 0, False)]],
    *[Row(fn, normal(3, 4), Const(axis)) for fn in (np_nancumsum, np_nancumprod)
      for axis in (None, 0, 1)],
    *[Row(rt_scan, normal(*shape), normal(*shape), Const(axis)) for shape, axis in [
        ((6,), None), ((3, 4), 1), ((3, 5), 0), ((2, 3), None)]],
    Row(rt_scan, normal(3, 4), with_zeros(3, 4), Const(1)),
    *[Row(rt_scan_back, normal(*shape), normal(*shape), Const(axis)) for shape, axis in [
        ((6,), None), ((3, 4), 1), ((3, 5), 0)]],
    Row(rt_scan_back, normal(12), normal(3, 4), Const(None)),
    *[Row(fn, normal(*shape), Const(axis)) for fn in (rt_shift_along, rt_unshift_along,
                                                      rt_exclusive_products, rt_lanes)
      for shape, axis in [((3, 4), 1), ((3, 4), None)]],
    *[Row(fn, normal(3, 4), Const(axis), Const(include)) for fn in (rt_drop_initial,
                                                                   rt_with_initial)
      for axis, include in [(1, True), (0, True), (0, False)]],
]
# autograd has no rule for np.cumprod; central differences give the independent gradient
BY_DIFFERENCES = {"np_cumprod", "cumprod_method", "cumprod_method_axis", "np_nancumprod"}


# ---------------------------------------------------------------------------------------------
# order statistics and the NaN-skipping reductions (distinct entries: no ties)
# ---------------------------------------------------------------------------------------------
def distinct(*shape):
    return Arg("distinct", shape)


def np_quantile(x, q, axis, keepdims): return np.quantile(x, q, axis=axis, keepdims=keepdims)
def quantile_method(x, q, axis, method): return np.quantile(x, q, axis, method=method)
def np_percentile(x, q, axis, keepdims): return np.percentile(x, q, axis=axis, keepdims=keepdims)
def np_median(x, axis, keepdims): return np.median(x, axis=axis, keepdims=keepdims)
def median_default(x): return np.median(x)
def np_nanquantile(x, q, axis): return np.nanquantile(with_nans(x), q, axis=axis)
def np_nanpercentile(x, q, axis, keepdims):
    return np.nanpercentile(with_nans(x), q, axis=axis, keepdims=keepdims)
def np_nanmedian(x, axis): return np.nanmedian(with_nans(x), axis=axis)
def np_partition(x, kth, axis): return np.partition(x, kth, axis=axis)
def partition_default(x): return np.partition(x, 2)
def np_nanmax(x, axis, keepdims): return np.nanmax(with_nans(x), axis=axis, keepdims=keepdims)
def np_nanmin(x, axis, keepdims): return np.nanmin(with_nans(x), axis=axis, keepdims=keepdims)
def np_nanprod(x, axis, keepdims): return np.nanprod(with_nans(x), axis=axis, keepdims=keepdims)
def np_nanvar(x, axis, ddof, keepdims):
    return np.nanvar(with_nans(x), axis=axis, ddof=ddof, keepdims=keepdims)
def np_nanstd(x, axis, ddof, keepdims):
    return np.nanstd(with_nans(x), axis=axis, ddof=ddof, keepdims=keepdims)
def nan_reductions_default(x):
    x = with_nans(x)
    return np.nanmax(x) * np.nanmin(x) + np.nanprod(x) + np.nanvar(x) * np.nanstd(x)
def rt_weighted_reduce(v, w, axis, keepdims): return runtime.weighted_reduce(v, w, axis, keepdims)
def rt_weighted_unreduce(g, w, like, axis, keepdims):
    return runtime.weighted_unreduce(g, w, like, axis, keepdims)


Q = Const(np.array([0.1, 0.5, 0.85]), "q[3]")
Q2 = Const(np.array([[0.2, 0.7], [1.0, 0.0]]), "q[2,2]")
STATISTICS_ROWS = [
    *[Row(np_quantile, distinct(*shape), q, Const(axis), Const(keepdims))
      for shape, q, axis, keepdims in [
          ((7,), Const(0.3), None, False), ((3, 4), Const(0.5), 1, False),
          ((3, 4), Q, 0, True), ((2, 3, 4), Q2, (0, 2), False), ((2, 3, 4), Const(0.9), -1, True),
          ((3, 4), Q, None, False)]],
    *[Row(quantile_method, distinct(3, 5), Q, Const(1), Const(method))
      for method in ("lower", "higher", "midpoint", "nearest", "hazen", "inverted_cdf")],
    *[Row(np_percentile, distinct(*shape), q, Const(axis), Const(keepdims))
      for shape, q, axis, keepdims in [((6,), Const(40.0), None, False),
                                       ((3, 4), Const(np.array([10.0, 75.0]), "q[2]"), 1, True)]],
    *[Row(np_median, distinct(*shape), Const(axis), Const(keepdims)) for shape, axis, keepdims in [
        ((5,), None, False), ((3, 4), 1, False), ((3, 4), 0, True), ((2, 3, 4), (1, 2), False)]],
    Row(median_default, distinct(6)),
    *[Row(np_nanquantile, distinct(*shape), q, Const(axis)) for shape, q, axis in [
        ((3, 5), Const(0.4), 1), ((4, 3), Q, 0), ((3, 4), Q, None)]],
    *[Row(np_nanpercentile, distinct(3, 5), Const(60.0), Const(axis), Const(keepdims))
      for axis, keepdims in [(1, True), (None, False)]],
    *[Row(np_nanmedian, distinct(*shape), Const(axis)) for shape, axis in [
        ((3, 5), 1), ((4, 3), 0), ((3, 4), None)]],
    *[Row(np_partition, distinct(*shape), Const(kth), Const(axis)) for shape, kth, axis in [
        ((6,), 2, -1), ((3, 5), 1, 1), ((4, 3), (0, 2), 0), ((3, 4), 5, None)]],
    Row(partition_default, distinct(5)),
    *[Row(fn, distinct(3, 4), Const(axis), Const(keepdims)) for fn in (np_nanmax, np_nanmin)
      for axis, keepdims in [(None, False), (1, True), (0, False)]],
    *[Row(np_nanprod, Arg("away", (3, 4)), Const(axis), Const(keepdims))
      for axis, keepdims in [(None, False), (1, True), (0, False)]],
    Row(np_nanprod, with_zeros(3, 4), Const(1), Const(False)),
    *[Row(fn, normal(*shape), Const(axis), Const(ddof), Const(keepdims))
      for fn in (np_nanvar, np_nanstd) for shape, axis, ddof, keepdims in [
          ((3, 5), None, 0, False), ((3, 5), 1, 1, True), ((4, 3), 0, 0, False),
          ((2, 3, 4), (0, 2), 1, False)]],
    Row(nan_reductions_default, Arg("distinct", (3, 4))),
    Row(rt_weighted_reduce, normal(3, 4), Const(np.arange(24.0).reshape(2, 3, 4), "w[2,3,4]"),
        Const(1), Const(True)),
    Row(rt_weighted_unreduce, normal(2, 4), Const(np.arange(24.0).reshape(2, 3, 4), "w[2,3,4]"),
        zeros(3, 4), Const(0), Const(False)),
]


# ---------------------------------------------------------------------------------------------
# more elementwise functions
# ---------------------------------------------------------------------------------------------
def np_sinc(x): return np.sinc(x)
def rt_sinc_slope(x): return runtime.sinc_slope(x)
def rt_sinc_curvature(x): return runtime.sinc_curvature(x)
def rt_sinc_third(x): return runtime.sinc_third(x)
def np_fmod(x, y): return np.fmod(x, y)
def np_copysign(x, y): return np.copysign(x, y)
def np_heaviside(x, y): return np.heaviside(x, y)
def np_nan_to_num(x, nan, posinf):
    return np.nan_to_num(np.where(x > 1, np.inf, np.where(x < -1, np.nan, x)), nan=nan, posinf=posinf)
def nan_to_num_default(x): return np.nan_to_num(np.where(x > 1, np.nan, x))
def angle_and_round(x): return np.angle(x) * x + x.round() * x + np.round(x, 1) * np.around(x)
def np_ldexp(x, e): return np.ldexp(x, e)
def ldexp_of_square(x, e): return np.ldexp(x * x, e) * x
def np_i0(x): return np.i0(x)
# arguments 10..40, either side of runtime.i1's switch from its series to its expansion at 30
def i0_far(x): return np.i0(20.0 * x) * np.exp(-20.0 * x)
def rt_i1(x): return runtime.i1(x)
def modf_parts(x):
    fraction, whole = np.modf(x)
    return fraction * fraction + whole * fraction
def modf_fraction(x): return np.modf(x * 0.5)[0] ** 3
EXPONENTS = Const(np.array([[1, -2, 0, 3], [2, 0, -1, 1], [-3, 1, 1, 0]]), "e[3,4]")
STEP = Const(np.array([[0.0, 1.5, -2.0, 0.0], [0.0, 0.0, -1.0, 3.0], [2.0, -0.5, 0.0, 1.0]]),
             "x1[3,4]")


ELEMENTWISE_ROWS = [
    *[Row(np_sinc, normal(*shape)) for shape in [(3, 4), ()]],
    *[Row(fn, normal(3, 4)) for fn in (rt_sinc_slope, rt_sinc_curvature, rt_sinc_third)],
    *[Row(np_fmod, Arg(kx, sx), Arg("mod_y", sy)) for kx in ("mod_x", "neg")
      for sx, sy in [((3, 4), (3, 4)), ((3, 1), (4,)), ((), (4,))]],
    *[Row(np_copysign, Arg("away", sx), Arg("away", sy)) for sx, sy in [
        ((3, 4), (3, 4)), ((4,), (3, 4)), ((3, 4), ())]],
    Row(np_heaviside, STEP, normal(3, 4)), Row(np_heaviside, STEP, normal(4)),
    Row(np_heaviside, Arg("away", (3, 4)), normal()),
    Row(np_nan_to_num, Arg("grid_a", (3, 4)), normal(), normal()),
    Row(np_nan_to_num, Arg("grid_a", (5,)), Const(0.5), normal()),
    Row(nan_to_num_default, Arg("grid_a", (3, 4))),
    Row(angle_and_round, Arg("grid_a", (3, 4))),
    Row(np_ldexp, normal(3, 4), EXPONENTS), Row(np_ldexp, normal(3, 1), Const(np.array([2, -1, 0, 1]), "e[4]")),
    Row(np_ldexp, normal(), EXPONENTS), Row(ldexp_of_square, normal(4), Const(3)),
    Row(np_i0, normal(3, 4)), Row(np_i0, normal()), Row(i0_far, Arg("pos", (2, 5))),
    Row(rt_i1, normal(3, 4)), Row(rt_i1, Arg("pos", (4,))),
    # np.modf jumps at the integers: grid_a keeps x within 0.3 of k + 0.25
    Row(modf_parts, Arg("grid_a", (3, 4))), Row(modf_fraction, Arg("grid_a", ())),
    Row(modf_fraction, Arg("grid_a", (5,))),
]
BY_DIFFERENCES |= {"np_fmod", "np_copysign", "np_heaviside"}


# ---------------------------------------------------------------------------------------------
# layout
# ---------------------------------------------------------------------------------------------
def np_rot90(x, k, axes): return np.rot90(x, k, axes)
def rot90_default(x): return np.rot90(x)
def np_rollaxis(x, axis, start): return np.rollaxis(x, axis, start)
def np_diagflat(x, k): return np.diagflat(x, k)


LAYOUT_ROWS = [
    *[Row(np_rot90, normal(*shape), Const(k), Const(axes)) for shape, k, axes in [
        ((3, 4), 1, (0, 1)), ((3, 4), -1, (1, 0)), ((2, 3, 4), 2, (0, 2)), ((2, 3, 4), 3, (2, 1)),
        ((3, 4), 4, (0, 1))]],
    Row(rot90_default, normal(3, 4)),
    *[Row(np_rollaxis, normal(2, 3, 4), Const(axis), Const(start)) for axis, start in [
        (2, 0), (0, 3), (-1, 1), (1, -1), (0, 1)]],
    *[Row(np_diagflat, normal(*shape), Const(k)) for shape, k in [((3,), 0), ((2, 2), 1),
                                                                  ((3,), -2)]],
]
# rollaxis_order against NumPy's own np.rollaxis, on every axis and start
assert all(np.rollaxis(np.zeros((2, 3, 4, 5)), a, s).shape ==
           np.zeros((2, 3, 4, 5)).transpose(runtime.rollaxis_order(np.zeros((2, 3, 4, 5)), a, s)).shape
           for a in range(-4, 4) for s in range(-4, 5))


# ---------------------------------------------------------------------------------------------
# every row: reverse, forward, their transposition, second order
# ---------------------------------------------------------------------------------------------
ROWS = [*CUMULATIVE_ROWS, *STATISTICS_ROWS, *ELEMENTWISE_ROWS, *LAYOUT_ROWS]


@pytest.mark.parametrize("row", table(*ROWS))
def test_reverse(row):
    check_row(row)


@pytest.mark.parametrize("row", table(*ROWS))
def test_forward(row):
    check_tangent_row(row)


@pytest.mark.parametrize("row", table(*ROWS))
def test_vjp_and_jvp_are_transposes(row):
    core.test_vjp_and_jvp_are_transposes(row)


@pytest.mark.parametrize("row", table(*[r for r in ROWS if not r.fn.__name__.startswith("rt_")]))
def test_second_order(row):
    core.check_second_order_row(row, by_autograd=row.fn.__name__ not in BY_DIFFERENCES)


# the rows HIPS autograd has rules for (none for cumprod, the quantiles, the nan* reductions;
# its np.rot90 takes only the default axes, its np.rollaxis no negative axis)
AUTOGRAD_ROWS = [Row(np_sinc, normal(3, 4)), Row(nan_to_num_default, Arg("grid_a", (3, 4))),
                 Row(rot90_default, normal(3, 4)),
                 Row(np_rollaxis, normal(2, 3, 4), Const(2), Const(0))]


@pytest.mark.parametrize("row", table(*AUTOGRAD_ROWS))
def test_against_autograd(row):
    core.test_against_autograd(row)


def sinc_at_zero(x): return np.sum(np.sinc(x))


def test_sinc_at_zero_has_the_limit_slope():
    x = np.array([0.0, 0.5])
    assert ad.grad(sinc_at_zero)(x) == pytest.approx([0.0, (np.cos(np.pi / 2) - np.sinc(0.5)) / 0.5])


def test_sinc_second_derivative_at_zero():
    # 0 until 2026-11-25 (the slope's limit was taken, not its derivative's)
    assert ad.hvp(sinc_at_zero)(np.zeros(1), vector=np.ones(1)) == pytest.approx([-np.pi ** 2 / 3])
    assert ad.hessian(sinc_at_zero)(np.array([0.0, 0.5])) == pytest.approx(
        np.diag([-np.pi ** 2 / 3, -2 * np.pi + 16 / np.pi]))


def test_sinc_derivatives_near_zero_keep_their_digits():
    # the closed forms lose digits to cancellation near 0 (found by review 2026-11-25: the
    # second derivative was -pi^2 at 1e-9); near 0 they are Taylor series
    first = ad.grad(np.sinc)
    second, pi = ad.grad(first), np.pi
    third = ad.grad(second)
    fourth = ad.grad(runtime.sinc_third)        # grad of grad of grad of grad: issue 12
    for x in (0.0, 1e-9, 1e-4, 0.0099, 0.0101):
        p = pi * pi * x * x                      # Taylor series of sinc's derivatives
        assert first(x) == pytest.approx(-pi ** 2 * x * (1 / 3 - p / 30 + p * p / 840),
                                         rel=1e-9, abs=1e-300)
        assert second(x) == pytest.approx(-pi ** 2 * (1 / 3 - p / 10 + p * p / 168), rel=1e-9)
        # each order divides by x once more: the closed forms just past 1e-2 keep 8 digits
        assert third(x) == pytest.approx(pi ** 4 * x * (1 / 5 - p / 42 + p * p / 1080),
                                         rel=1e-7, abs=1e-300)
        assert fourth(x) == pytest.approx(pi ** 4 * (1 / 5 - p / 14 + p * p / 216), rel=1e-7)
    for x in (0.3, -1.7):
        assert third(x) == pytest.approx((second(x + 1e-5) - second(x - 1e-5)) / 2e-5, rel=1e-6)
        assert fourth(x) == pytest.approx((third(x + 1e-5) - third(x - 1e-5)) / 2e-5, rel=1e-6)


def test_every_rule_in_these_templates_has_a_row(monkeypatch):
    """A rule added to these templates without a row above fails here, in either mode."""
    def run():
        for row in ROWS:
            wrt = row.wrt[0] if len(row.wrt) == 1 else row.wrt
            ad.source(ad.vjp(row.fn, wrt=wrt))
            ad.source(ad.jvp(row.fn, wrt=wrt))
    untested = untested_rules(monkeypatch, MODULES, run)
    assert not untested, f"rules without a row: {untested}"


# ---------------------------------------------------------------------------------------------
# what the rules do not follow is refused, never differentiated wrongly
# ---------------------------------------------------------------------------------------------
def quantile_weighted(x): return np.quantile(x, 0.3, method="inverted_cdf", weights=x * 0 + 1)
def median_overwrite(x): return np.median(x, overwrite_input=True)
def nanmax_initial(x): return np.nanmax(x, initial=5.0)
def nanvar_where(x): return np.nanvar(x, where=x > 0)
def quantile_of_q(x, q): return np.quantile(x, q)


@pytest.mark.parametrize("fn, keyword", [
    (quantile_weighted, "weights"), (median_overwrite, "overwrite_input"),
    (nanmax_initial, "initial"), (nanvar_where, "where")])
def test_options_the_rules_do_not_follow_are_refused(fn, keyword):
    x = np.array([0.3, 1.2, -0.5, 2.0, 0.1])
    with pytest.raises(TransformError, match=f"`{keyword}`"):
        ad.grad(fn)(x)
    with pytest.raises(TransformError, match=f"`{keyword}`"):
        ad.jvp(fn)(x, tangent=np.ones(5))


def test_a_quantile_is_not_differentiated_with_respect_to_q():
    """The rules follow the entries only: a derivative through q is refused, not zero."""
    x = np.array([0.3, 1.2, -0.5, 2.0, 0.1])
    with pytest.raises(NotImplementedError, match="not q"):
        ad.grad(quantile_of_q, wrt=(0, 1))(x, 0.3)
    with pytest.raises(NotImplementedError, match="not q"):
        ad.jvp(quantile_of_q, wrt=1)(x, 0.3, tangent=1.0)
    assert ad.grad(quantile_of_q)(x, 0.3) == pytest.approx([0.2, 0.0, 0.0, 0.0, 0.8])


# ---------------------------------------------------------------------------------------------
# np.i0's derivative is I1, which SciPy has (an oracle s2s_ad had no part in), on both sides of
# runtime.i1's switch from its series to its expansion; np.modf at the integers, where it jumps
# ---------------------------------------------------------------------------------------------
def sum_i0(x): return np.sum(np.i0(x))
def sum_modf(x): return np.sum(np.modf(x)[0] * 2.0 + np.modf(x)[1])


def test_the_derivative_of_i0_is_scipys_i1():
    special = pytest.importorskip("scipy.special")
    x = np.array([-45.0, -29.9, -3.0, -1e-3, 0.0, 0.7, 12.0, 30.0, 30.5, 300.0])
    assert_close(ad.grad(sum_i0)(x), special.i1(x), rtol=1e-13, atol=0)
    curvature = special.i0(x) - np.where(x == 0, 0.5, special.i1(x) / np.where(x == 0, 1, x))
    assert_close(ad.hvp(sum_i0)(x, vector=np.ones_like(x)), curvature, rtol=1e-12, atol=0)


def test_modf_at_the_integers_takes_the_slope_between_them():
    """The fractional part has slope 1 everywhere but at its jumps; there too (the integral
    part, a step, has 0), as np.floor and np.trunc have 0 at theirs."""
    x = np.array([-2.0, 0.0, 1.0, 2.5])
    assert_close(ad.grad(sum_modf)(x), np.full(4, 2.0), rtol=0, atol=0)
    assert ad.jvp(sum_modf)(x, tangent=np.ones(4))[1] == 8.0
