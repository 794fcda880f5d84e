"""Minimal reproducers of the bugs differential fuzzing found, one test each.

Each program is a module-level function (s2s_ad reads its source). Each test asserts the right
answer (computed by central finite differences or stated by hand in a comment). Tests of fixed
bugs are plain regression tests; a test of an open bug is marked `xfail(strict=True)`: fixing the bug makes the test pass, and strict xfail
then fails the run until the mark is removed. Remove the feature from
`generator.KNOWN_BUG_FEATURES` (or the signature from `oracle.KNOWN_SIGNATURES`) at the same time,
so the fuzzer generates the construct again.

Found with `python -m tests.fuzz.run`; shrunk with `python -m tests.fuzz.minimize SEED` and by hand.
"""
import numpy as np
import pytest

import s2s_ad as ad
from fd import numerical_grad

X = np.array([0.3, -1.2, 0.7])


def _fd(fn, args, argnum):
    return numerical_grad(lambda *a: fn(*[np.array(b, copy=True) if isinstance(b, np.ndarray)
                                          else b for b in a]), args, argnum)


# --- wrong gradients --------------------------------------------------------------------------

def slice_from_start(x):
    return np.sum(x[1:] ** 2)


def write_slice_from_start(x):
    w = x.copy()
    w[1:] = x[1:]
    return np.sum(w * w)


def test_read_of_slice_with_start_and_no_stop():
    # fixed in 5a2f3f1: x[1:] was lowered to slice(1) (= x[:1]) in the adjoint
    # d/dx sum(x[1:]**2) = [0, 2 x1, 2 x2] = [0, -2.4, 1.4]; s2s_ad gives [-1.0, 0, 0]
    expected = np.array([0.0, 2 * X[1], 2 * X[2]])
    np.testing.assert_allclose(_fd(slice_from_start, [X], 0), expected, atol=1e-6)
    np.testing.assert_allclose(ad.grad(slice_from_start)(X.copy()), expected, atol=1e-12)


def test_write_of_slice_with_start_and_no_stop():
    # fixed in 5a2f3f1: zero_at/scatter got slice(1) (= [:1])
    expected = 2 * X                                   # w == x elementwise
    np.testing.assert_allclose(_fd(write_slice_from_start, [X], 0), expected, atol=1e-6)
    np.testing.assert_allclose(ad.grad(write_slice_from_start)(X.copy()), expected, atol=1e-12)


def loop_over_rebound_name(x):
    s = 0.0
    for v in x:
        s = s + v
        x = x * 2.0
    return s


def enumerate_over_rebound_name(x):
    s = 0.0
    for i, v in enumerate(x):
        s = s + v * (i + 1)
        x = x * 2.0
    return s


@pytest.mark.xfail(strict=True, reason="for v in x: ... x = ... : Python iterates over the "
                                       "original x, the lowered loop re-reads the rebound name")
@pytest.mark.parametrize("fn, expected", [
    (loop_over_rebound_name, np.ones(3)),                        # value sum(x)
    (enumerate_over_rebound_name, np.array([1.0, 2.0, 3.0])),   # value sum(x * (i + 1))
], ids=["for-v-in-x", "enumerate"])
def test_loop_over_a_name_rebound_in_the_body(fn, expected):
    value, grad = ad.value_and_grad(fn)(X.copy())
    assert value == pytest.approx(fn(X.copy()))
    np.testing.assert_allclose(grad, expected)


def inplace_through_local_alias(x):
    y = x * 1.0
    z = y
    z *= x                 # also multiplies y: they are the same array
    return np.sum(y)


def inplace_through_parameter_alias(x):
    y = x
    y += 1.0               # also adds 1 to x
    return np.sum(x * x)


@pytest.mark.xfail(strict=True, reason="z = y; z *= x: the in-place update through an alias is "
                                       "treated as a rebinding (value and gradient both wrong)")
def test_inplace_update_through_a_local_alias():
    # value sum(x*x) = 2.02, gradient 2x; s2s_ad gives value sum(x) = -0.2 and gradient 1
    value, grad = ad.value_and_grad(inplace_through_local_alias)(X.copy())
    assert value == pytest.approx(inplace_through_local_alias(X.copy()))
    np.testing.assert_allclose(grad, 2 * X)


@pytest.mark.xfail(strict=True, reason="y = x; y += 1 mutates the argument x through the alias; "
                                       "s2s_ad neither refuses nor follows it")
def test_inplace_update_through_a_parameter_alias():
    # value sum((x+1)**2), gradient 2(x+1); either that or a TransformError would be right
    try:
        value, grad = ad.value_and_grad(inplace_through_parameter_alias)(X.copy())
    except ad.TransformError:
        return
    assert value == pytest.approx(inplace_through_parameter_alias(X.copy()))
    np.testing.assert_allclose(grad, 2 * (X + 1))


def inplace_on_loop_rows(A):
    for row in A:
        row *= 0.5         # each row is a view: scales A
    return np.sum(A)


def inplace_on_tuple_element(t):
    a, b = t
    a *= 0.5               # a is the tuple's array: scales t[0]
    return np.sum(t[0]) + np.sum(b)


@pytest.mark.xfail(strict=True, reason="for row in A: row *= 0.5 scales A through the row views; "
                                       "s2s_ad gives value sum(A) and gradient 1 (expected 0.5)")
def test_inplace_update_of_loop_rows():
    A = np.arange(6.0).reshape(2, 3)
    value, grad = ad.value_and_grad(inplace_on_loop_rows)(A.copy())
    assert value == pytest.approx(inplace_on_loop_rows(A.copy()))
    np.testing.assert_allclose(grad, np.full((2, 3), 0.5))


@pytest.mark.xfail(strict=True, reason="a, b = t; a *= 0.5 scales t[0] in place; s2s_ad ignores "
                                       "it (value and gradient of t[0] wrong, expected 0.5)")
def test_inplace_update_of_an_unpacked_tuple_element():
    t = (X.copy(), X.copy())
    value, grad = ad.value_and_grad(inplace_on_tuple_element)((X.copy(), X.copy()))
    assert value == pytest.approx(inplace_on_tuple_element(t))
    np.testing.assert_allclose(grad[0], np.full(3, 0.5))
    np.testing.assert_allclose(grad[1], np.ones(3))


def shift_in_place(a, b):
    a -= b


def helper_updates_its_argument_in_place(x, b):
    y = x * 1.0
    shift_in_place(y, b)
    return np.sum(y * y)


@pytest.mark.xfail(strict=True, reason="a helper that updates its array argument in place "
                                       "(a -= b, no return): the value is right but d/db is 0")
def test_helper_that_updates_its_argument_in_place():
    x, b = X.copy(), 0.5
    # value sum((x - b)**2), d/dx = 2 (x - b), d/db = -2 sum(x - b)
    value, (gx, gb) = ad.value_and_grad(helper_updates_its_argument_in_place, wrt=(0, 1))(x, b)
    assert value == pytest.approx(np.sum((X - b) ** 2))
    np.testing.assert_allclose(gx, 2 * (X - b))
    assert gb == pytest.approx(-2 * np.sum(X - b))


def write_whole_array_into_itself(x):
    w = x * 1.0
    w[:] = w
    return np.sum(w)


@pytest.mark.xfail(strict=True, reason="w[:] = w: the adjoint adds dw[:] into dw and then zeroes "
                                       "dw[:], losing the whole gradient (gives 0, expected 1)")
def test_write_whose_value_is_the_written_array():
    np.testing.assert_allclose(ad.grad(write_whole_array_into_itself)(X.copy()), np.ones(3))


def inactive_array_rebound_in_outer_loop(s, x):
    for k in range(2):
        s = s / 2.0
        for i in range(2):
            x = s[i] * x
    return np.sum(x)


@pytest.mark.xfail(strict=True, reason="nested loops: the backward pass recomputes `s[i]` from the "
                                       "final `s` (s is not differentiated, its rebinding in the "
                                       "outer loop is not taped): gradient 1/4 of the right one")
def test_inner_loop_reads_an_array_rebound_in_the_outer_loop():
    s, x = np.array([3.0, 1.5]), np.array([1.0, 2.0])
    # x is multiplied by s[0] s[1] / 4 and then by s[0] s[1] / 16: gradient (s0 s1)^2 / 64
    expected = np.full(2, (3.0 * 1.5) ** 2 / 64)
    np.testing.assert_allclose(_fd(inactive_array_rebound_in_outer_loop, [s, x], 1), expected,
                               rtol=1e-6)
    np.testing.assert_allclose(ad.grad(inactive_array_rebound_in_outer_loop, wrt=1)(s, x),
                               expected)


def column_read_then_row_written(a, x):
    y = np.sum(a[:, 0] * x)
    a[1] = 2.0
    return y


@pytest.mark.xfail(strict=True, reason="a[:, 0] is a view kept for the backward pass; the later "
                                       "write a[1] = 2.0 changes it, so the gradient uses the "
                                       "new values (5 instead of 6); neither refused nor taped")
def test_view_read_before_an_inplace_write_of_its_base():
    a = np.full((2, 2), 3.0)
    assert ad.grad(column_read_then_row_written, wrt=1)(a.copy(), 1.0) == pytest.approx(6.0)


def parameter_rebound_to_a_constant(x):
    x = 2.0
    return x * 3.0


@pytest.mark.xfail(strict=True, reason="a parameter rebound to a constant before any use gets the "
                                       "gradient 0.0 (a float) instead of zeros shaped like x")
def test_gradient_of_a_rebound_parameter_has_its_shape():
    grad = ad.grad(parameter_rebound_to_a_constant)(X.copy())
    assert np.shape(grad) == X.shape, repr(grad)
    np.testing.assert_array_equal(grad, np.zeros(3))


# --- crashes inside the tool (neither a gradient nor a TransformError) --------------------------

def branch_with_only_pass(x):
    if np.sum(x) > 0:
        pass
    return np.sum(x)


def self_assignment_in_branch(x, y, w):
    if x > 0:
        y = w
    else:
        y = y
    return y + w


def ternary_keeping_the_value(a, w):
    s = a
    s = w if s < 0.4 else s
    return s * w


@pytest.mark.xfail(strict=True, reason="a branch whose backward pass has no statement (`pass`, "
                                       "`y = y`) is emitted as an empty block: IndentationError")
@pytest.mark.parametrize("fn, args, wrt, expected", [
    (branch_with_only_pass, (X,), 0, np.ones(3)),
    (self_assignment_in_branch, (-1.0, 2.0, 3.0), 2, 1.0),     # y + w with y unchanged
    (ternary_keeping_the_value, (0.5, 3.0), 1, 0.5),           # s * w with s = a
], ids=["pass", "y = y", "ternary"])
def test_branch_with_an_empty_backward_pass(fn, args, wrt, expected):
    np.testing.assert_allclose(ad.grad(fn, wrt=wrt)(*args), expected)


def early_return_before_definition(x, w):
    if np.sum(x) > 0:
        return np.sum(w)
    else:
        y = w * 2.0
    return np.sum(y)


@pytest.mark.xfail(strict=True, reason="early return on a path where `y` is never bound: the "
                                       "backward pass runs `dy = zeros_like(y)` -> UnboundLocalError")
def test_early_return_on_a_path_that_never_binds_a_name():
    np.testing.assert_allclose(ad.grad(early_return_before_definition, wrt=1)(X, X), np.ones(3))


def dict_entry_read_in_loop(p, x):
    s = 0.0
    for i in range(2):
        s = s + np.sum(p["W"] * x)
    return s


@pytest.mark.xfail(strict=True, reason="p['W'] read inside a loop: runtime.add_at raises "
                                       "KeyError: 'W' in the backward pass")
def test_dict_entry_read_inside_a_loop():
    grad = ad.grad(dict_entry_read_in_loop)({"W": X.copy()}, X)
    np.testing.assert_allclose(grad["W"], 2 * X)


# --- unclear refusals ----------------------------------------------------------------------------

def augmented_element_update_in_loop(x):
    w = x * 1.0
    for i in range(2):
        w[1] *= 0.5
    return np.sum(w)


@pytest.mark.xfail(strict=True, reason="w[1] *= 0.5 in a loop is refused with a message about an "
                                       "internal temporary (`_item` may be a view of `w`) and a hint "
                                       "to copy `_item`, a name the user never wrote")
def test_refusal_names_only_what_the_user_wrote():
    # outside a loop the same update is differentiated: gradient [1, 0.25, 1]
    try:
        grad = ad.grad(augmented_element_update_in_loop)(X.copy())
    except ad.TransformError as e:
        assert "_item" not in str(e), str(e)
        return
    np.testing.assert_allclose(grad, [1.0, 0.25, 1.0])


# --- API --------------------------------------------------------------------------------------

def two_inputs(x, y):
    return np.sum(x * y)


@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "vjp"])
def test_one_element_tuple_wrt_gives_a_one_element_tuple(transform):
    # fixed in 5a2f3f1: wrt=(0,) returned a bare array (API.md: a tuple wrt gives a tuple)
    y = X[::-1].copy()
    if transform == "grad":
        grads = ad.grad(two_inputs, wrt=(0,))(X, y)
    elif transform == "value_and_grad":
        grads = ad.value_and_grad(two_inputs, wrt=("x",))(X, y)[1]
    else:
        grads = ad.vjp(two_inputs, wrt=(0,))(X, y, seed=1.0)[1]
    assert isinstance(grads, tuple) and len(grads) == 1
    np.testing.assert_allclose(grads[0], y)


def test_reproducers_run_in_plain_python():
    """The reproducers are valid programs (so the xfails above are about s2s_ad alone)."""
    for fn, args in [(slice_from_start, (X,)), (write_slice_from_start, (X.copy(),)),
                     (loop_over_rebound_name, (X,)), (enumerate_over_rebound_name, (X,)),
                     (inplace_through_local_alias, (X,)),
                     (inplace_through_parameter_alias, (X.copy(),)),
                     (inplace_on_loop_rows, (np.ones((2, 3)),)),
                     (inplace_on_tuple_element, ((X.copy(), X.copy()),)),
                     (write_whole_array_into_itself, (X,)), (branch_with_only_pass, (X,)),
                     (self_assignment_in_branch, (-1.0, 2.0, 3.0)),
                     (ternary_keeping_the_value, (0.5, 3.0)),
                     (early_return_before_definition, (X, X)),
                     (dict_entry_read_in_loop, ({"W": X}, X)), (two_inputs, (X, X)),
                     (augmented_element_update_in_loop, (X,)),
                     (inactive_array_rebound_in_outer_loop, (X, X)),
                     (column_read_then_row_written, (np.ones((2, 2)), 1.0)),
                     (parameter_rebound_to_a_constant, (X,)),
                     (helper_updates_its_argument_in_place, (X.copy(), 0.5))]:
        assert np.isfinite(fn(*args))
