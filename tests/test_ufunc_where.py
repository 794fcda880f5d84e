"""A ufunc's `where=` with an `out=` array made in the call (passes/lower_ufunc_where.py): the
ufunc is computed, and differentiated, only where the mask holds; elsewhere the result is
`out`'s entries. Checked in both modes and at second order against central differences of the
NumPy function itself (autograd has no `where=`)."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.errors import TransformError


def log_where_positive(x):
    # x has entries <= 0: the mask keeps the logarithm (and its derivative) off them
    return np.sum(np.log(x, where=x > 0, out=np.zeros_like(x)) ** 2)


def add_with_broadcast_operands(x):
    column = np.reshape(x[:3], (3, 1))
    y = np.add(column, 2.0 * x, where=x > 0.5, out=np.ones((3, 4)))
    return np.sum(y * y)


def mask_broadcast_over_rows(x):
    rows = np.reshape(np.concatenate([x, x * 2.0]), (2, 4))
    kept = np.exp(rows, where=np.array([True, False, True, True]), out=np.full((2, 4), 0.5))
    return np.sum(kept * rows)


def out_as_a_tuple(x):
    return np.sum(np.sqrt(x, where=x > 0, out=(np.zeros(4),)))


def out_copied_from_the_input(x):
    return np.sum(np.multiply(x, x, where=x < 1.0, out=x.copy()) * x)


PROGRAMS = [log_where_positive, add_with_broadcast_operands, mask_broadcast_over_rows,
            out_as_a_tuple, out_copied_from_the_input]
X = np.array([0.3, -1.0, 2.0, 0.7])


@pytest.mark.parametrize("fn", PROGRAMS)
def test_value_is_numpys(fn):
    value, _ = ad.value_and_grad(fn)(X.copy())
    assert_close(value, fn(X.copy()), rtol=1e-12)


@pytest.mark.parametrize("fn", PROGRAMS)
def test_gradient_matches_central_differences(fn):
    gradient = ad.grad(fn)(X.copy())
    assert np.all(np.isfinite(gradient))
    assert_close(gradient, numerical_grad(fn, (X.copy(),), 0))


@pytest.mark.parametrize("fn", PROGRAMS)
def test_tangent_matches_central_differences(fn):
    direction = np.array([0.5, -1.0, 0.25, 2.0])
    _, tangent = ad.jvp(fn)(X.copy(), tangent=direction)
    assert_close(tangent, numerical_grad(fn, (X.copy(),), 0) @ direction)


@pytest.mark.parametrize("fn", [log_where_positive, mask_broadcast_over_rows])
def test_hessian_matches_central_differences_of_the_gradient(fn):
    hessian = ad.hessian(fn)(X.copy())
    columns = [(ad.grad(fn)(X + 1e-5 * e) - ad.grad(fn)(X - 1e-5 * e)) / 2e-5
               for e in np.eye(4)]
    assert_close(hessian, np.array(columns).T, rtol=1e-5, atol=1e-6)


def without_out(x):
    return np.sum(np.sqrt(x, where=x > 0))


def into_an_existing_array(x):
    y = np.zeros(4)
    np.sqrt(x, where=x > 0, out=y)
    return np.sum(y)


def test_where_without_out_is_refused_naming_the_undefined_entries():
    with pytest.raises(TransformError, match="uninitialized") as caught:
        ad.grad(without_out)(X)
    assert "out=" in caught.value.hint and caught.value.lineno is not None


def test_where_into_an_existing_array_is_refused_with_a_hint():
    with pytest.raises(TransformError, match="in place"):
        ad.grad(into_an_existing_array)(X)
