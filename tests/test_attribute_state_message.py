"""`self.h = ...` in a method stays refused (issue 15): the object keeps the value after the
call, and a read of it elsewhere (the caller, the next call) would be a constant to the
derivative. The refusal names the attribute as written and says what works: keeping the value
in a local name and returning it, which is differentiated (checked here against central
finite differences)."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import numerical_grad

X = np.array([0.3, -0.7, 1.1])


class Cell:
    def __init__(self):
        self.h = None

    def step(self, x):
        self.h = np.tanh(x)
        return self.h * 2.0


class ReturningCell:
    def step(self, x):
        h = np.tanh(x)
        return h * 2.0, h


def keeps_state(x):
    cell = Cell()
    return np.sum(cell.step(x) + cell.h)


def returns_state(x):
    out, h = ReturningCell().step(x)
    return np.sum(out + h)


@pytest.mark.parametrize("transform", [ad.grad, lambda f: (lambda x: ad.jvp(f)(x, tangent=x))])
def test_the_refusal_names_the_attribute(transform):
    with pytest.raises(ad.TransformError, match=r"attribute `self\.h`") as info:
        transform(keeps_state)(X)
    assert "return out, h" in info.value.hint


def test_the_hinted_form_is_differentiated():
    np.testing.assert_allclose(ad.grad(returns_state)(X), numerical_grad(returns_state, (X,), 0),
                               rtol=1e-6, atol=1e-8)
