"""Complex values that transform time cannot see (an object's attribute given later, a value a
method returns, a negative Python number to a fractional power, a dataclass argument holding
one) meeting rules for real values only: refused, naming the line, never a derivative that
drops what the rule did not follow. Found when complex support was merged (np.var of such a
value gave a wrong gradient where it used to be refused); np.var, np.std and np.linalg.norm hold
for complex values since, and np.maximum stands for the rules that do not."""
from dataclasses import dataclass

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.errors import ComplexValue

C = np.array([1.0 + 2.0j, -0.5 + 0.3j])


class Holder:
    def __init__(self, c):
        self.c = c

    def get(self):
        return self.c


HELD = Holder(C)
LATER = Holder(np.array([1.0, 2.0]))


@dataclass
class Params:
    w: np.ndarray
    c: np.ndarray


def through_an_attribute(x):
    return np.sum(np.abs(np.maximum(x * HELD.c, 0.1)))


def through_a_method(x):
    return np.sum(np.abs(np.maximum(x * HELD.get(), 0.1)))


def through_a_negative_power(x, s):
    return np.sum(np.abs(np.maximum(x * s ** 0.5, 0.1)))


def through_a_dataclass_field(x, p):
    return np.sum(np.abs(np.maximum(x * p.c, 0.1)))


def through_an_attribute_given_later(x):
    return np.linalg.norm(x * LATER.c)


X = np.array([0.7, 1.3])


@pytest.mark.parametrize("fn, extra", [
    (through_an_attribute, ()), (through_a_method, ()), (through_a_negative_power, (-2.0,)),
    (through_a_dataclass_field, (Params(X, C),))])
def test_an_unseen_complex_value_meeting_a_real_rule_is_refused(fn, extra):
    with pytest.raises(ComplexValue) as caught:
        ad.grad(fn)(X, *extra)
    assert caught.value.lineno is not None


def test_an_attribute_made_complex_after_the_first_call_is_refused():
    assert_close(ad.grad(through_an_attribute_given_later)(X),
                 numerical_grad(through_an_attribute_given_later, (X,), 0))
    LATER.c = C
    try:
        with pytest.raises(ComplexValue):
            ad.grad(through_an_attribute_given_later)(X)
    finally:
        LATER.c = np.array([1.0, 2.0])


def power_of_a_held_complex(x):
    return np.sum(np.abs(x * HELD.c) ** 2) + np.real(np.sum(np.fft.fft(x) * HELD.c))


def test_a_held_complex_value_through_rules_that_hold_for_it():
    # seen when the function is read (the object's attribute is complex then): differentiated
    assert_close(ad.grad(power_of_a_held_complex)(X),
                 numerical_grad(power_of_a_held_complex, (X,), 0))


# found by a review of the complex support (2026-11-28): each gave a silent wrong derivative
def through_a_comprehension(x):
    return np.sum(np.abs(np.maximum(np.array([xi * 1j for xi in x]), 0.1)))


def through_appends(z):
    out = []
    for zi in z:
        out.append(zi)
    return np.sum(np.abs(np.maximum(np.array(out), 0.1)))


LISTED = [1 + 2j]


def through_a_module_list(x):
    return np.sum(np.abs(np.maximum(x * LISTED[0], 0.1))) + np.real(np.sum(x * 1j))


def sign_of_complex(z):
    return np.sum(np.real(np.sign(z)))


def sign_of_a_complex_intermediate(x):
    return np.sum(np.real(np.sign(x * (1 + 2j) + 1j)))


Z = np.array([0.3 + 1j, -1.2 - 0.5j, 0.8 + 0.2j])
X3 = np.array([0.3, -1.2, 0.8])


@pytest.mark.parametrize("fn, arg", [
    (through_a_comprehension, X3), (through_appends, Z), (through_a_module_list, X3),
    (sign_of_complex, Z), (sign_of_a_complex_intermediate, X3)])
def test_complex_values_through_lists_globals_and_sign_are_refused(fn, arg):
    with pytest.raises(ComplexValue):
        ad.grad(fn)(arg)
    with pytest.raises(ComplexValue):
        ad.jvp(fn)(arg, tangent=np.ones(3, dtype=arg.dtype))


def sign_of_real(x):
    return np.sum(np.sign(x) * x)


def test_sign_of_real_values_stays_a_constant():
    assert_close(ad.grad(sign_of_real)(X3), np.sign(X3))


def scaled_head(x):
    return x[:2] * (1 + 1j)


def test_jacobian_of_a_complex_output_keeps_its_imaginary_part():
    # rows by reverse mode would seed real directions only (and drop 1j): columns instead
    np.testing.assert_allclose(ad.jacobian(scaled_head)(X3),
                               np.array([[1 + 1j, 0, 0], [0, 1 + 1j, 0]]))


def squared_modulus(z):
    return np.sum(np.abs(z) ** 2)


def test_check_grad_refuses_complex_arguments_it_cannot_probe():
    with pytest.raises(TypeError, match="imaginary part"):
        ad.check_grad(squared_modulus, Z)


def var_of_a_held_complex(x):
    return np.var(x * HELD.c) + np.std(x * HELD.c) + np.linalg.norm(x * LATER.c)


def test_var_std_and_norm_of_a_held_complex_value():
    # seen when the function is read: these rules hold for complex values (they were refused)
    assert_close(ad.grad(var_of_a_held_complex)(X), numerical_grad(var_of_a_held_complex, (X,), 0))
