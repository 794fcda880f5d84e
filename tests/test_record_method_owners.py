"""A call of an array method's name on a value that may not be an array (`p.sum()`, `p` a
record of yours whose class the function's module does not name) is checked when it runs:
the array method's rule would read the record as an array and give a wrong derivative (zeros
for every field, before 2026-11-29). Where the module names the class, the record's own
method is differentiated."""
from dataclasses import dataclass

import numpy as np
import pytest

import s2s_ad as ad
from fd import numerical_grad
from record_methods import make_gamma, make_params, scaled_norm

X = np.array([0.3, 0.5])


def product_with_sum(p, x):
    return p.sum() * np.sum(x)


def first_record_sum(ps, x):
    q = ps[0]
    return q.sum() + np.sum(x * x)


def summed(x):
    return x.sum() * 2.0


@pytest.mark.parametrize("derivative", [
    lambda p: ad.grad(product_with_sum)(p, X),
    lambda p: ad.jvp(product_with_sum)(p, X, tangent=make_params([1.0, 0.0], [0.0])),
], ids=["grad", "jvp"])
def test_a_record_s_own_method_unseen_is_refused_with_a_hint_that_works(derivative):
    p = make_params([1.0, 2.0], [0.5])
    with pytest.raises(ad.TransformError) as caught:
        derivative(p)
    text = str(caught.value)
    assert "`.sum(...)` on a Params" in text and "test_record_method_owners.py:" in text
    assert "from record_methods import Params" in text


def test_a_record_read_from_a_list_is_checked_too():
    ps = [make_params([1.0, 2.0], [0.5])]
    with pytest.raises(ad.TransformError, match="on a Params"):
        ad.grad(first_record_sum)(ps, X)


def test_following_the_hint_differentiates_the_record_s_method():
    p = make_params([1.0, 2.0], [0.5])
    gradient = ad.grad(scaled_norm)(p, X)
    np.testing.assert_allclose(gradient.w, 2 * p.w * np.sum(X))
    np.testing.assert_allclose(gradient.b, np.full(1, np.sum(X)))
    np.testing.assert_allclose(ad.grad(scaled_norm, wrt=1)(p, X),
                               numerical_grad(scaled_norm, (p, X), 1))


def test_an_array_passed_needs_no_check_in_the_code_that_runs():
    general = ad.grad(summed)
    assert "check_method_owner(x, 'sum'" in general.source     # no kinds: decided when it runs
    runs = ad.grad(summed)
    np.testing.assert_allclose(runs(X), np.full(2, 2.0))
    assert "check_method_owner" not in runs.source
    np.testing.assert_allclose(ad.grad(summed)(np.ones((2, 3))), np.full((2, 3), 2.0))


def log_density_term(g, x):
    return np.sum(g.shape * np.log(x)) + np.sum(g.T ** 2)


def test_a_record_field_named_like_an_array_attribute_is_refused():
    """`g.shape` and `g.T` are read as the array attributes (a shape carries no derivative,
    `.T` transposes): a gamma distribution's `shape` got a zero gradient silently, before
    2026-11-29."""
    g = make_gamma([2.0, 3.0], [0.5, -1.0])
    for derivative in (lambda: ad.grad(log_density_term)(g, X),
                       lambda: ad.jvp(log_density_term)(g, X, tangent=g)):
        with pytest.raises(ad.TransformError, match=r"(?s)`\.shape` of a Gamma.*another name"):
            derivative()


def test_array_attributes_of_arrays_still_work():
    def uses_attributes(x):
        return np.sum(x.T @ x) * x.shape[0] + x.size
    x = np.array([[0.3, -0.2], [0.5, 0.1], [0.2, 0.4]])
    np.testing.assert_allclose(ad.grad(uses_attributes)(x),
                               numerical_grad(uses_attributes, (x,), 0), rtol=1e-6)


@dataclass
class Scaled:
    w: np.ndarray

    def doubled(self):
        return Scaled(self.w * 2.0)

    def copy(self):
        return Scaled(self.w.copy())


def through_a_record_method(q):
    return np.sum(q.doubled().w ** 2) + np.sum(q.copy().w ** 3)


def test_a_method_returning_a_record_is_differentiated():
    """Its backward pass took the record's adjoint (one entry a field) for an array seed and
    raised "the seed has shape (1, 2) but doubled returned shape ()" (found 2026-11-29)."""
    q = Scaled(np.array([1.0, -2.0]))
    np.testing.assert_allclose(ad.grad(through_a_record_method)(q).w, 8 * q.w + 3 * q.w ** 2)
    np.testing.assert_allclose(ad.jvp(through_a_record_method)(q, tangent=Scaled(np.ones(2)))[1],
                               np.sum(8 * q.w + 3 * q.w ** 2))
