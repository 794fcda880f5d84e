"""A view read after a write into its array is stale for the derivative. The refusal follows
the code's flow (2026-11-24): a view bound afresh before each read is fine, a read in one branch
and a write in the other of a loop body are fine, and a view kept from an earlier loop step
past a write is refused in both modes (it was differentiated wrongly, with no refusal)."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.errors import UnsupportedSyntax


def view_from_the_last_step(x):
    y = x * 1.0
    s = 0.0
    for i in range(3):
        y[0] = y[0] * 2.0
        if i > 0:
            s = s + np.sum(v * v)           # v, bound in the last step, sees this step's write
        v = y[0:2]
    return s


def read_in_one_branch_written_in_the_other(x):
    y = x * 1.0
    s = 0.0
    for i in range(3):
        if i % 2 == 0:
            s = s + np.sum(y[::-1] * x)
        else:
            y[1] = x[0] * 3.0
    return s


def view_rebound_each_step(x):
    s = 0.0
    for i in range(3):
        w = x * (i + 1.0)
        w[1:3] += x[0] * w[0]
        s = s + np.sum(w)
    return s


X = np.array([0.5, -1.2, 0.8])


@pytest.mark.parametrize("fn", [read_in_one_branch_written_in_the_other, view_rebound_each_step])
def test_views_bound_afresh_are_differentiated(fn):
    expected = numerical_grad(fn, [X], 0)
    assert_close(ad.grad(fn)(X.copy()), expected)
    tangent = np.array([1.0, -0.5, 2.0])
    assert ad.jvp(fn)(X.copy(), tangent=tangent)[1] == pytest.approx(expected @ tangent)


@pytest.mark.parametrize("derivative", ["grad", "jvp"])
def test_a_view_kept_from_an_earlier_step_is_refused(derivative):
    with pytest.raises(ad.TransformError, match="`v` may be a view of `y`") as info:
        if derivative == "grad":
            ad.grad(view_from_the_last_step)(X.copy())
        else:
            ad.jvp(view_from_the_last_step)(X.copy(), tangent=np.ones(3))
    assert info.value.filename == __file__


def written_then_rebound_to_a_view(x, m):
    m = m * 1.0
    m[0, 0] = m[0, 0] - np.sum(x)
    s = np.sum(m * m)
    m = np.transpose(m * np.sum(x))     # bound to a view only after the write
    return s + np.sum(m)


def test_a_binding_after_the_write_does_not_make_it_a_write_through_a_view():
    # refused until only the bindings that reach the write were looked at (fuzz seed 1000009)
    m = np.arange(4.0).reshape(2, 2)
    expected = numerical_grad(written_then_rebound_to_a_view, [X, m], 0)
    assert_close(ad.grad(written_then_rebound_to_a_view)(X.copy(), m), expected)
    _, tangent = ad.jvp(written_then_rebound_to_a_view)(X.copy(), m, tangent=np.ones(3))
    assert tangent == pytest.approx(np.sum(expected))


# --- functions that return views: a write through one, or into its base, is never missed ------
def _rot90_read_after_write(x):
    z = x * 1.0
    r = np.rot90(z)
    z[0, 0] = 0.0
    return np.sum(r * np.arange(4.0).reshape(2, 2))


def _rollaxis_read_after_write(x):
    z = x * 1.0
    r = np.rollaxis(z, 1)
    z[0, 1] = 0.0
    return np.sum(r * np.arange(4.0).reshape(2, 2))


def _matrix_transpose_read_after_write(x):
    z = x * 1.0
    r = np.matrix_transpose(z)
    z[1, 0] = 0.0
    return np.sum(r * np.arange(4.0).reshape(2, 2))


def _write_through_rot90(x):
    z = x * 1.0
    r = np.rot90(z)
    r[0, 0] = 0.0
    return np.sum(z * np.arange(4.0).reshape(2, 2))


def _meshgrid_without_copies(x):
    z = x[0] * 1.0
    a, b = np.meshgrid(z, z, copy=False, sparse=True)
    z[0] = 0.0
    return np.sum(a * b)


def _split_read_after_write(x):
    z = np.ravel(x) * 1.0
    a, b = np.split(z, 2)
    z[0] = 0.0
    return np.sum(a * np.arange(2.0))


def _array_split_read_after_write(x):
    z = np.ravel(x) * 1.0
    parts = np.array_split(z, 2)
    z[1] = 0.0
    return np.sum(parts[0] * np.arange(2.0))


def _unstack_read_after_write(x):
    z = x * 1.0
    a, b = np.unstack(z)
    z[0, 1] = 0.0
    return np.sum(a * np.arange(2.0))


@pytest.mark.parametrize("fn", [
    _rot90_read_after_write, _rollaxis_read_after_write, _matrix_transpose_read_after_write,
    _write_through_rot90, _meshgrid_without_copies, _split_read_after_write,
    _array_split_read_after_write, _unstack_read_after_write])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_write_seen_through_a_view_is_right_or_refused(fn, mode):
    # found 2026-11-25 (an independent suite): these functions were not known to return
    # views, and the derivative silently missed the write
    x = np.array([[0.5, -1.2], [2.0, 0.3]])
    expected = numerical_grad(fn, (x,), 0)
    try:
        if mode == "grad":
            assert_close(ad.grad(fn)(x), expected)
        else:
            assert ad.jvp(fn)(x, tangent=np.ones_like(x))[1] == pytest.approx(np.sum(expected))
    except ad.TransformError as refusal:
        assert refusal.filename == __file__


# A list, tuple or dict holds the arrays put into it themselves: a write into one of them after
# that is seen through the container, which the derivative would miss (found by the release
# fuzz run, seed 1101658: a gradient off by the write's share, silently). Refused at the read.
def dict_holds_the_written_array(x, y):
    d = {'b': x}
    x[0] -= y[1]
    return np.sum(d['b'])


def list_holds_the_written_array(x, y):
    z = x * 1.0
    d = [z]
    z[0] -= y[1] * z[1]
    return np.sum(d[0] ** 2)


def appended_then_written(x, y):
    hs = []
    h = x * 2.0
    hs.append(h)
    h[0] = y[0] * 3.0
    return np.sum(hs[0] ** 2)


@pytest.mark.parametrize("f", [dict_holds_the_written_array, list_holds_the_written_array,
                               appended_then_written], ids=lambda f: f.__name__)
@pytest.mark.parametrize("transform", ["grad", "jvp"])
def test_a_container_read_after_a_write_into_an_array_it_holds_is_refused(f, transform):
    x, y = np.array([0.3, 0.5, 0.7]), np.array([1.0, 2.0])
    derivative = ad.grad(f, wrt=(0, 1)) if transform == "grad" else ad.jvp(f, wrt=(0, 1))
    extra = {} if transform == "grad" else {"tangent": (np.ones(3), np.ones(2))}
    with pytest.raises(UnsupportedSyntax, match=r"holds `\w+` \(line \d+\), which is written in "
                                                r"place at line \d+ before it is read here"):
        derivative(x.copy(), y.copy(), **extra)


def written_before_it_is_appended(x, y):
    hs = []
    h = x * 2.0
    h[0] = y[0] * 3.0
    hs.append(h)
    return np.sum(hs[0] ** 2)


def test_an_array_written_before_it_goes_into_a_list_is_differentiated():
    x, y = np.array([0.3, 0.5, 0.7]), np.array([1.0, 2.0])
    f = written_before_it_is_appended
    assert_close(ad.grad(f, wrt=1)(x.copy(), y.copy()),
                 numerical_grad(lambda v: f(x.copy(), v), [y], 0))
