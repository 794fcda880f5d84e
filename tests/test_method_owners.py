"""A call on a local name is read as an array method (`a.sum()`, `A.dot(x)`). Where the name
holds a module instead (`def f(x, np=np)`, a backend chosen at run time), the array method's
rule read the wrong operands and the derivative was silently 0 in both modes (found
2026-11-24). Now such a call is checked when the derivative runs and refused at its line;
a real array in the same position still works."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.errors import TransformError


def sums_through_a_module_parameter(x, np=np):
    return np.sum(np.sin(x))


def dots_through_a_module_parameter(x, m=np):
    return m.dot(x, x)


def dots_with_a_constant_matrix(x, A):
    return np.sum(A.dot(x) ** 2)


X = np.array([0.3, 1.0, -0.4])
A = np.arange(9.0).reshape(3, 3) / 7.0


@pytest.mark.parametrize("fn, call", [(sums_through_a_module_parameter, "np.sum("),
                                      (dots_through_a_module_parameter, "m.dot(")])
@pytest.mark.parametrize("derivative", ["grad", "jvp"])
def test_a_method_call_on_a_module_is_refused_at_its_line(fn, call, derivative):
    # refused when it runs (a module), or at transform time where the arguments cannot fit
    with pytest.raises(TransformError, match="on a module|does not accept these arguments") as info:
        if derivative == "grad":
            ad.grad(fn)(X)
        else:
            ad.jvp(fn)(X, tangent=np.ones(3))
    assert info.value.filename == __file__
    assert call in info.value.source_line
    if "does not accept" in info.value.message:     # the arguments did not fit the method
        assert "holds a module" in info.value.hint


def test_a_method_of_a_constant_array_keeps_its_rule():
    expected = numerical_grad(lambda x: dots_with_a_constant_matrix(x, A), [X], 0)
    assert_close(ad.grad(dots_with_a_constant_matrix)(X, A), expected)
    _, tangent = ad.jvp(dots_with_a_constant_matrix)(X, A, tangent=np.ones(3))
    assert tangent == pytest.approx(np.sum(expected))
