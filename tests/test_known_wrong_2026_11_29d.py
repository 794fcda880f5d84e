"""Wrong answers found 2026-11-29 (fourth session), fixed the same day (the list slice copies
have their own file, tests/test_list_slice_copies.py)."""
import copy

import numpy as np
import pytest

import s2s_ad as ad


def weighted(x, s=2.0, *, t=1.0):
    return np.sum(s * t * x ** 2)


@pytest.mark.parametrize("make", [ad.grad, ad.value_and_grad])
def test_defaults_of_the_function_rebound_after_the_transform_are_followed(make, monkeypatch):
    """The transform read the defaults once, when it was made: a call after
    `f.__defaults__ = ...` still got the old ones (value and gradient)."""
    x = np.array([1.0, -2.0])
    df = make(weighted)
    first = df(x)
    monkeypatch.setattr(weighted, "__defaults__", (3.0,))
    monkeypatch.setattr(weighted, "__kwdefaults__", {"t": 0.5})
    again = df(x)
    if make is ad.value_and_grad:
        assert first[0] == pytest.approx(10.0) and again[0] == pytest.approx(7.5)
        first, again = first[1], again[1]
    np.testing.assert_allclose(first, 4.0 * x)
    np.testing.assert_allclose(again, 3.0 * x)
    value, t = ad.jvp(weighted)(x, tangent=np.ones(2))
    assert value == pytest.approx(7.5) and t == pytest.approx(np.sum(3.0 * x))


# --- found by the day's reviewer in the day's own changes, fixed the same day -----------------

def shallow_copy_by_copy_module(x):
    a = [x * 1.0, x * 2.0]
    b = copy.copy(a)                    # as a[:], list(a) and a.copy(): the same arrays
    b[0] += x                           # changes a[0] in place
    return np.sum(a[0] * x)


def test_an_update_through_a_shallow_copy_by_the_copy_module_is_refused():
    """Wrong before today too: `list(a)` and `a.copy()` were refused, `copy.copy(a)` gave the
    gradient of an `a` its update never reached (analysis/container_kinds.py)."""
    from s2s_ad.errors import SharedUpdate
    with pytest.raises(SharedUpdate, match="may be that same array"):
        ad.grad(shallow_copy_by_copy_module)(np.array([0.3, -1.2, 2.0]))


def updated_at_a_popped_position(x, positions):
    positions = list(positions)
    A = np.stack([x * 1.0, x * 2.0])
    v = A[1]
    v[positions.pop()] *= x[2]          # the index has an effect: it must run once
    return np.sum(A * x)


def copy_updated_at_a_popped_position(x, positions):
    positions = list(positions)
    a = [x * 1.0, x * 2.0]
    b = a[:]
    b[positions.pop()] += x             # which entry is known only as it runs: refused
    return np.sum(a[0] * x)


def test_an_index_with_an_effect_is_read_once_around_a_write_back():
    from fd import numerical_grad
    x = np.array([0.3, -1.2, 2.0])
    value, gradient = ad.value_and_grad(updated_at_a_popped_position)(x, [0, 1, 2])
    assert value == pytest.approx(updated_at_a_popped_position(x, [0, 1, 2]))
    np.testing.assert_allclose(
        gradient, numerical_grad(updated_at_a_popped_position, [x, [0, 1, 2]], 0), rtol=1e-6)
    _, t = ad.jvp(updated_at_a_popped_position)(x, [0, 1, 2], tangent=np.ones(3))
    assert t == pytest.approx(np.sum(gradient))
    from s2s_ad.errors import SharedUpdate
    with pytest.raises(SharedUpdate, match="both hold"):
        ad.grad(copy_updated_at_a_popped_position)(x, [0, 1])


def pooled(x):
    return np.mean(np.max(x, axis=1))


def test_the_max_adjoint_warns_of_no_overflow_its_function_does_not_have():
    """The check for NaN group maxima summed them once: float16 maxima overflowed that sum,
    warning (or raising under np.errstate(all='raise')) where the function itself ran."""
    x = np.random.default_rng(0).uniform(500, 1000, (200, 4)).astype(np.float16)
    with np.errstate(all="raise"):
        pooled(x)
        gradient = ad.grad(pooled)(x)
    expected = (x == x.max(axis=1, keepdims=True)) / 200.0
    expected /= expected.astype(bool).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(gradient, expected.astype(np.float16), rtol=1e-3)


# --- found by the day's reviewer, wrong before today too, fixed the same day ---------------------

def one_list_held_twice(x):
    inner = [x * 1.0, x * 2.0]
    a = [inner, inner]
    v = a[0]
    v[0] = x * 3.0                      # a[1] is that list too
    return np.sum(a[1][0] * x)


def list_held_by_a_tuple(x):
    a = ([x * 1.0, x * 2.0],)
    v = a[0]
    v[0] = x * 3.0                      # a[0] is v: it sees the store
    return np.sum(a[0][0] * x)


def test_a_store_into_a_list_a_tuple_holds_is_seen_by_the_tuple():
    x = np.array([0.3, -1.2, 2.0])
    np.testing.assert_allclose(ad.grad(list_held_by_a_tuple)(x), 6 * x)


def test_a_store_into_a_list_held_twice_is_refused_at_its_line():
    with pytest.raises(ad.TransformError, match="holds at another entry too") as info:
        ad.grad(one_list_held_twice)(np.array([0.3, -1.2, 2.0]))
    assert info.value.lineno == one_list_held_twice.__code__.co_firstlineno + 4


def weighted_row_maxima(x):
    return np.sum(np.max(x, axis=1) * np.array([1.0, 2.0]))


def test_a_nan_groups_max_adjoint_is_nan_without_a_floating_point_error():
    """Found by the second review (before today too): the function runs quietly under
    np.errstate(all='raise'), its gradient raised dividing the NaN group's share by 0."""
    x = np.array([[np.nan, 1.0], [2.0, 2.0]])
    with np.errstate(all="raise"):
        weighted_row_maxima(x)
        gradient = ad.grad(weighted_row_maxima)(x)
        _, tangent = ad.jvp(weighted_row_maxima)(x, tangent=np.ones((2, 2)))
    np.testing.assert_array_equal(gradient, [[np.nan, np.nan], [1.0, 1.0]])
    assert np.isnan(tangent)


# --- found by the second review of the day's changes, fixed the same day ----------------------

def test_rebound_defaults_are_followed_by_a_hessian_and_a_gradient_made_before(monkeypatch):
    """jacobian and hessian bind the call their own way, and a derivative differentiated again
    copies the signature: both read it as the transform was made."""
    x = np.array([1.0, -2.0])
    hessian, gradient = ad.hessian(weighted), ad.grad(weighted)
    np.testing.assert_allclose(hessian(x), 4.0 * np.eye(2))
    monkeypatch.setattr(weighted, "__defaults__", (3.0,))
    np.testing.assert_allclose(hessian(x), 6.0 * np.eye(2))
    np.testing.assert_allclose(ad.jacobian(gradient)(x), 6.0 * np.eye(2))


def updated_at_a_computed_position(x):
    a = [x * 1.0, x * 2.0]
    b = a[:]
    b[0] = x * 5.0                      # b's own array now; b[1] is still a[1]
    i = 0
    b[i + 0] += x                       # arithmetic in the index: no effect, read twice
    return np.sum(a[0] * x) + np.sum(b[0] * x)


def test_an_index_without_effects_is_read_again_not_refused():
    """The first fix refused any index but names and constants."""
    from fd import numerical_grad
    x = np.array([0.3, -1.2, 2.0])
    np.testing.assert_allclose(ad.grad(updated_at_a_computed_position)(x),
                               numerical_grad(updated_at_a_computed_position, [x], 0), rtol=1e-6)
