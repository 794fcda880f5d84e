"""Lambdas as users write them inline (refused until 2026-11-25): called where they are
written, assigned two at a time, two on one line of a module. Checked against central finite
differences and HIPS autograd in every mode."""
import functools

import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode

SCALERS = lambda v: v * 2.0, lambda v: np.sin(v) * 3.0      # noqa: E731


def called_where_written(x):
    return np.sum((lambda v: v * 2.0)(x) ** 2)


def with_a_default_and_a_captured_name(x):
    a = np.sum(x)
    return np.sum((lambda v, w=2.0: v * a * w)(x * x))


def default_capture_in_a_loop(x):
    total = 0.0
    for k in range(3):
        total = total + np.sum((lambda v, s=k: np.tanh(v * (s + 1.0)))(x))
    return total


def nested_in_an_argument(x):
    return np.sum((lambda u: u * (lambda v: v + 1.0)(u))(x))


def two_assigned_together(x):
    square, cube = lambda v: v * v, lambda v: v ** 3
    return np.sum(square(x) + cube(x) * 0.5)


def module_pair_called(x):
    return np.sum(SCALERS[0](x) * SCALERS[1](x))


def in_an_if_test(x):
    if (lambda v: np.sum(v))(x) > 0:
        return np.sum(x ** 2)
    return np.sum(np.exp(x))


CASES = [called_where_written, with_a_default_and_a_captured_name, default_capture_in_a_loop,
         nested_in_an_argument, two_assigned_together, module_pair_called, in_an_if_test]


@pytest.mark.filterwarnings("ignore:Output seems independent of input")
@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_against_both_oracles(fn):
    check_every_mode(fn, np.array([0.3, -0.7, 1.1, 0.4]))


@pytest.mark.parametrize("k, expected", [(0, lambda v: 2.0), (1, lambda v: 3.0 * np.cos(v))])
def test_each_lambda_of_a_line_is_differentiated_itself(k, expected):
    np.testing.assert_allclose(ad.grad(SCALERS[k])(0.7), expected(0.7))
    np.testing.assert_allclose(ad.grad(ad.grad(SCALERS[k]))(0.7),
                               0.0 if k == 0 else -3.0 * np.sin(0.7), atol=1e-12)


def _stored_and_passed_on(x):
    return np.sum(np.vectorize(lambda t: t * 2)(x))


@pytest.mark.parametrize("transform", [ad.grad, lambda f: functools.partial(
    ad.jvp(f), tangent=np.ones(3))])
def test_a_lambda_passed_to_what_has_no_source_is_refused(transform):
    """A lambda passed on is passed as a function of its own (tests/test_functions_as_arguments.py);
    np.vectorize's object, which calls it, has no source and no rule: refused as it runs."""
    with pytest.raises(ad.TransformError, match="vectorize") as caught:
        transform(_stored_and_passed_on)(np.array([0.3, -0.7, 1.1]))
    assert caught.value.filename == __file__ and caught.value.hint


def _called_in_a_while_test(x):
    s = 1.0
    while (lambda v, w=s: np.sum(v) * w)(x) < 10.0:
        s = s * 2.0
    return np.sum(x) * s


def test_a_lambda_called_in_a_while_test_is_still_refused():
    """Made once before the loop, it would keep the defaults of the first test."""
    with pytest.raises(ad.TransformError, match="lambda") as caught:
        ad.source(ad.grad(_called_in_a_while_test))
    assert caught.value.filename == __file__ and caught.value.hint
