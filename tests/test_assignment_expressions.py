"""Assignment expressions (`:=`) as users write them: in statements, in the tests of `if` and
`while`, in comprehensions, under `and` / `or` and conditional expressions (refused until
2026-11-25). Each is lowered to a plain assignment before its statement; the checks are
against central finite differences and HIPS autograd, in every mode."""
import re

import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode


def in_a_statement(x):
    total = np.sum((h := np.tanh(x * 2.0)) * h)
    return total + np.sum(h)


def alone_as_a_statement(x):
    (y := np.sin(x))
    return np.sum(y * x)


def in_an_if_test(x):
    if (s := np.sum(x ** 2)) > 1.0:
        y = s * x
    elif (t := np.sum(x)) > 0:
        y = t * x
    else:
        y = x
    return np.sum(np.sin(y))


def in_a_while_test(x):
    y = x
    steps = 0
    while (n := np.sum(y ** 2)) < 50.0:
        y = y * 1.5 + 0.1
        steps += 1
    return n + np.sum(y) + steps


def in_a_while_test_with_continue(x):
    y = x
    k = 0
    acc = 0.0
    while (k := k + 1) < 6:
        y = np.sin(y) + x
        if k % 2 == 0:
            continue
        acc = acc + np.sum(y * k)
    return acc + k


def reads_the_old_value_first(x):
    y = x * 3.0
    z = y + (y := np.cos(x)) * 2.0           # the old y, then the new
    return np.sum(z * y)


def calls_before_the_walrus_run_first(x):
    xs = [x, x * 2.0, x * 3.0]
    z = xs.pop() + (w := xs.pop()) * 10.0    # pops x * 3 first, then x * 2
    return np.sum(z * w)


def under_and_or(x):
    s = np.sum(x)
    if s > -100 and (m := np.max(np.sin(x))) > -2.0:
        y = m * x
    else:
        y = x
    if s < -100 or (q := np.sum(x * x)) > 0:
        y = y * q
    return np.sum(y)


def in_a_branch_that_does_not_run(x):
    m = np.sum(x)
    y = (m := m * 2.0) if np.sum(x) > 100.0 else m * 3.0
    return np.sum(y * x) + m


def in_a_conditional_expression(x):
    y = (a := np.sum(x ** 2)) if np.sum(x) < 100.0 else 0.0
    return y * a


def in_a_comprehension(x):
    ys = [(last := np.sin(x[i]) * (i + 1)) for i in range(3)]
    kept = [z for i in range(3) if (z := x[i] * 2.0) > -10.0]
    return sum(ys) * last + sum(kept) * z


def in_a_nested_function(x):
    def g(v):
        return (w := v * 2.0) * w
    return np.sum(g(x))


def in_a_loop(x):
    acc = 0.0
    for k in range(3):
        if (c := np.sum(x) * k) > -100.0:
            acc = acc + c * x[k]
    return acc


CASES = [in_a_statement, alone_as_a_statement, in_an_if_test, in_a_while_test,
         in_a_while_test_with_continue, reads_the_old_value_first,
         calls_before_the_walrus_run_first, under_and_or, in_a_branch_that_does_not_run,
         in_a_conditional_expression, in_a_comprehension, in_a_nested_function,
         in_a_loop]


@pytest.mark.filterwarnings("ignore:Output seems independent of input")
@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_against_both_oracles(fn):
    check_every_mode(fn, np.array([0.3, -0.7, 1.1, 0.4]))


def _lambda_body(x):
    return np.sum((lambda v: (w := v * 2.0) * w)(x))


def _generator(x):
    return sum((y := v * 2.0) for v in x) + y


def _chained(x):
    return np.sum(x) if 0 < np.sum(x) < (m := 5.0) else m


def _rebinds_the_updated_name(x):
    y = x * 1.0
    y += (y := x * 2.0)
    return np.sum(y)


@pytest.mark.parametrize("fn, where", [
    (_lambda_body, "inside a lambda"), (_generator, "inside a generator expression"),
    (_chained, "in a later operand of a chained comparison"),
    (_rebinds_the_updated_name, "that rebinds a name `+=` reads before it")])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_refused_where_it_cannot_be_ordered(fn, where, mode):
    """Still refused, at the walrus in the user's file, with a hint that works."""
    with pytest.raises(ad.TransformError) as caught:
        ad.source(getattr(ad, mode)(fn))
    error = caught.value
    assert where in error.message and ":=" in error.message
    assert error.filename == __file__
    assert re.match(r"\w+ :=", error.source_line[error.col:])        # the caret is at it
    assert error.hint == "assign the value on its own line first"
