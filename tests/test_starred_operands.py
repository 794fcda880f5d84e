"""A starred operand (`zip(*pairs)`) is read whole: forward mode took `zip(*pairs)` of a list
built when the function runs for a constant, a zero tangent (a silent wrong jvp and jacobian,
found 2026-11-29 by a new-user review), and reverse mode refused it. `zip(*xs)` is
runtime.zipped(xs) now, with rules (passes/lower_builtin_calls.py): every mode against central
differences, also over an array's rows and sequences of two lengths (zip stops at the
shortest). A starred call with no rule is refused in both modes, with a hint that works."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import numerical_grad
from oracle_checks import check_every_mode

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


def zipped_rows(x):
    m = np.reshape(x, (2, 2)) * 1.5
    firsts, seconds = zip(*m)
    return np.sum(np.sin(firsts[0]) * seconds[1] + firsts[1] * seconds[0] ** 2)


def zipped_unequal(x):
    columns = list(zip(*[[x[0], x[1], x[2]], [x[3] * x[0], x[1]]]))
    return sum(a * np.cos(b) for a, b in columns)


def starred_helper(x):
    pairs = [(v[0], v[1]) for v in [x[:2], x[2:4]]]
    return _combine(*pairs[1])


def _combine(a, b):
    return a * np.exp(b)


@pytest.mark.parametrize("fn", [zipped_star, zipped_rows, zipped_unequal])
def test_zip_of_a_starred_list_in_every_mode(fn):
    check_every_mode(fn, X, autograd_runs=False)


@pytest.mark.parametrize("transform", [lambda f: ad.jvp(f)(X, tangent=T),
                                       lambda f: ad.grad(f)(X)])
def test_a_starred_call_with_no_rule_is_refused(transform):
    with pytest.raises(ad.TransformError, match=r"\*args unpacking") as error:
        transform(starred_helper)
    assert error.value.hint == "pass the arguments one by one"


@pytest.mark.parametrize("fn", [zipped_one_by_one, hypot_of_a_pair, largest_of_starred])
def test_operands_one_by_one_or_of_known_count(fn):
    expected = numerical_grad(fn, (X,), 0)
    np.testing.assert_allclose(ad.grad(fn)(X), expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(ad.jvp(fn)(X, tangent=T)[1], expected @ T, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn", [zipped_star, zipped_rows])
def test_reverse_over_reverse_through_zip(fn):
    # grad of the gradient's code: unzipped's adjoint, rezipped (each other's transposes)
    gradient = ad.grad(fn).as_function()
    along = T

    def directional(x):
        return np.sum(gradient(x) * along)
    np.testing.assert_allclose(ad.grad(directional)(X), ad.hvp(fn)(X, vector=T),
                               rtol=1e-9, atol=1e-12)
