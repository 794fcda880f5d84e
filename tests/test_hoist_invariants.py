"""Arithmetic on numbers that a loop does not change is done once, before it
(optimize/hoist_invariants.py): the rewrite on generated code, where it must not apply, and a
scalar loop's gradient against its hand-written one and central differences."""
import ast
import os
import sys

import gast
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad import runtime
from s2s_ad.analysis.dims import NUMBER
from s2s_ad.optimize.hoist_invariants import HoistInvariants

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
from workloads.building import heating_cost, heating_cost_by_hand, inputs  # noqa: E402

_NUMBERS = {"price", "dcost", "n", "k"}          # the shape facts of the functions below


def _rewritten(body):
    function = gast.parse("def f(price, dcost, n, k, xs, arr, seed):\n" + body).body[0]
    token = lambda name: NUMBER if name in _NUMBERS else None     # noqa: E731
    function = HoistInvariants({"seed_like": runtime.seed_like}, token).run(function)
    return ast.unparse(ast.fix_missing_locations(gast.gast_to_ast(function))).splitlines()[1:]


def test_products_of_numbers_the_loop_does_not_change_are_made_before_it():
    body = ("    total = 0.0\n"
            "    for t in xs:\n"
            "        a = price * dcost\n"
            "        b = dcost * 2 * t\n"
            "        c = a * 3 * t\n"
            "        total = total + b + c\n"
            "    return total\n")
    assert _rewritten(body) == [
        "    total = 0.0",
        "    a = price * dcost",
        "    _dcost = dcost * 2",
        "    _a = a * 3",
        "    for t in xs:",
        "        b = _dcost * t",
        "        c = _a * t",
        "        total = total + b + c",
        "    return total"]


def test_numbers_made_here_from_numbers_count_too():
    # d is seeded from a number and made by arithmetic on numbers; nothing else reads it
    body = ("    d = seed_like(n, seed, 'f')\n"
            "    e = d / n\n"
            "    for t in xs:\n"
            "        k = k + e * 2 * t\n"
            "    return k\n")
    assert "    _e = e * 2" in _rewritten(body)


@pytest.mark.parametrize("body", [
    # bound in the loop
    "    for t in xs:\n        price = price * 2\n        a = price * dcost\n    return a\n",
    # a division (or a power) may fail where the loop would not have run
    "    for t in xs:\n        a = dcost / n * t\n    return a\n",
    "    for t in xs:\n        a = dcost ** 2 * t\n    return a\n",
    # not a number: an array may be a view of one the loop writes into
    "    for t in xs:\n        arr[0] = t\n        a = arr * 2 * t\n    return a\n",
    # regrouping would round differently
    "    for t in xs:\n        a = t * 2 * dcost\n    return a\n",
    # evaluated only sometimes
    "    for t in xs:\n        a = t if t else dcost * 2\n    return a\n",
])
def test_left_in_the_loop(body):
    expected = ast.unparse(ast.parse("def f(price, dcost, n, k, xs, arr, seed):\n" + body)
                           ).splitlines()[1:]
    assert _rewritten(body) == expected


def test_a_statement_read_in_the_loop_before_it_runs_stays_there():
    # the first step reads a's value from before the loop: only the product moves out
    body = "    a = 0.0\n    for t in xs:\n        b = a + t\n        a = price * dcost\n    return b\n"
    assert _rewritten(body) == ["    a = 0.0", "    _price = price * dcost", "    for t in xs:",
                                "        b = a + t", "        a = _price", "    return b"]


def test_a_number_held_elsewhere_is_not_taken_for_one_nobody_changes():
    # e is bound by arithmetic on numbers, but a call also receives it: not taken as fixed
    body = ("    e = dcost * n\n"
            "    keep(e)\n"
            "    for t in xs:\n"
            "        k = k + e * 2 * t\n"
            "    return k\n")
    assert not any("_e = e * 2" in line for line in _rewritten(body))


def test_the_scalar_loop_gradient_is_unchanged_and_hoisted():
    heating, outside = inputs(np.random.default_rng(0), 20)
    df = ad.grad(heating_cost)
    got = df(heating, outside)
    source = ad.source(df)
    before_loop = source.split("for t in steps[::-1]:")[0]
    assert "_dcost = dcost * 2" in before_loop and "d_pow2 = price * dcost" in before_loop, source
    np.testing.assert_allclose(got, heating_cost_by_hand(heating, outside), rtol=1e-12)
    assert_close(got, numerical_grad(lambda h: heating_cost(h, outside), [heating], 0))
