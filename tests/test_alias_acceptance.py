"""Issue 15's refusals of correct code around in-place updates and aliasing: programs NumPy
gives one clear meaning, refused until 2026-11-28 as "may share memory". Each is checked in
grad, jvp and hessian against central differences of the plain NumPy function (autograd
cannot run in-place code); the neighbours that do share memory stay refused, at the user's
line, naming the user's expression, with a hint that works."""
import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad.errors import SharedUpdate
from fd import assert_close, numerical_grad
from test_known_wrong_aliasing import X, derivatives_or_refusal

ALL_MODES = ("grad", "jvp", "hessian")


def assert_differentiated(fn, x=X):
    found = derivatives_or_refusal(fn, x, modes=ALL_MODES)
    refused = {m: str(e) for m, e in found.items() if isinstance(e, ad.TransformError)}
    assert not refused, refused


# a NumPy scalar read from an array is not a view ---------------------------------------------
def h_scalar(b):
    v0 = b[0, 2]
    v0 += 1.0
    return v0 * b[1, 1]


def scalar_read(x):
    return h_scalar(x.reshape(2, 3) * 1.0)


def h_scalar_1d(b):
    v0 = b[2]
    v0 += 1.0
    return v0 * b[1]


def scalar_read_1d(x):
    return h_scalar_1d(x * 1.0)


def scalar_read_in_place(x):
    b = x.reshape(2, 3) * 1.0
    v0 = b[0, 2]
    v0 += 1.0
    return v0 * b[1, 1] + np.sum(b * b)


# a helper writes into its argument, a new array nothing else reads ---------------------------
def h_write(a):
    a[1] -= np.sin(a[0])
    return np.sum(a ** 2)


def fresh_temp_helper(x):
    return h_write(x * 2.0)


def h_scale(a):
    a *= 3.0
    return np.sum(np.sin(a))


def fresh_temp_update_helper(x):
    return h_scale(x * 2.0) + np.sum(x)


# a must-alias update: every name of the array sees it ----------------------------------------
def must_alias(x):
    y = x * 1.0
    z = y
    z += 1.0
    return np.sum(y * z)


def ident(v):
    return v


def must_alias_through_a_helper(x):
    y = x * 1.0
    z = ident(y)
    z *= x
    return np.sum(y * z) + np.sum(np.sin(y))


def must_alias_under_an_if(x):
    y = x * 1.0
    z = y
    if x[0] > 0:
        z += x ** 2
    return np.sum(y * z)


def may_alias_by_branch(x):
    y = x * 1.0
    if x[0] > 0:
        z = y
    else:
        z = y * 2.0
    z += np.cos(x)
    return np.sum(y * z)


def must_alias_in_a_loop(x):
    y = x * 1.0
    z = y
    for i in range(3):
        z *= x
    return np.sum(y + z ** 2)


def two_names_of_one_array(x):
    y = x * 1.0
    z = y
    w = z
    w -= np.sin(x)
    return np.sum(y * z * w)


def must_alias_then_a_view(x):
    y = x * 1.0
    z = y
    z *= x
    w = y[1:]                 # a view of the updated array
    return np.sum(w * z[1:])


def must_alias_bound_in_a_loop(x):
    y = x * 1.0
    for i in range(2):
        z = y
        z += x[i]
    return np.sum(y * y)


def must_alias_of_a_number(x):
    y = x[0] * 1.0            # a NumPy scalar: `z += 1.0` rebinds `z` only
    z = y
    z += 1.0
    return y * z


# one array of a tuple returned by your own function ------------------------------------------
def pair(x):
    return x * 2.0, x * 3.0


def tuple_write(x):
    a, b = pair(x)
    a[0] = 1.0
    return np.sum(a * b)


def pair_of_locals(x):
    y = np.sin(x)
    return y, y * x


def tuple_of_locals_write(x):
    a, b = pair_of_locals(x)
    a[1:3] = b[0:2]
    return np.sum(a * b)


def h_zero_first(a):
    a[0] = 0.0
    return a


def fresh_temp_returned(x):
    y = h_zero_first(x * 2.0)      # y is the new array x * 2.0, which nothing else names
    y[1] = y[2] * 3.0
    return np.sum(y * x)


@pytest.mark.parametrize("fn", [
    fresh_temp_returned, scalar_read, scalar_read_1d, scalar_read_in_place, fresh_temp_helper, fresh_temp_update_helper,
    must_alias, must_alias_through_a_helper, must_alias_in_a_loop, two_names_of_one_array,
    must_alias_then_a_view, must_alias_bound_in_a_loop,
    must_alias_of_a_number, tuple_write, tuple_of_locals_write])
def test_differentiated(fn):
    assert_differentiated(fn)


@pytest.mark.parametrize("fn", [must_alias_under_an_if, may_alias_by_branch])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_differentiated_on_both_branches(fn, sign):
    x = X.copy()
    x[0] = sign * abs(x[0])
    assert_differentiated(fn, x)


# what does share memory stays refused ---------------------------------------------------------
def pair_with_a_view(x):
    return x[:3], x[3:] * 3.0


def tuple_view_write(x):
    y = x * 1.0
    a, b = pair_with_a_view(y)
    a[0] = 1.0
    return np.sum(a * b) + np.sum(y ** 2)


def tuple_view_write_copied(x):
    y = x * 1.0
    a, b = pair_with_a_view(y)
    a = a.copy()
    a[0] = 1.0
    return np.sum(a * b) + np.sum(y ** 2)


def same_pair(x):
    y = x * 2.0
    return y, y


def tuple_of_one_array_write(x):
    a, b = same_pair(x)
    a[0] = 1.0
    return np.sum(a * b)


def view_update(x):
    y = x * 1.0
    z = y[1:]
    z += 1.0
    return np.sum(y * y)


def refusal(fn, mode):
    with pytest.raises(ad.TransformError) as caught:
        if mode == "jvp":
            ad.jvp(fn)(X.copy(), tangent=np.ones_like(X))
        else:
            getattr(ad, mode)(fn)(X.copy())
    assert caught.value.filename == __file__
    return caught.value


@pytest.mark.parametrize("mode", ALL_MODES)
def test_a_view_returned_in_a_tuple_stays_refused(mode):
    error = refusal(tuple_view_write, mode)
    assert "`a`" in error.message and "`pair_with_a_view(y)`" in error.message
    assert "`a = a.copy()` before the write" in error.hint


def test_the_hint_for_a_view_returned_in_a_tuple_works():
    assert_differentiated(tuple_view_write_copied)


@pytest.mark.parametrize("mode", ALL_MODES)
def test_one_array_returned_twice_stays_refused(mode):
    assert "`same_pair(x)`" in refusal(tuple_of_one_array_write, mode).message


def test_an_update_through_a_view_is_written_back_into_its_array():
    # refused when it ran until issue 15: `z += 1.0` on `z = y[1:]` is now written back into
    # `y` (passes/write_back_views.py), which is read afterwards
    assert_differentiated(view_update)


CACHE = []


def pair_kept(x):
    y = x * 2.0
    CACHE.append(y)                # the module's list holds `y` too
    return y, x * 3.0


def kept_tuple_write(x):
    a, b = pair_kept(x)
    a[0] = 1.0
    return np.sum(a * b) + np.sum(CACHE[-1])


@pytest.mark.parametrize("mode", ALL_MODES)
def test_an_array_a_helper_also_keeps_stays_refused(mode):
    assert "`pair_kept(x)`" in refusal(kept_tuple_write, mode).message


# A helper updating a scalar read from its argument, which the caller reads afterwards: the
# entry is a number (an index for each dimension), so the caller's array is unchanged
def scalar_read_then_array_read(x):
    b = x.reshape(2, 3) * 1.0
    return h_scalar(b) + np.sum(b * b)


def test_a_helper_updating_a_number_read_from_an_array_the_caller_reads():
    assert_differentiated(scalar_read_then_array_read)


# A checkpointed helper runs again in the backward pass, on its argument as the first run left
# it: a write into even a new array it is given changes what the second run reads
@ad.checkpoint
def h_write_checkpointed(a):
    a[1] -= np.sin(a[0])
    return np.sum(a ** 2)


def fresh_temp_checkpointed(x):
    return h_write_checkpointed(x * 2.0)


def test_a_checkpointed_helper_writing_into_a_new_array_is_right_or_refused():
    try:
        found = ad.grad(fresh_temp_checkpointed)(X.copy())
    except ad.TransformError as error:
        assert error.filename == __file__ and "h_write_checkpointed(x * 2.0)" in error.source_line
        assert "a = a.copy()" in error.hint
        return
    assert_close(found, numerical_grad(fresh_temp_checkpointed, [X.copy()], 0), rtol=1e-5)


@ad.checkpoint
def h_scale_checkpointed(a):
    a *= 3.0
    return np.sum(np.sin(a))


def fresh_temp_update_checkpointed(x):
    return h_scale_checkpointed(x * 2.0) + np.sum(x)


def test_a_checkpointed_helper_updating_a_new_array_is_right_or_refused():
    try:
        found = ad.grad(fresh_temp_update_checkpointed)(X.copy())
    except ad.TransformError as error:
        assert error.filename == __file__ and "a *= 3.0" in error.source_line
        return
    assert_close(found, numerical_grad(fresh_temp_update_checkpointed, [X.copy()], 0), rtol=1e-5)
