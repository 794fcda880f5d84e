"""`copy.deepcopy` of the lists and dicts of arrays a function builds (issue 15): a new object
all through (runtime.deep_copy, with rules), so that writing into its slots changes nothing the
original holds. Every mode against central finite differences (HIPS autograd cannot run the
in-place writes). A write into an array inside an entry (`e["a"][0] = v`) stays refused, with a
hint (take the entry out as a copy, write, put it back) that works, checked here too."""
import copy

import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode

X = np.array([0.3, -0.7, 1.1, 0.4])


def list_slots_updated(x):
    d = [x * 2.0, np.sin(x)]
    e = copy.deepcopy(d)
    e[1] *= 3.0
    e[0] = e[0] + x
    return np.sum(e[1] * d[1]) + np.sum(e[0] * d[0])


def params_copied_then_stepped(x):
    params = {"w": np.tanh(x), "b": [x * x, x + 1.0]}
    new = copy.deepcopy(params)
    new["w"] = new["w"] - 0.1 * x
    b = new["b"].copy()
    b[0] = b[0] * params["w"]
    new["b"] = b
    return np.sum(new["w"] * params["w"]) + np.sum(new["b"][0]) + np.sum(params["b"][1])


def entry_taken_out_as_hinted(x):
    d = {"a": x * 2.0, "b": [x, x + 1.0]}
    e = copy.deepcopy(d)
    a = e["a"].copy()
    a[0] = 5.0
    e["a"] = a
    return np.sum(e["a"] * d["a"]) + np.sum(e["b"][1])


@pytest.mark.parametrize("fn", [list_slots_updated, params_copied_then_stepped,
                                entry_taken_out_as_hinted])
def test_every_mode(fn):
    check_every_mode(fn, X, autograd_runs=False)


def entry_written_into(x):
    d = {"a": x * 2.0}
    e = copy.deepcopy(d)
    e["a"][0] = 5.0
    return np.sum(e["a"] * d["a"])


def test_a_write_into_an_entry_stays_refused_with_the_hint_that_works():
    with pytest.raises(ad.TransformError) as info:
        ad.grad(entry_written_into)(X)
    assert 'entry = e["a"].copy()' in info.value.hint
