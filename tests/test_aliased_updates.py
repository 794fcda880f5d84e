"""`z op= v` where another name read later may hold z's array: s2s_ad differentiates the update
as `z = z op v`, exact only where no other name shares z's memory. Where every such name is
bound at the update, the check runs on the values (decided as the program runs): a fresh array
is differentiated, a shared one refused with the user's line. Checked against central
differences in both modes."""
import gast
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.analysis.aliasing import MayAlias, live_after
from s2s_ad.errors import SharedUpdate


def alias_chosen_at_run_time(x, k):
    z = x * 1.0
    w = z if k > 0 else x * 2.0       # w is z's array only when k > 0
    z += 1.0
    return np.sum(w * z)


def alias_in_a_dict(x, k):
    p = {"W": x * 2.0, "b": x * 3.0}
    z = p["W"] if k > 0 else x * 1.0
    z *= 3.0
    return np.sum(p["W"] * z)


def alias_in_a_list(x, k):
    z = x * 1.0
    held = [x * 2.0, z if k > 0 else x * 4.0]
    z -= 0.5
    return np.sum(held[1] * z) + np.sum(held[0])


def alias_bound_after_the_update(x):
    z = x * 1.0
    for _ in range(2):
        z += 1.0                      # `w` is not bound here on the first trip
        w = z
    return np.sum(w * z)


def copied_into_then_updated(x, A):
    y = x * 1.0
    y[0] = A[0, 1]                    # copies a number into y: y does not hold A
    for row in A:
        y -= row * 0.5
    return np.sum(y ** 2) + np.sum(A)


X = np.array([0.4, -1.3, 0.8])
A = np.array([[0.5, -0.2, 0.9], [1.1, 0.3, -0.7]])


@pytest.mark.parametrize("fn", [alias_chosen_at_run_time, alias_in_a_dict, alias_in_a_list])
def test_an_update_of_a_fresh_array_is_differentiated(fn):
    expected = numerical_grad(lambda x: fn(x, -1), (X,), 0)
    assert_close(ad.grad(fn)(X, -1), expected)
    value, tangent = ad.jvp(fn)(X, -1, tangent=np.ones_like(X))
    assert_close(tangent, expected.sum())
    assert value == pytest.approx(fn(X, -1))


def test_an_update_of_the_very_array_another_name_holds_is_seen_by_both():
    # k > 0: `w` is `z`'s array, so `z += 1.0` changes `w` as NumPy runs it (was refused)
    fn = alias_chosen_at_run_time
    expected = numerical_grad(lambda x: fn(x, 1), (X,), 0)
    assert_close(ad.grad(fn)(X, 1), expected)
    value, tangent = ad.jvp(fn)(X, 1, tangent=np.ones_like(X))
    assert_close(tangent, expected.sum())
    assert value == pytest.approx(fn(X.copy(), 1))


@pytest.mark.parametrize("fn, update", [(alias_in_a_dict, "z *= 3.0"),
                                        (alias_in_a_list, "z -= 0.5")])
def test_an_update_of_a_shared_array_is_refused_at_its_line(fn, update):
    with pytest.raises(SharedUpdate) as info:
        ad.grad(fn)(X, 1)
    assert info.value.filename == __file__
    assert info.value.source_line.strip().startswith(update)


def test_an_alias_not_yet_bound_at_the_update_is_refused_for_any_array():
    with pytest.raises(SharedUpdate, match="`w` may be that same array"):
        ad.grad(alias_bound_after_the_update)(X)
    # for a number the update is a rebinding: exact
    assert ad.grad(alias_bound_after_the_update)(0.7) == pytest.approx(
        numerical_grad(alias_bound_after_the_update, (0.7,), 0))


def test_a_copy_into_an_array_does_not_make_it_an_alias():
    assert_close(ad.grad(copied_into_then_updated)(X, A),
                 numerical_grad(copied_into_then_updated, (X, A), 0))
    assert_close(ad.grad(copied_into_then_updated, wrt=1)(X, A),
                 numerical_grad(copied_into_then_updated, (X, A), 1))


def _aliases_at_update(source):
    body = gast.parse(source).body[0].body
    updates = MayAlias(["xs", "ys"]).run(body).updates
    (statement, name, aliases), = updates
    return body, statement, aliases


def test_enumerate_gives_a_number_and_zip_pairs_each_sequence():
    _, _, aliases = _aliases_at_update(
        "def f(xs, ys):\n"
        "    for i, (a, b) in enumerate(zip(xs, ys)):\n"
        "        a += b\n")
    assert "i" not in aliases           # a position, never an array
    _, _, aliases = _aliases_at_update(
        "def f(xs, ys):\n"
        "    for a, b in zip(xs, ys):\n"
        "        a += b\n")
    assert "xs" in aliases and "ys" not in aliases and "b" not in aliases


def test_a_loop_target_is_bound_before_its_body_reads_it():
    body, statement, _ = _aliases_at_update(
        "def f(xs, ys):\n"
        "    z = xs * 1.0\n"
        "    for r in ys:\n"
        "        z += r\n"
        "        for v in xs:\n"
        "            t = v\n")
    later = live_after(body, statement)
    assert "v" not in later and "r" not in later and "xs" in later


def test_names_bound_on_every_path_to_a_statement():
    from s2s_ad.analysis.flow import bound_before
    body = gast.parse(
        "def f(x, k):\n"
        "    if k:\n"
        "        a = x\n"
        "        b = x\n"
        "    else:\n"
        "        a = x\n"
        "        if k > 1:\n"
        "            return x\n"
        "        b = x\n"
        "    for i in range(3):\n"
        "        c = x\n"
        "    while k:\n"
        "        d = x\n"
        "        x += 1\n").body[0].body
    update = body[2].body[1]
    assert bound_before(body, update, ["x", "k"]) == {"x", "k", "a", "b", "d"}
    assert bound_before(body, body[1], ["x", "k"]) == {"x", "k", "a", "b"}   # not c, nor i


def updated_while_a_loop_walks_it(x):
    j = x * 1.0
    total = 0.0
    for i, v in enumerate(j):
        total = total + v * 2.0
        j -= 0.5 * x              # the loop's next steps read the updated entries
    return total + np.sum(j)


def updated_inside_a_loop_over_positions(x):
    j = x * 1.0
    for i in range(len(j)):
        j -= 0.5 * x[i]           # the loop walks positions, not j: differentiated
    return np.sum(j ** 2)


def test_an_update_of_the_array_a_loop_walks_is_refused():
    # found by the release fuzz run 2026-11-25 (seed 1003344): the run-time check saw only
    # `v`, an entry, and the derivative silently computed another value
    with pytest.raises(SharedUpdate, match="for ... in j") as info:
        ad.grad(updated_while_a_loop_walks_it)(X)
    assert info.value.filename == __file__
    assert_close(ad.grad(updated_inside_a_loop_over_positions)(X),
                 numerical_grad(updated_inside_a_loop_over_positions, (X,), 0))
