"""Dict comprehensions as model code writes them (refused until 2026-11-25): lowered to a
loop that stores each entry, checked against central finite differences and HIPS autograd in
every mode."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode


def scaled_by_pairs(x):
    pairs = [("a", x[0]), ("b", x[1] * 2.0)]
    d = {k: x * v for k, v in pairs}
    return np.sum(d["a"] * d["b"])


def over_a_dict_with_a_filter(x):
    params = {"w": x[:2], "b": x[2:], "skip": x[:1]}
    squared = {name: np.sum(v ** 2) for name, v in params.items() if name != "skip"}
    return squared["w"] * squared["b"] + sum(v for v in squared.values())


def computed_keys_and_two_loops(x):
    table = {f"{i}{j}": x[i] * x[j] for i in range(3) for j in range(i, 3)}
    return table["01"] * table["22"] + table["00"]


def enumerated_and_read_in_a_loop(x):
    weights = {k: np.tanh(x * (k + 1.0)) for k in range(3)}
    total = 0.0
    for k in range(3):
        total = total + np.sum(weights[k] * weights[2 - k])
    return total


def name_shadows_a_local(x):
    k = 10.0
    d = {k: x * k for k in (1.0, 2.0)}
    return np.sum(d[1.0] * d[2.0]) * k         # k is still 10: the comprehension's is its own


def with_a_walrus(x):
    d = {i: (last := x[i] * 2.0) for i in range(3)}
    return d[0] * d[2] + last


def entry_replaced_after(x):
    d = {k: x[k] * 2.0 for k in range(3)}
    d[0] = x[1] ** 2                # refused as a write through `_dict` until 2026-11-25
    return d[0] + d[1] * d[2]


def list_slot_replaced_after(x):
    xs = [np.sin(x[k]) for k in range(3)]
    xs[1] = xs[0] * x[2]
    return xs[0] * xs[1] + xs[2]


CASES = [scaled_by_pairs, over_a_dict_with_a_filter, computed_keys_and_two_loops,
         enumerated_and_read_in_a_loop, name_shadows_a_local, with_a_walrus,
         entry_replaced_after, list_slot_replaced_after]


@pytest.mark.filterwarnings("ignore:Output seems independent of input")
@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_against_both_oracles(fn):
    check_every_mode(fn, np.array([0.3, -0.7, 1.1, 0.4]))


def test_a_dict_parameter_mapped_to_a_dict():
    """`{k: f(v) for k, v in p.items()}` of a parameter dict, and its gradient as a dict."""
    def f(p):
        q = {k: np.sin(v) * 2.0 for k, v in p.items()}
        return np.sum(q["w"] * q["b"])
    p = {"w": np.array([0.3, -0.2]), "b": np.array([1.1, 0.5])}
    grad = ad.grad(f)(p)
    assert set(grad) == {"w", "b"}
    np.testing.assert_allclose(grad["w"], 4.0 * np.cos(p["w"]) * np.sin(p["b"]))
    np.testing.assert_allclose(grad["b"], 4.0 * np.sin(p["w"]) * np.cos(p["b"]))
