"""The rules of templates/splitting.py, selection.py, insertion.py, grids.py and padding.py,
checked as tests/test_rules.py checks the core tables: every row in reverse mode and forward
mode against central differences, vjp against jvp by the dot-product identity, and second order
(hvp along a direction in every differentiated argument) against central differences of a
central-difference gradient; rows HIPS autograd can run are checked against it too.

Each row's function makes the pieces it splits off, picks or pads meet differently (reversed,
multiplied, squared), so an adjoint sent to the wrong piece cannot pass, and second order is
not trivially zero.
"""
import re

import numpy as np
import pytest

import s2s_ad as ad
import test_rules as core
from rule_coverage import rows_built, untested_rules
from fd import assert_close
from s2s_ad import runtime
from s2s_ad.errors import TransformError
from test_rules import Arg, Const, Row, check_row, check_tangent_row, normal, table
from test_rules_signals import _seeded as core_seeded
from test_rules_signals import test_second_order as check_second_order_in_every_argument

MODULES = ("splitting", "selection", "insertion", "grids", "padding")


# ---------------------------------------------------------------------------------------------
# splitting: the pieces come back as a list (np.unstack: a tuple)
# ---------------------------------------------------------------------------------------------
def np_split(x, sections, axis): return np.concatenate(np.split(x, sections, axis)[::-1], axis) * x
def array_split(x, sections, axis):
    return np.concatenate(np.array_split(x, sections, axis)[::-1], axis) * x
def split_default_axis(x): return np.concatenate(np.split(x, [1, 2])[::-1]) ** 2
def split_unpacked(x):
    a, b = np.split(x, 2)
    return a * np.sin(b)
def split_indexed(x): return np.split(x, [1, 3], axis=-1)[1] ** 2
def split_looped(x):
    total = 0.0
    scale = 1.0
    for piece in np.array_split(x, 3):
        total = total + scale * np.sum(piece ** 3)
        scale = scale + 1.0
    return total
def np_hsplit(x, sections): return np.concatenate(np.hsplit(x, sections)[::-1], -1) * x
def np_vsplit(x, sections): return np.concatenate(np.vsplit(x, sections)[::-1], 0) * x
def np_dsplit(x, sections): return np.concatenate(np.dsplit(x, sections)[::-1], 2) * x
def np_unstack(x, axis): return np.stack(np.unstack(x, axis=axis)[::-1], axis=axis) * x
def unstack_unpacked(x):
    a, b, c = np.unstack(x)
    return a * b + np.cos(c)


SPLIT_ROWS = [
    *[Row(np_split, normal(*shape), Const(sections), Const(axis)) for shape, sections, axis in [
        ((6,), 3, 0), ((6,), [1, 4], 0), ((4, 6), 2, 1), ((4, 6), [1, 3], -1), ((4, 3), 4, 0),
        ((4, 6), [2, 2, 5], 1)]],
    *[Row(array_split, normal(*shape), Const(sections), Const(axis)) for shape, sections, axis in [
        ((7,), 3, 0), ((5, 4), 3, 0), ((3, 5), 2, 1), ((3, 5), [1, 4], -1)]],
    Row(split_default_axis, normal(5, 2)), Row(split_unpacked, normal(6)),
    Row(split_unpacked, normal(4, 3)), Row(split_indexed, normal(2, 5)),
    Row(split_looped, normal(7)), Row(split_looped, normal(5, 2)),
    Row(np_hsplit, normal(6), Const(3)), Row(np_hsplit, normal(3, 4), Const([1, 3])),
    Row(np_vsplit, normal(4, 3), Const(2)), Row(np_vsplit, normal(3, 2, 2), Const([1])),
    Row(np_dsplit, normal(2, 3, 4), Const(2)), Row(np_dsplit, normal(2, 1, 5), Const([2, 3])),
    Row(np_unstack, normal(3, 4), Const(0)), Row(np_unstack, normal(2, 3, 4), Const(-1)),
    Row(np_unstack, normal(2, 3, 4), Const(1)), Row(unstack_unpacked, normal(3, 2)),
]


# ---------------------------------------------------------------------------------------------
# picking: np.select, np.choose, np.compress, np.extract (x on a grid at least 0.25 from the
# conditions' thresholds -0.5 and 0.5)
# ---------------------------------------------------------------------------------------------
def gridded(*shape):
    return Arg("clip_x", shape)


def np_select(x, y, default): return np.select([x > 0.5, x < -0.5], [x ** 2, y * x], default)
def select_broadcast(x, y, s): return np.select([x > 0.5, x < -0.5], [y, 2.0], s * x) ** 2
def select_default_zero(x): return np.select([x > 0.5], [x ** 3])
def select_array_of_choices(x, y):
    return np.select((x < -0.5, x > 0.5), np.stack([x, y]) ** 2, -1.0) * x
def np_choose(x, y, index): return np.choose(index, [x ** 2, y * x])
def choose_array(x, y): return np.choose(np.array([[1, 0, 2], [2, 1, 0]]), np.stack([x, y, x * y]))
def choose_mode(x, y, mode): return np.choose(np.array([[3, -1, 0], [1, 2, -2]]), [x, y ** 2], mode=mode) * x
def choose_broadcast(x, y): return np.choose(np.array([[0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 0, 1]]), [x, y]) ** 2
def np_compress(x, condition, axis): return np.compress(condition, x, axis) ** 2
def compress_method(x, condition, axis): return x.compress(condition, axis) * x.compress(condition[::-1], axis)
def np_extract(x, condition): return np.extract(condition, x * x) * 3.0
def extract_positive(x): return np.extract(x > 0, np.sin(x))


INDEX = Const(np.array([[0, 1, 1], [1, 0, 1]]), "index[2,3]")
SELECTION_ROWS = [
    Row(np_select, gridded(3, 4), normal(3, 4), normal(3, 4)),
    Row(np_select, gridded(5), normal(), normal()),
    Row(np_select, gridded(5), normal(5), Const(0.0)),
    Row(select_broadcast, gridded(3, 4), normal(4), normal()),
    Row(select_default_zero, gridded(2, 5)), Row(select_array_of_choices, gridded(6), normal(6)),
    Row(np_choose, normal(2, 3), normal(2, 3), INDEX),
    Row(np_choose, normal(3), normal(2, 3), INDEX),
    Row(choose_array, normal(2, 3), normal(2, 3)),
    Row(choose_mode, normal(2, 3), normal(2, 3), Const("wrap")),
    Row(choose_mode, normal(2, 3), normal(3), Const("clip")),
    Row(choose_broadcast, normal(4), normal(3, 1)),
    *[Row(np_compress, normal(*shape), Const(condition), Const(axis))
      for shape, condition, axis in [((3, 4), [True, False, True], 0),
                                     ((3, 4), [False, True, True], 1),
                                     ((3, 4), [True, False, False, True, True], None),
                                     ((5,), np.array([1, 0, 1, 1, 0]), 0)]],
    *[Row(compress_method, normal(*shape), Const(condition), Const(axis))
      for shape, condition, axis in [((3, 4), [True, False, True], 0),
                                     ((2, 3, 4), np.array([0, 1, 1, 0]), -1),
                                     ((5,), [True, True, False, False, True], None)]],
    Row(np_extract, normal(3, 4), Const(np.arange(12).reshape(3, 4) % 3 == 0, "every_third")),
    Row(np_extract, normal(6), Const(np.array([1, 0, 0, 2, 0, 1]), "nonzero[6]")),
    Row(extract_positive, normal(3, 4)),
]


# ---------------------------------------------------------------------------------------------
# adding and removing entries: np.append, np.insert (both linear in the array and the values),
# np.delete
# ---------------------------------------------------------------------------------------------
def np_append(x, values, axis): return np.append(x, values, axis) ** 2
def append_default(x): return np.append(x, 2.0 * x[0]) * np.append(x[::-1], 1.0)
def np_insert(x, obj, values, axis): return np.insert(x, obj, values, axis) ** 2
def insert_constant(x, obj): return np.insert(x, obj, 5.0) * np.insert(x ** 2, obj, -1.0)
def np_delete(x, obj, axis): return np.delete(x, obj, axis) ** 2


INSERTION_ROWS = [
    Row(np_append, normal(4), normal(), Const(None)),
    Row(np_append, normal(2, 3), normal(3), Const(None)),
    Row(np_append, normal(2, 3), normal(1, 3), Const(0)),
    Row(np_append, normal(2, 3), normal(2, 2), Const(1)),
    Row(np_append, normal(2, 3), normal(2, 3), Const(-1)),
    Row(append_default, normal(4)),
    *[Row(np_insert, normal(*shape), Const(obj), values, Const(axis))
      for shape, obj, values, axis in [
          ((4,), 1, normal(), None), ((4,), [0, 2, 4], normal(3), None),
          ((4,), [1, 1], normal(), None), ((2, 3), 2, normal(), None),
          ((2, 3), 1, normal(2), 1), ((2, 3), [1], normal(2, 1), 1),
          ((2, 3), 1, normal(2, 1), 1), ((3, 2), [0, 3], normal(2), 0),
          ((3, 2), slice(0, 2), normal(2, 2), 0), ((2, 3), -1, normal(3), 0)]],
    Row(insert_constant, normal(4), Const(2)), Row(insert_constant, normal(2, 3), Const([0, 5])),
    *[Row(np_delete, normal(*shape), Const(obj), Const(axis)) for shape, obj, axis in [
        ((5,), 1, None), ((5,), [0, 3], None), ((5,), slice(1, 4, 2), 0), ((3, 4), 5, None),
        ((3, 4), [0, 2], 1), ((3, 4), -1, 0), ((3, 4), np.array([True, False, True, False]), -1),
        ((2, 3, 2), slice(None, None, 2), 1)]],
]


# ---------------------------------------------------------------------------------------------
# np.meshgrid
# ---------------------------------------------------------------------------------------------
def np_meshgrid(x, y, indexing):
    a, b = np.meshgrid(x, y, indexing=indexing)
    return a * np.sin(b) + b ** 2
def meshgrid_three(x, y, z, indexing):
    a, b, c = np.meshgrid(x, y, z, indexing=indexing)
    return a * b * c + c ** 2
def meshgrid_sparse(x, y):
    a, b = np.meshgrid(x, y, sparse=True)
    return a * np.cos(b)
def meshgrid_no_copy(x, y):
    grid = np.meshgrid(x ** 2, y, copy=False, indexing="ij")
    return grid[0] * grid[1]
def meshgrid_one_read(x, y): return np.meshgrid(x, y)[1] ** 2


GRID_ROWS = [
    Row(np_meshgrid, normal(3), normal(4), Const("xy")),
    Row(np_meshgrid, normal(3), normal(4), Const("ij")),
    Row(np_meshgrid, normal(2, 2), normal(3), Const("xy")),
    Row(meshgrid_three, normal(2), normal(3), normal(4), Const("xy")),
    Row(meshgrid_three, normal(2), normal(3), normal(4), Const("ij")),
    Row(meshgrid_sparse, normal(3), normal(2)), Row(meshgrid_no_copy, normal(3), normal(2)),
    Row(meshgrid_one_read, normal(3), normal(2)),
]


# ---------------------------------------------------------------------------------------------
# np.pad in the modes that pad with copies of entries (widths past the array's size reflect and
# wrap more than once)
# ---------------------------------------------------------------------------------------------
def np_pad(x, width, mode): return np.pad(x, width, mode=mode) ** 2
def pad_positional(x): return np.pad(x, ((1, 1), (0, 2)), "symmetric") * np.pad(x, 1, "edge")
def pad_reflect_even(x): return np.pad(x, (2, 3), mode="reflect", reflect_type="even") ** 3


PAD_ROWS = [
    *[Row(np_pad, normal(*shape), Const(width), Const(mode))
      for mode in ("edge", "reflect", "symmetric", "wrap")
      for shape, width in [((4,), 2), ((3,), (5, 7)), ((3, 4), ((1, 2), (3, 0))),
                           ((2, 3, 2), 1)]],
    Row(np_pad, normal(3, 4), Const(((1, 0), (2, 3))), Const("constant")),
    Row(pad_positional, normal(3, 4)), Row(pad_reflect_even, normal(4)),
]


# ---------------------------------------------------------------------------------------------
# the helpers the derivatives call, checked on their own (their rules serve second order)
# ---------------------------------------------------------------------------------------------
CONDITIONS = Const([np.array([True, False, False, True]), np.array([False, True, False, True])],
                   "conditions")


def rt_chosen(g, condlist, k, like): return runtime.chosen(g, condlist, k, like)
def rt_select_grad(g, condlist, choicelist):
    return np.concatenate([np.ravel(part) for part in runtime.select_grad(g, condlist, choicelist)])
def rt_choose_grad(g, a, choices, mode):
    return np.concatenate([np.ravel(part) for part in runtime.choose_grad(g, a, choices, mode)])
def rt_insert_part_grad(g, arr, obj, values, axis, part):
    return runtime.insert_part_grad(g, arr, obj, values, axis, part)
def rt_insert_place(u, arr, obj, values, axis, part):
    return runtime.insert_place(u, arr, obj, values, axis, part)
def rt_unmesh(g, k, x, indexing): return runtime.unmesh(g, k, x, indexing)
def rt_remesh(u, g, k, indexing): return runtime.remesh(u, g, k, indexing)
def rt_unpad(g, array, width, mode): return runtime.unpad(g, array, width, mode)
def rt_repad(u, array, width, mode): return runtime.repad(u, array, width, mode)


def zeros(*shape):
    return Const(np.zeros(shape), f"zeros{list(shape)}")


HELPER_ROWS = [
    Row(rt_chosen, normal(4), CONDITIONS, Const(1), zeros(4)),
    Row(rt_chosen, normal(3, 4), CONDITIONS, Const(-1), zeros(1, 4)),
    Row(rt_select_grad, normal(4), CONDITIONS, Const([np.zeros(4), 0.0], "[zeros[4],0.0]")),
    Row(rt_select_grad, normal(2, 4), CONDITIONS, zeros(2, 1, 4)),
    Row(rt_choose_grad, normal(2, 3), INDEX, Const([np.zeros(3), np.zeros((2, 1))], "[...]"),
        Const("raise")),
    Row(rt_choose_grad, normal(2, 3), Const(np.array([[2, -1, 0], [1, 3, 0]]), "index"),
        zeros(2, 2, 3), Const("wrap")),
    *[Row(rt_insert_part_grad, normal(*shape), zeros(*arr), Const(obj), zeros(*values),
          Const(axis), Const(part)) for part in ("arr", "values")
      for shape, arr, obj, values, axis in [
          ((6,), (4,), [1, 1], (), None), ((2, 5), (2, 3), 1, (2, 1), 1)]],
    *[Row(rt_insert_place, normal(*shape), zeros(*arr), Const(obj), zeros(*values), Const(axis),
          Const(part)) for part, shape in (("arr", (2, 3)), ("values", (2, 1)))
      for arr, obj, values, axis in [((2, 3), 1, (2, 1), 1), ((2, 3), [0, 3], (2, 1), 1)]],
    Row(rt_unmesh, normal(3, 4), Const(0), zeros(4), Const("xy")),
    Row(rt_unmesh, normal(2, 3, 4), Const(2), zeros(2, 2), Const("ij")),
    Row(rt_remesh, normal(4), zeros(3, 4), Const(1), Const("ij")),
    Row(rt_remesh, normal(2), zeros(3, 2, 4), Const(0), Const("xy")),
    *[Row(rt_unpad, normal(*shape), zeros(*array), Const(width), Const(mode))
      for mode, shape, array, width in [
          ("constant", (5, 6), (3, 4), 1), ("edge", (7,), (3,), (1, 3)),
          ("reflect", (4, 8), (3, 4), ((0, 1), (2, 2))), ("symmetric", (8,), (2,), 3),
          ("wrap", (3, 7), (3, 4), ((0, 0), (2, 1)))]],
    *[Row(rt_repad, normal(*shape), zeros(*shape), Const(width), Const(mode))
      for mode, shape, width in [("constant", (3, 4), 1), ("reflect", (3,), (2, 4)),
                                 ("wrap", (2, 3), ((1, 1), (0, 4)))]],
]


# the tangent template's helper, and the helpers of its adjoint
def rt_meshgrid_tangent(x, y): return np.stack(runtime.meshgrid_tangent((x, y), (x * y, None)))
def rt_meshgrid_tangent_sparse(x, y):
    a, b = runtime.meshgrid_tangent((x, y), (None, y ** 2), True, True, "ij")
    return a * b
def rt_unmesh_all(g, h, xi):
    parts = runtime.unmesh_all([g, None, h], xi, "xy")
    return np.concatenate([parts[0], parts[2]])
def rt_remesh_all(u, v, grids):
    parts = runtime.remesh_all([u, v, None], grids, "ij")
    return parts[0] * parts[1]


GRIDS = Const((np.zeros((3, 4, 2)),) * 3, "(zeros[3,4,2],)*3")
HELPER_ROWS += [Row(rt_meshgrid_tangent, normal(3), normal(3)),
                Row(rt_meshgrid_tangent_sparse, normal(3), normal(2)),
                Row(rt_unmesh_all, normal(3, 4, 2), normal(3, 4, 2),
                    Const((np.zeros(4), np.zeros(3), np.zeros(2)), "(zeros[4],zeros[3],zeros[2])")),
                Row(rt_remesh_all, normal(3), normal(4), GRIDS)]

# ---------------------------------------------------------------------------------------------
# every row: reverse, forward, their transposition, second order
# ---------------------------------------------------------------------------------------------
ROWS = [*SPLIT_ROWS, *SELECTION_ROWS, *INSERTION_ROWS, *GRID_ROWS, *PAD_ROWS]


@pytest.mark.parametrize("row", table(*ROWS, *HELPER_ROWS))
def test_reverse(row):
    check_row(row)


@pytest.mark.parametrize("row", table(*ROWS, *HELPER_ROWS))
def test_forward(row):
    check_tangent_row(row)


@pytest.mark.parametrize("row", table(*ROWS, *HELPER_ROWS))
def test_vjp_and_jvp_are_transposes(row):
    core.test_vjp_and_jvp_are_transposes(row)


@pytest.mark.parametrize("row", table(*ROWS))
def test_second_order(row):
    check_second_order_in_every_argument(row)


# HIPS autograd has the split family, np.append and np.select (np.pad in constant mode only;
# no VJP for np.unstack, choose, insert, delete, compress, extract or meshgrid)
AUTOGRAD_ROWS = [
    Row(np_split, normal(4, 6), Const([1, 3]), Const(-1)),
    Row(array_split, normal(5, 4), Const(3), Const(0)), Row(split_unpacked, normal(6)),
    Row(np_hsplit, normal(3, 4), Const([1, 3])), Row(np_vsplit, normal(4, 3), Const(2)),
    Row(np_dsplit, normal(2, 3, 4), Const(2)),
    Row(np_append, normal(2, 3), normal(2, 2), Const(1)), Row(append_default, normal(4)),
    Row(np_select, gridded(3, 4), normal(3, 4), normal(3, 4)),
]


@pytest.mark.parametrize("row", table(*AUTOGRAD_ROWS))
def test_against_autograd(row):
    core.test_against_autograd(row)


def test_every_rule_in_these_templates_has_a_row(monkeypatch):
    """An adjoint or tangent rule added to these templates without a row that reaches it
    fails here."""
    built = rows_built(ROWS + HELPER_ROWS, second_order_rows=ROWS, seeded=core_seeded)
    untested = untested_rules(monkeypatch, MODULES, built)
    assert not untested, f"rules without a row: {untested}"


# ---------------------------------------------------------------------------------------------
# what the rules do not differentiate is refused, never differentiated wrongly
# ---------------------------------------------------------------------------------------------
def pad_reflect_odd(x): return np.pad(x, 2, mode="reflect", reflect_type="odd")
def pad_symmetric_odd(x): return np.pad(x, 2, "symmetric", reflect_type="odd")
def compress_out(x): return np.compress([True, False, True, True], x, out=np.zeros(3))
def choose_out(x): return np.choose([0, 1, 0, 1], [x, x * 2], out=np.zeros(4))


@pytest.mark.parametrize("fn, words", [
    # every mode NumPy names is differentiated (tests/test_pad_from_values.py); a callable
    # mode is refused when it runs (test_a_pad_mode_held_in_a_variable_...)
    (pad_reflect_odd, "reflect_type='odd'"),
    (pad_symmetric_odd, "reflect_type='odd'"), (compress_out, "out="), (choose_out, "out=")])
def test_options_the_rules_do_not_follow_are_refused_at_transform_time(fn, words):
    x = np.array([0.3, 1.2, -0.5, 2.0])
    with pytest.raises(TransformError, match=re.escape(words)):
        ad.vjp(fn)(x, seed=np.ones(np.shape(fn(x))))
    with pytest.raises(TransformError, match=re.escape(words)):
        ad.jvp(fn)(x, tangent=np.ones(4))


def pad_with_mode(x, mode): return np.sum(np.pad(x, 2, mode=mode) ** 2)


def test_a_pad_mode_held_in_a_variable_is_checked_when_the_derivative_runs():
    x = np.array([0.3, 1.2, -0.5, 2.0])
    expected = 2 * x * np.array([1.0, 3.0, 3.0, 1.0])     # [c b a b c d c b] from [a b c d]
    assert_close(ad.grad(pad_with_mode)(x, "reflect"), expected, rtol=1e-12)
    # refused at the user's line (a NotImplementedError from the runtime until 2026-11-29)
    with pytest.raises(TransformError, match="mode 'mean' is differentiated where the call"):
        ad.grad(pad_with_mode)(x, "mean")
    with pytest.raises(TransformError, match="mode 'mean' is differentiated where the call"):
        ad.jvp(pad_with_mode)(x, "mean", tangent=np.ones(4))
