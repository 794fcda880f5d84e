"""Statements that change no value on a run that returns (issue 15): `with np.errstate(...)`
(and `warnings.catch_warnings()`), `try`/`finally`, and `match` over values, captures and
guards. Each in every mode against central finite differences and HIPS autograd; what stays
refused (`all="raise"`, `try`/`except`, sequence patterns) is refused with its line."""
import warnings

import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode
from s2s_ad.errors import TransformError

X = np.array([0.3, -0.7, 1.1, 0.4])


def errstate(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x * x) * np.sin(x)
    return np.sum(y)


def nested_errstate_in_loop(x):
    total = 0.0
    for k in range(3):
        with warnings.catch_warnings():
            with np.errstate(over="ignore"):
                total = total + np.sum(np.exp(x * k) * x)
    return total


def try_finally(x):
    y = x * 2.0
    try:
        y = np.tanh(y)
    finally:
        z = y * y
    return np.sum(z + y)


def by_value(x, kind="cos"):
    match kind:
        case "sin" | "tanh":
            y = np.sin(x)
        case "cos":
            y = np.cos(x) * x
        case None:
            y = x
        case _:
            y = x * x
    return np.sum(y)


def capture_with_guard(x, n=3):
    match n:
        case 0:
            y = x
        case m if m > 2:
            y = np.sin(x) * m
        case m:
            y = x * m
    return np.sum(y * x)


def on_an_expression(x):
    match x.shape[0] % 3:
        case 1:
            return np.sum(np.exp(x))
        case _:
            return np.sum(x * x)


@pytest.mark.parametrize("fn", [errstate, nested_errstate_in_loop, try_finally, by_value,
                                capture_with_guard, on_an_expression])
def test_every_mode(fn):
    check_every_mode(fn, X)


def test_errstate_block_value():
    """The value is the function's; the derivative code
    runs the block's statements without the errstate (it may warn: README notes it)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value, grad = ad.value_and_grad(errstate)(np.array([0.5, 1.0]))
    np.testing.assert_allclose(value, errstate(np.array([0.5, 1.0])))


def raising_errstate(x):
    with np.errstate(all="raise"):
        y = np.log(x)
    return np.sum(y)


def try_except(x):
    try:
        y = np.log(x)
    except FloatingPointError:
        y = x
    return np.sum(y)


def sequence_pattern(x, pair=(1, 2)):
    match pair:
        case (a, b):
            y = x * a
        case _:
            y = x
    return np.sum(y)


def return_in_try(x):
    y = np.sin(x)
    try:
        return np.sum(y)
    finally:
        y[0] = 0.0


@pytest.mark.parametrize("fn, text", [(raising_errstate, "np.errstate(all=\"raise\")"),
                                      (return_in_try, "try:"),
                                      (try_except, "try:"), (sequence_pattern, "match pair:")])
def test_still_refused_at_its_line(fn, text):
    with pytest.raises(TransformError) as info:
        ad.grad(fn)(X)
    assert text in str(info.value)
    assert "hint:" in str(info.value)
