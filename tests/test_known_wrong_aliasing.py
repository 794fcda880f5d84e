"""Issue 15's "wrong today" list about in-place writes, views and aliasing: each program here
got a silently wrong derivative until 2026-11-28. Each is now right (checked against central
differences on the plain NumPy function, whose semantics define it) or refused with an error
at the user's line; never a wrong number. Both modes, and the hessian where it is cheap."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.errors import SharedUpdate

X = np.array([0.5, -1.2, 0.8, 1.5, 0.3, -0.7])


def derivatives_or_refusal(fn, x, modes=("grad", "jvp")):
    """{mode: the derivative, or the TransformError raised}, each checked against central
    differences where it is a number."""
    expected = numerical_grad(fn, [x.copy()], 0)
    found = {}
    for mode in modes:
        try:
            if mode == "grad":
                found[mode] = ad.grad(fn)(x.copy())
                assert_close(found[mode], expected, rtol=1e-5, atol=1e-6)
            elif mode == "jvp":
                tangent = np.linspace(0.3, 1.1, x.size)
                value, found[mode] = ad.jvp(fn)(x.copy(), tangent=tangent)
                assert value == pytest.approx(fn(x.copy()))
                assert found[mode] == pytest.approx(expected @ tangent, rel=1e-5, abs=1e-6)
            else:
                found[mode] = ad.hessian(fn)(x.copy())
                assert_close(found[mode], _hessian_by_differences(fn, x), rtol=1e-3, atol=1e-4)
        except ad.TransformError as error:
            assert error.filename == __file__, error
            found[mode] = error
    return found


def _hessian_by_differences(fn, x, eps=1e-4):
    columns = []
    for i in range(x.size):
        step = np.eye(x.size)[i] * eps
        columns.append((numerical_grad(fn, [x + step], 0) - numerical_grad(fn, [x - step], 0))
                       / (2 * eps))
    return np.stack(columns, axis=1)


# `a += ...` while a view made by a NumPy function (not a method) is live --------------------
def update_under_np_reshape(x):
    a = np.reshape(x, (2, 3)) * 1.0
    v = np.reshape(a, (3, 2))
    a += x[0] * 2.0
    return np.sum(v * v) + np.sum(a)


def update_under_np_transpose(x):
    a = np.reshape(x, (2, 3)) * 1.0
    v = np.transpose(a)
    a += x[0] * 2.0
    return np.sum(v * v) + np.sum(a)


def update_under_np_ravel(x):
    a = np.reshape(x, (2, 3)) * 1.0
    v = np.ravel(a)
    a += x[0] * 2.0
    return np.sum(v * v) + np.sum(a)


def update_under_np_squeeze(x):
    a = np.reshape(x, (1, 6)) * 1.0
    v = np.squeeze(a)
    a *= x[0]
    return np.sum(v * v) + np.sum(a)


def update_under_np_swapaxes(x):
    a = np.reshape(x, (2, 3)) * 1.0
    v = np.swapaxes(a, 0, 1)
    a += x[0] * 2.0
    return np.sum(v * v) + np.sum(a)


def update_under_np_diagonal(x):
    a = np.reshape(x, (2, 3)) * 1.0
    v = np.diagonal(a)
    a += x[0] * 2.0
    return np.sum(v * v) + np.sum(a)


def update_under_a_view_in_a_loop(x):
    a = np.reshape(x, (2, 3)) * 1.0
    s = 0.0
    for k in range(2):
        v = np.transpose(a)
        a += x[k] * 2.0
        s = s + np.sum(v * v)
    return s


def update_under_a_view_in_a_list(x):
    a = x * 1.0
    vs = [np.transpose(a)]
    a += x[0] * 2.0
    return np.sum(vs[0] * vs[0]) + np.sum(a)


@pytest.mark.parametrize("fn", [update_under_np_reshape, update_under_np_transpose,
                                update_under_np_ravel, update_under_np_squeeze,
                                update_under_np_swapaxes, update_under_np_diagonal,
                                update_under_a_view_in_a_loop, update_under_a_view_in_a_list])
def test_an_update_under_a_view_made_by_a_numpy_function(fn):
    # wrong until 2026-11-28: np.reshape(a, ...) was read as the method `reshape` of `np`, so
    # the view was taken for no alias of `a`
    found = derivatives_or_refusal(fn, X)
    for error in found.values():
        assert isinstance(error, SharedUpdate) and "and `v" in str(error)


def view_updated_through_np_ravel(x):
    a = x * 1.0
    v = np.ravel(a)
    v *= x[0]
    return np.sum(a * a)


def test_an_update_of_a_view_names_its_array_not_the_module():
    found = derivatives_or_refusal(view_updated_through_np_ravel, X)
    for error in found.values():
        assert isinstance(error, SharedUpdate) and "and `a` may be" in str(error)


def fresh_array_viewed_by_np_transpose(x):
    a = np.reshape(x, (2, 3)) * 1.0
    a += x[0] * 2.0
    v = np.transpose(a)               # bound after the update: it sees the updated array
    return np.sum(v * v * x[1])


def test_a_view_bound_after_the_update_is_differentiated():
    found = derivatives_or_refusal(fresh_array_viewed_by_np_transpose, X, ("grad", "jvp", "hessian"))
    assert not any(isinstance(d, Exception) for d in found.values())


# `for r in buf:` while the body writes into `buf` ---------------------------------------------
def rows_walked_while_the_row_is_rewritten(x):
    buf = np.reshape(x, (3, 2)) * 1.0
    s = 0.0
    for r in buf:
        buf[0] = buf[0] * 3.0
        s = s + np.sum(r * r)
    return s


def rows_walked_while_a_later_row_is_updated(x):
    buf = np.reshape(x, (3, 2)) * 1.0
    s = 0.0
    for r in buf:
        buf[2] += r
        s = s + np.sum(r * buf[2])
    return s


def rows_walked_while_the_next_row_is_written(x):
    buf = np.reshape(x, (3, 2)) * 1.0
    s = 0.0
    i = 0
    for r in buf:
        if i < 2:
            buf[i + 1] = buf[i + 1] + r * 2.0
        s = s + np.sum(r * r)
        i = i + 1
    return s


def entries_walked_while_the_next_is_written(x):
    buf = x * 1.0
    s = 0.0
    i = 0
    for r in buf:
        if i < 5:
            buf[i + 1] = buf[i + 1] * r
        s = s + r
        i = i + 1
    return s


def entries_walked_while_all_are_halved(x):
    buf = x * 1.0
    s = 0.0
    for r in buf:
        buf[:] = buf * 0.5
        s = s + r * r
    return s


@pytest.mark.parametrize("fn", [rows_walked_while_the_next_row_is_written,
                                entries_walked_while_the_next_is_written,
                                entries_walked_while_all_are_halved])
def test_a_loop_over_an_array_its_body_writes_into(fn):
    # wrong until 2026-11-28 in forward mode: the rows' tangents came from zip(buf, dbuf),
    # which walked the tangent the loop started with after a write had made dbuf a copy;
    # now the loop reads row i of buf and of its tangent as it reaches it, as NumPy does
    found = derivatives_or_refusal(fn, X, ("grad", "jvp", "hessian"))
    assert not any(isinstance(d, Exception) for d in found.values()), found


@pytest.mark.parametrize("fn", [rows_walked_while_the_row_is_rewritten,
                                rows_walked_while_a_later_row_is_updated])
def test_a_row_the_loop_holds_written_before_it_is_read_is_refused(fn):
    # wrong until 2026-11-28 in both modes: the row `r`, a view, sees the write
    found = derivatives_or_refusal(fn, X, ("grad", "jvp", "hessian"))
    for error in found.values():
        assert isinstance(error, ad.TransformError), found
        assert "this write into `buf` changes `r`, a view of it" in str(error)
        assert "for r in buf.copy():" in error.hint
        assert error.lineno == fn.__code__.co_firstlineno + 4


# overlapping self-assignment ------------------------------------------------------------------
def row_assigned_from_an_overlapping_column(x):
    buf = np.reshape(x, (4, 4)) * 1.0
    buf[1] = buf[:, 3]
    return np.sum(buf * buf * x.reshape(4, 4))


def row_of_an_outer_product_from_its_column(x):
    # np.outer's dtype is not known when the code is made: the store converts its value
    # (stored_as), which hid the view from the check until 2026-11-29 (a wrong gradient)
    buf = np.outer(x[:4], x[4:8])
    buf[1] = buf[:, 3]
    return np.sum(buf * buf * x.reshape(4, 4))


def row_assigned_from_a_copy_of_the_column(x):
    buf = np.reshape(x, (4, 4)) * 1.0
    buf[1] = buf[:, 3].copy()
    return np.sum(buf * buf * x.reshape(4, 4))


def entries_shifted_along(x):
    buf = x * 1.0
    buf[1:] = buf[:-1]                # overlapping, and copied as a copy would be
    return np.sum(buf * buf * x)


def transposed_into_itself(x):
    buf = np.reshape(x, (4, 4)) * 1.0
    buf[:] = buf.T
    return np.sum(buf * x.reshape(4, 4))


X16 = np.linspace(-1.3, 1.7, 16) ** 2 - 0.4


@pytest.mark.parametrize("fn", [row_assigned_from_an_overlapping_column,
                                row_of_an_outer_product_from_its_column])
def test_an_overlapping_self_assignment_is_refused(fn):
    # wrong until 2026-11-28 (both modes): NumPy copies buf[:, 3] into buf[1] back to front,
    # reading buf[1, 3] after writing it; the derivative followed a copy
    found = derivatives_or_refusal(fn, X16)
    for error in found.values():
        assert isinstance(error, ad.TransformError), found
        assert "`buf[1] = buf[:, 3]` reads memory it writes into" in str(error)
        assert error.hint == "assign a copy: `buf[1] = buf[:, 3].copy()`"


@pytest.mark.parametrize("fn", [row_assigned_from_a_copy_of_the_column, entries_shifted_along,
                                transposed_into_itself])
def test_a_self_assignment_numpy_copies_as_a_copy_is_differentiated(fn):
    found = derivatives_or_refusal(fn, X16)
    assert not any(isinstance(d, Exception) for d in found.values()), found


# an in-place call whose result is assigned ----------------------------------------------------
def copyto_assigned(x):
    y = x * 2.0
    _ = np.copyto(y, x * x)
    return np.sum(y)


def put_assigned(x):
    y = x * 2.0
    r = np.put(y, [0, 1], x[2:4])
    return np.sum(y * y)


def fill_assigned(x):
    y = x * 2.0
    r = y.fill(3.0)
    return np.sum(y * x)


def sort_assigned(x):
    y = x * 2.0
    r = y.sort()
    return np.sum(y * x)


@pytest.mark.parametrize("fn", [copyto_assigned, put_assigned, fill_assigned, sort_assigned])
def test_an_in_place_call_whose_result_is_assigned(fn):
    # wrong until 2026-11-28: the unused assignment was dropped as dead code, with the write
    found = derivatives_or_refusal(fn, X)
    for error in found.values():
        assert isinstance(error, ad.TransformError) and "whose result is never read" in str(error)
        assert error.lineno == fn.__code__.co_firstlineno + 2


# a list changed through another name ----------------------------------------------------------
def appended_through_an_alias_in_a_loop(x):
    hs = [x[0]]
    alias = hs
    for k in range(3):
        alias.append(hs[-1] * x[k + 1])
    return hs[-1]


def appended_through_an_alias(x):
    hs = [x[0]]
    alias = hs
    alias.append(x[1] * 3.0)
    return np.sum(np.array(hs) ** 2)


def extended_through_an_alias(x):
    hs = [x[0]]
    alias = hs
    alias.extend([x[1], x[2]])
    return np.sum(np.array(hs) ** 2)


def grown_with_plus_equals_through_an_alias(x):
    hs = [x[0]]
    alias = hs
    alias += [x[1] * 2.0]
    return np.sum(np.array(hs) ** 2)


def grow(h, v):
    h.append(v * 2.0)


def appended_by_a_helper(x):
    hs = [x[0]]
    grow(hs, x[1])
    return np.sum(np.array(hs) ** 2)


def appended_to_a_dict_entry(x):
    d = {"h": [x[0]]}
    hs = d["h"]
    hs.append(x[1] * 3.0)
    return np.sum(np.array(d["h"]) ** 2)


def appended_to_a_list_in_a_list(x):
    hs = [x[0]]
    outer = [hs]
    outer[0].append(x[1] * 3.0)
    return np.sum(np.array(hs) ** 2)


def popped_through_an_alias(x):
    hs = [x[0] * 2.0, x[1], x[2]]
    alias = hs
    v = alias.pop(0)
    return v * hs[0] + alias[1] * x[3]


@pytest.mark.parametrize("fn", [appended_through_an_alias_in_a_loop, appended_through_an_alias,
                                extended_through_an_alias, grown_with_plus_equals_through_an_alias,
                                popped_through_an_alias])
def test_a_list_changed_through_another_plain_name_is_differentiated(fn):
    # refused from 2026-11-28 until ResyncContainerAliases (the same day) bound the other
    # name again after the change: each mode is checked against central differences
    found = derivatives_or_refusal(fn, X, ("grad", "jvp", "hessian"))
    assert not any(isinstance(d, Exception) for d in found.values()), found


@pytest.mark.parametrize("fn, words", [
    (appended_by_a_helper, "`grow` writes into its argument `h` in place"),
    (appended_to_a_dict_entry, "in-place write into `hs`"),
    (appended_to_a_list_in_a_list, "in-place write into `outer[0]`")])
def test_a_list_changed_through_another_name(fn, words):
    # wrong until 2026-11-28 (both modes): the change was taken for one of a list of its own
    found = derivatives_or_refusal(fn, X, ("grad", "jvp", "hessian"))
    for error in found.values():
        assert isinstance(error, ad.TransformError) and words in str(error), found


def appended_to_a_sliced_copy(x):
    hs = [x[0], x[1]]
    ys = hs[:]                        # a list's slice is a copy
    ys.append(x[2] * 3.0)
    return np.sum(np.array(hs) ** 2) + ys[-1] * ys[0]


def test_a_list_changed_through_its_copy_is_differentiated():
    found = derivatives_or_refusal(appended_to_a_sliced_copy, X, ("grad", "jvp", "hessian"))
    assert not any(isinstance(d, Exception) for d in found.values()), found


# neighbours -------------------------------------------------------------------------------------
def reshape_of_an_expression_written(x):
    buf = np.reshape(x * 1.0, (3, 2))     # a view of a new array nothing else names
    buf[0] = buf[0] * 2.0
    return np.sum(buf * buf)


def another_row_written_under_a_view(x):
    a = np.reshape(x, (2, 3)) * 1.0
    v = a[0]
    a[1, 1] = x[0] * x[5]
    return np.sum(v * v)


def slice_kept_in_a_loop_past_writes_beside_it(x):
    a = x * 1.0
    v = a[0:3]
    s = 0.0
    for k in range(3):
        s = s + np.sum(v * v)
        a[3 + k] += a[k]
    return s


@pytest.mark.parametrize("fn", [reshape_of_an_expression_written,
                                another_row_written_under_a_view,
                                slice_kept_in_a_loop_past_writes_beside_it])
def test_writes_beside_a_view_or_into_a_view_of_a_new_array_are_differentiated(fn):
    # all refused until 2026-11-28: a view of a temporary counted as a second name for it,
    # and a view read after any write into its array was refused
    found = derivatives_or_refusal(fn, X, ("grad", "jvp", "hessian"))
    assert not any(isinstance(d, Exception) for d in found.values()), found


def view_made_by(make):
    def f(x):
        a = np.reshape(x, (2, 3)) * 1.0
        v = make(a)
        a[0, 0] = x[1] * 4.0
        return np.sum(v * v * v)
    f.__name__ = f"written_under_{make.__name__}"
    return f


def as_expand_dims(a):
    return np.expand_dims(a, 0)


def as_atleast_3d(a):
    return np.atleast_3d(a)


def as_broadcast(a):
    return np.broadcast_to(a, (2, 2, 3))


def as_flip(a):
    return np.flip(a)


def as_reversed(a):
    return a[::-1]


def as_moveaxis(a):
    return np.moveaxis(a, 0, 1)


def as_view(a):
    return a.T.T


@pytest.mark.parametrize("make", [as_expand_dims, as_atleast_3d, as_broadcast, as_flip,
                                  as_reversed, as_moveaxis, as_view])
def test_a_write_under_a_view_made_by_a_helper_is_refused(make):
    fn = view_made_by(make)
    found = derivatives_or_refusal(fn, X)
    for error in found.values():
        assert isinstance(error, ad.TransformError), found
        assert "changes `v`, a view of it" in str(error)
