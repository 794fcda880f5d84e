"""An unpacking `a, b = t` is read entry by entry in normal form (`a = t[0]; b = t[1]`), which
alone would accept a `t` of three entries that Python refuses: the derivative checks the
length as the function as written does (ValueError), in every mode, for plain unpacking, loop
headers (`for W, b in params`) and nested targets; a `t` of the right length is differentiated
as before (checked against central differences)."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def pair_product(t):
    a, b = t
    return np.sum(a * b)


def layers(params):
    s = 0.0
    for W, b in params:
        s = s + np.sum(np.tanh(W) * b)
    return s


def nested(t):
    (a, b), c = t
    return np.sum(a * b * c)


A, B, C = np.array([0.3, -1.2]), np.array([1.1, 0.4]), np.array([-0.7, 2.0])
TOO_LONG = [(pair_product, (A, B, C)), (layers, [(A, B, C)]), (nested, ((A, B, C), C)),
            (nested, ((A, B), C, C))]
TOO_SHORT = [(pair_product, (A,)), (layers, [(A,)]), (nested, ((A,), C))]


@pytest.mark.parametrize("fn, arg", TOO_LONG + TOO_SHORT)
def test_the_wrong_length_raises_as_python_does(fn, arg):
    with pytest.raises(ValueError):
        fn(arg)
    for transform in (ad.grad(fn), ad.value_and_grad(fn)):
        with pytest.raises(ValueError, match="values to unpack"):
            transform(arg)
    with pytest.raises(ValueError, match="values to unpack"):
        ad.jvp(fn)(arg, tangent=arg)
    with pytest.raises(ValueError, match="values to unpack"):
        ad.hvp(fn)(arg, vector=arg)


def test_the_right_length_is_differentiated():
    x = np.concatenate([A, B, C])

    def flat(v):
        return pair_product((v[:2], v[2:4])) + layers([(v[:2], v[4:])]) + \
            nested(((v[2:4], v[4:]), v[:2]))
    expected = numerical_grad(flat, (x,), 0)
    assert_close(ad.grad(flat)(x), expected)
    direction = np.array([0.2, -1.0, 0.5, 0.3, 1.2, -0.4])
    assert_close(ad.jvp(flat)(x, tangent=direction)[1], expected @ direction)
