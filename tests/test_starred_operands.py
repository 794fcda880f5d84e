"""A starred operand (`zip(*pairs)`) is read whole: forward mode took `zip(*pairs)` of a list
built when the function runs for a constant, a zero tangent (a silent wrong jvp and jacobian,
found 2026-11-29 by a new-user review); it is refused in both modes now, as reverse mode
refused it, and the hint (the arguments one by one) works. Starred operands of rules whose
count is known are differentiated."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import numerical_grad

X = np.array([0.5, -1.2, 0.8, 2.0])
T = np.array([0.3, 1.0, -0.5, 0.2])


def zipped_star(x):
    pairs = [(v[0], v[1]) for v in [x[:2], x[2:4]]]
    a, b = zip(*pairs)
    return a[0] * b[0] + a[1] * b[1]


def zipped_one_by_one(x):
    pairs = [(v[0], v[1]) for v in [x[:2], x[2:4]]]
    a, b = zip(pairs[0], pairs[1])
    return a[0] * b[0] + a[1] * b[1]


def hypot_of_a_pair(x):
    pair = [x[0], x[1]]
    return np.hypot(*pair)


def largest_of_starred(x):
    xs = [x[0], x[1] * 2, x[2]]
    return max(*xs)


@pytest.mark.parametrize("transform", [lambda f: ad.jvp(f)(X, tangent=T),
                                       lambda f: ad.grad(f)(X), lambda f: ad.jacobian(f)(X)])
def test_a_starred_list_built_at_run_time_is_refused(transform):
    with pytest.raises(ad.TransformError, match=r"\*args unpacking") as error:
        transform(zipped_star)
    assert error.value.hint == "pass the arguments one by one"


@pytest.mark.parametrize("fn", [zipped_one_by_one, hypot_of_a_pair, largest_of_starred])
def test_operands_one_by_one_or_of_known_count(fn):
    expected = numerical_grad(fn, (X,), 0)
    np.testing.assert_allclose(ad.grad(fn)(X), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ad.jvp(fn)(X, tangent=T)[1], expected @ T, rtol=1e-6, atol=1e-8)
