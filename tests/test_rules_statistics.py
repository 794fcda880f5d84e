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
from s2s_ad import rules, runtime
from s2s_ad.errors import TransformError
from test_rules import Arg, Const, Row, check_row, check_tangent_row, normal, table

MODULES = ("cumulative",)


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
def rt_scan(b, a, axis): return runtime.scan(b, a, axis)
def rt_scan_back(g, a, axis): return runtime.scan_back(g, a, axis)
def rt_shift_along(v, axis): return runtime.shift_along(v, axis)
def rt_unshift_along(v, axis): return runtime.unshift_along(v, axis)
def rt_exclusive_products(y, axis): return runtime.exclusive_products(y, axis)
def rt_lanes(v, axis): return runtime.lanes(v, axis)
def rt_drop_initial(g, axis, include): return runtime.drop_initial(g, axis, include)
def rt_with_initial(g, axis, include): return runtime.with_initial(g, axis, include)


CUMULATIVE_ROWS = [
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
# every row: reverse, forward, their transposition, second order
# ---------------------------------------------------------------------------------------------
ROWS = [*CUMULATIVE_ROWS]


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


def test_every_rule_in_these_templates_has_a_row(monkeypatch):
    """A rule added to these templates without a row above fails here, in either mode."""
    used = set()
    for name in ("adjoint_rule", "tangent_rule"):
        lookup = getattr(rules, name)

        def spy(primal, lookup=lookup):
            rule = lookup(primal)
            if rule is not None:
                used.add(id(rule))
            return rule
        monkeypatch.setattr(rules, name, spy)
    ad.clear_cache()
    try:
        for row in ROWS:
            wrt = row.wrt[0] if len(row.wrt) == 1 else row.wrt
            ad.source(ad.vjp(row.fn, wrt=wrt))
            ad.source(ad.jvp(row.fn, wrt=wrt))
    finally:
        ad.clear_cache()
    modules = {f"s2s_ad.templates.{name}" for name in MODULES}
    untested = sorted({f"{mode}: {getattr(key, '__name__', None) or key!r}"
                       for mode, table_ in (("adjoint", rules.ADJOINTS), ("tangent", rules.TANGENTS))
                       for key, rule in table_.items()
                       if rule.template.__module__ in modules and id(rule) not in used})
    assert not untested, f"rules without a row: {untested}"
