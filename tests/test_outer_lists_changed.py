"""A list changed in place after a container took it in, then read through the container:
the container holds the list itself, so it sees the change. Found 2026-11-28: `outer =
[inner]; inner.append(v)`, then `outer[0][1]`, had a zero gradient in reverse mode, and a
helper that appended to `outer[0]` of a list passed in went unseen in both modes. Both are now
refused (before, a write by index was; a change by a method was not), with a hint that works."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode
from s2s_ad.errors import TransformError


def appended_after_stored(x):
    inner = [x]
    outer = [inner]
    inner.append(x * x)
    return np.sum(outer[0][1])


def popped_after_stored_in_a_dict(x):
    inner = [x, np.sin(x)]
    d = {"rows": inner}
    inner.pop()
    return np.sum(d["rows"][-1]) + len(d["rows"])


def appended_before_stored(x):            # the hint's rewrite
    inner = [x]
    inner.append(x * x)
    outer = [inner]
    return np.sum(outer[0][1])


def grow_the_first(outer, v):
    outer[0].append(v * 2)


def helper_appends_to_an_entry(x):
    inner = [x]
    outer = [inner]
    grow_the_first(outer, x * x)
    return np.sum(inner[-1])


X = np.array([0.3, -0.7, 1.2])


@pytest.mark.parametrize("fn, holder", [(appended_after_stored, "outer"),
                                        (popped_after_stored_in_a_dict, "d")])
@pytest.mark.parametrize("transform", [ad.grad, lambda f: ad.jvp(f)])
def test_a_change_seen_through_a_container_is_refused(fn, holder, transform):
    with pytest.raises(TransformError, match=f"`{holder}` holds `inner`") as err:
        transform(fn)(X, **({} if transform is ad.grad else {"tangent": X}))
    assert err.value.filename == __file__
    assert "before putting it there" in str(err.value)


def test_the_hint_differentiates():
    check_every_mode(appended_before_stored, X)


@pytest.mark.parametrize("transform", [ad.grad, lambda f: ad.jvp(f)])
def test_a_helper_changing_an_entry_of_its_argument_is_refused(transform):
    with pytest.raises(TransformError, match="`grow_the_first` writes into its argument `outer`"):
        transform(helper_appends_to_an_entry)(X, **({} if transform is ad.grad else {"tangent": X}))


def rows_built_in_a_loop(x):
    rows = []
    for i in range(3):
        row = []                          # a new list each step: the stored ones stay as they are
        row.append(x[i])
        row.append(np.sin(x[i]) * 2)
        rows.append(row)
    return sum(r[0] * r[1] for r in rows)


def row_changed_after_stored_in_a_loop(x):
    rows = []
    for i in range(3):
        row = [x[i]]
        rows.append(row)
        row.append(x[i] * 2)              # seen through rows
    return sum(r[0] * r[1] for r in rows)


def test_lists_built_then_stored_in_a_loop_are_differentiated():
    check_every_mode(rows_built_in_a_loop, X)


def test_a_list_changed_after_it_was_stored_in_a_loop_is_refused():
    with pytest.raises(TransformError, match="`rows` holds `row`"):
        ad.grad(row_changed_after_stored_in_a_loop)(X)
