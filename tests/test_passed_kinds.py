"""The kinds a call of a user function passes, read from the caller's shape facts when the
caller is made (analysis/passed_kinds.py): they must be the kinds the callee's run-time
dispatch reads from the arguments themselves (analysis.kinds.kinds_of), or none at all. The
callee's code is then made once, for them, with the caller's."""
import operator

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad import cache
from s2s_ad.analysis.dims import OTHER_THAN_1
from s2s_ad.analysis.kinds import REAL, Array, Entries, kinds_of
from s2s_ad.analysis.passed_kinds import NO_KIND, passed_kinds
from test_returned_kinds import _inputs, autograd_loss, loss     # loss -> model -> dense -> act
from workloads.layered import model  # noqa: E402   (benchmarks/, on the path from there)

SIZES = st.sampled_from([1, 2, 3, 5])


def arrays(max_dims=3):
    return st.lists(SIZES, max_size=max_dims).map(lambda shape: np.zeros(shape))


def values():
    leaves = st.one_of(arrays(), st.floats(-2, 2), st.integers(-3, 3))
    return st.recursive(leaves, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.sampled_from("abc"), inner, max_size=3)), max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(values(), min_size=1, max_size=4), st.data())
def test_the_kinds_passed_are_those_the_callee_reads(caller_args, data):
    """A callee passed some of the caller's arguments (in any order, some twice) reads
    their kinds with its own size classes: the facts' kinds, renamed, say the same."""
    facts = kinds_of(caller_args)              # what the caller's facts know of them
    picked = data.draw(st.lists(st.integers(0, len(caller_args) - 1), min_size=1, max_size=4))
    described = frozenset(data.draw(st.sets(st.integers(0, len(picked) - 1))))
    passed = passed_kinds([facts[k] for k in picked], described)
    if passed is not None:
        assert passed == kinds_of([caller_args[k] for k in picked], described)
    else:                                       # only where a kind is not known
        assert any(facts[k] is None or _has_unknown(facts[k]) for k in picked)


def _has_unknown(kind):
    return type(kind) is Entries and any(e is None or _has_unknown(e) for _, e in kind.items)


def test_an_axis_known_only_not_to_be_1_is_no_kind_passed():
    assert passed_kinds([Array(2, (OTHER_THAN_1, "n3"))], frozenset()) is None
    assert passed_kinds([Array(1, None)], frozenset()) is None
    assert passed_kinds([None, REAL], frozenset()) is None


def test_classes_are_renamed_in_the_order_the_callee_meets_them():
    passed = passed_kinds([Array(2, ("n3", 1)), REAL, Array(2, ("n1", "n3")), NO_KIND],
                          frozenset())
    assert passed == (Array(2, ("n0", 1)), REAL, Array(2, ("n1", "n0")), None)


def _made_for(fn):
    return [key[-1] for key in cache._cache if key[0] is fn.__code__]


def test_the_model_is_made_once_on_the_first_call_for_the_kinds_it_is_passed():
    cache.clear()
    params, X, y = _inputs(0, 8, [4, 8, 8, 3])
    got = ad.grad(loss)(params, X, y)
    assert _made_for(model) == [kinds_of((params, X), frozenset({0}))]
    for (dW, db), (eW, eb) in zip(got, autograd.grad(autograd_loss)(params, X, y)):
        np.testing.assert_allclose(dW, eW, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(db, eb, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("batch, widths", [(8, [4, 8, 8, 3]), (3, [4, 8, 8, 3]),
                                           (4, [3, 4]), (1, [2, 1, 3])])
def test_calls_with_other_shapes_after_the_first_match_autograd(batch, widths):
    """One derivative called with other batches and widths: where the model's kinds differ
    from those its code was first made for, its dispatch makes the code for them."""
    df = ad.grad(loss)
    df(*_inputs(1, 8, [4, 8, 8, 3]))
    params, X, y = _inputs(2, batch, widths)
    for (dW, db), (eW, eb) in zip(df(params, X, y), autograd.grad(autograd_loss)(params, X, y)):
        np.testing.assert_allclose(dW, eW, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(db, eb, rtol=1e-10, atol=1e-12)


def scaled(x, factor):
    if factor > 1:                  # a branch: called, not copied into the caller
        return x * factor
    return x / factor


def caller(x, flag):
    factor = 2                      # an int on one path, a float on the other: the facts
    if flag:                        # say a number, the callee reads an int or a float
        factor = 3.0
    return np.sum(scaled(x, factor) ** 2)


@pytest.mark.parametrize("flag", [False, True])
def test_a_number_the_facts_join_from_an_int_and_a_float(flag):
    x = np.random.default_rng(3).normal(size=4)
    assert_close(ad.grad(caller)(x, flag), numerical_grad(lambda v: caller(v, flag), [x], 0))


# Programs a second reader wrote against the shape facts (2026-11-30): an argument's kind that
# the facts kept, changed where they did not look. The facts of the caller then picked a store
# for `x[r, idx]` (no repeated positions) or left out an `unbroadcast`; the kinds a callee is
# passed are read when it runs, so a callee doing the indexing was wrong only once they were
# trusted, and the same indexing inline was wrong before.
def chained(a, b):
    if a.ndim > 5:                  # a branch: called, not copied into the caller
        raise ValueError("a vector of indices, please")
    a = b = a[:, None] + 0 * a      # b is no longer the argument passed as b
    return b


def set_through_operator(d):
    if len(d) > 5:
        return 0.0
    operator.setitem(d, "i", np.array([[0, 0, 1]] * 3))
    return 0.0


def picked_squares(x, idx):
    r = np.arange(len(x))
    picked = x[r, idx]
    if x.ndim > 5:
        return picked
    return np.sum(picked * picked)


def chained_then_called(x, t):
    return picked_squares(x, chained(t, t))


def chained_then_inline(x, t):
    idx = chained(t, t)
    picked = x[np.arange(len(x)), idx]
    return np.sum(picked * picked)


def operator_then_called(x, cfg):
    z = set_through_operator(cfg)
    return picked_squares(x, cfg["i"]) + z


def operator_then_inline(x, cfg):
    z = set_through_operator(cfg)
    picked = x[np.arange(len(x)), cfg["i"]]
    return np.sum(picked * picked) + z


def alias_then_called(x, cfg, holder):
    inner = holder["cfg"]
    inner["i"] = np.array([[0, 0, 1]] * 3)
    return picked_squares(x, cfg["i"])


def alias_then_inline(x, cfg, holder):
    inner = holder["cfg"]
    inner["i"] = np.array([[0, 0, 1]] * 3)
    picked = x[np.arange(len(x)), cfg["i"]]
    return np.sum(picked * picked)


def _config():
    cfg = {"i": np.array([0, 2, 1])}
    return cfg, {"cfg": cfg}


@pytest.mark.parametrize("f, arguments", [
    (chained_then_called, lambda: (np.array([0, 0, 1]),)),
    (chained_then_inline, lambda: (np.array([0, 0, 1]),)),
    (operator_then_called, lambda: _config()[:1]),
    (operator_then_inline, lambda: _config()[:1]),
    (alias_then_called, _config),
    (alias_then_inline, _config)])
def test_an_argument_changed_where_the_facts_did_not_look(f, arguments):
    x = np.arange(9.0).reshape(3, 3) / 7.0
    got = ad.grad(f)(x, *arguments())
    assert_close(got, numerical_grad(lambda v: f(v, *arguments()), [x], 0))


def scaled_by(x, c):
    out = x * c
    if x.ndim > 5:
        return out
    return np.sum(out * out)


def reshaped_by_setattr(a):
    if a.ndim > 5:
        return 0.0
    setattr(a, "shape", (3, 1))
    return 0.0


def reshaped_by_the_unbound_method(a):
    if a.ndim > 5:
        return 0.0
    np.ndarray.resize(a, (3, 1), refcheck=False)
    return 0.0


@pytest.mark.parametrize("reshape", [reshaped_by_setattr, reshaped_by_the_unbound_method])
def test_an_array_argument_reshaped_in_place_by_a_callee(reshape):
    def f(x, c):
        z = reshape(c)
        return scaled_by(x, c) + z

    x = np.array([0.3, -1.2, 0.7])
    got = ad.grad(f)(x, np.array([1.0, 2.0, 3.0]))
    assert_close(got, numerical_grad(lambda v: f(v, np.array([1.0, 2.0, 3.0])), [x], 0))


def weighted(x, w, on):
    if on:                          # a branch: called, not copied into the caller
        return np.sum(w * np.abs(x) ** 2)
    return np.sum(np.abs(x))


def passes_a_comparison(x):
    return weighted(x, 2.0, x.shape[0] > 2)


def passes_a_sum(x):
    return weighted(x, np.sum(x), True)


def passes_a_complex_array(x):
    return weighted(x * (1.0 + 2.0j), x[0], True)


def passes_an_entry(x):
    return weighted(x[1:], x[0], True)


@pytest.mark.parametrize("f", [passes_a_comparison, passes_a_sum, passes_a_complex_array,
                               passes_an_entry])
def test_operands_whose_kinds_the_facts_may_not_pin_down(f):
    """A bool, a NumPy scalar, a complex array made in the caller, an entry of an array:
    where the facts cannot be sure of the kind read, the callee's dispatch reads it."""
    x = np.random.default_rng(5).normal(size=4)
    df = ad.grad(f)
    for _ in range(2):
        assert_close(df(x), numerical_grad(f, [x], 0))


def drops_the_first(c):
    del c[0]


def reverses(c):
    list.reverse(c)


def pops_the_first(c):
    list.pop(c, 0)


@pytest.mark.parametrize("change", [drops_the_first, reverses, pops_the_first])
def test_a_list_argument_changed_by_a_callee_before_it_is_read(change):
    # found 2026-11-30 by a second reader: the facts kept the list's entries' kinds, an
    # `unbroadcast` was left out, and NumPy raised from inside the derivative
    def f(x, c):
        change(c)
        return np.sum(x * c[0])

    def entries():
        return [np.ones(3), np.full((3, 1), 2.0)]
    x = np.array([0.3, -0.5, 1.2])
    assert_close(ad.grad(f)(x, entries()), numerical_grad(lambda v: f(v, entries()), [x], 0))


# A call before anything in the caller could change an argument runs the callee's code for
# the kinds the facts pass, reading none (analysis/entry_values.py). Anything that might
# change an argument before the call leaves the kinds to be read when the callee runs.
def picked_from(x, cfg):
    idx = cfg["i"]
    picked = x[np.arange(len(x)), idx]
    if x.ndim > 5:                  # a branch: called, not copied into the caller
        return picked
    return np.sum(picked * picked)


def calls_first(x, cfg):
    n = x.shape[0]                  # an array's shape: nothing of yours runs
    return picked_from(x, cfg) + n


CFG = {}


def _global_config():
    CFG.clear()
    CFG["i"] = np.array([0, 2, 1])
    return (CFG,)


class Buffer:
    """An object an array is made from: the array's `.base`, whose property changes CFG."""
    def __init__(self, a):
        self.a = a

    @property
    def __array_interface__(self):
        return self.a.__array_interface__

    @property
    def scale(self):
        CFG["i"] = np.array([[0, 0, 1]] * 3)
        return 1.0


def reads_a_property_of_the_base_then_calls(x, cfg, t):
    base = t.base
    scale = base.scale
    return picked_from(x, cfg) * scale


def divides_by_zero_then_calls(x, cfg, w):
    r = 1.0 / w                     # NumPy calls the error callback of yours, which changes CFG
    return picked_from(x, cfg) + 0.0 * np.sum(np.isfinite(r))


def _on_floating_point_error(kind, flag):
    CFG["i"] = np.array([[0, 0, 1]] * 3)


# found 2026-11-30 by a second reader of analysis/entry_values.py: a wrong gradient each,
# where the opening took an attribute of any value and arithmetic for running nothing of yours
def test_code_of_yours_that_an_attribute_or_arithmetic_runs_ends_the_opening():
    x = np.arange(9.0).reshape(3, 3) / 7.0
    t = np.asarray(Buffer(np.ones(3)))
    f = reads_a_property_of_the_base_then_calls
    assert_close(ad.grad(f)(x, *_global_config(), t),
                 numerical_grad(lambda v: f(v, *_global_config(), t), [x], 0))
    w = np.array([0.0, 1.0, 2.0])
    f = divides_by_zero_then_calls
    before = np.seterrcall(_on_floating_point_error)
    try:
        with np.errstate(divide="call"):
            assert_close(ad.grad(f)(x, *_global_config(), w),
                         numerical_grad(lambda v: f(v, *_global_config(), w), [x], 0))
    finally:
        np.seterrcall(before)


def stores_then_calls(x, cfg):
    cfg["i"] = np.array([[0, 0, 1]] * 3)
    return picked_from(x, cfg)


def calls_a_changer_then_calls(x, cfg):
    set_through_operator(cfg)
    return picked_from(x, cfg)


def aliases_then_calls(x, cfg):
    same = cfg
    same["i"] = np.array([[0, 0, 1]] * 3)
    return picked_from(x, cfg)


class ChangesWhenAdded:
    """An operand whose `+` changes the config it holds: an operator can run code of yours."""
    def __init__(self, cfg):
        self.cfg = cfg

    def __add__(self, other):
        self.cfg["i"] = np.array([[0, 0, 1]] * 3)
        return other


def operator_then_calls(x, cfg, changer):
    offset = changer + 0.0
    return picked_from(x, cfg) + offset


def _changer_config():
    cfg = {"i": np.array([0, 2, 1])}
    return cfg, ChangesWhenAdded(cfg)


@pytest.mark.parametrize("f, arguments", [
    (calls_first, lambda: _config()[:1]),
    (stores_then_calls, lambda: _config()[:1]),
    (calls_a_changer_then_calls, lambda: _config()[:1]),
    (aliases_then_calls, lambda: _config()[:1]),
    (operator_then_calls, _changer_config)])
def test_a_callee_called_before_or_after_an_argument_may_change(f, arguments):
    x = np.arange(9.0).reshape(3, 3) / 7.0
    df = ad.grad(f)
    for _ in range(2):
        assert_close(df(x, *arguments()), numerical_grad(lambda v: f(v, *arguments()), [x], 0))


def test_a_callee_called_first_reads_no_kinds_when_it_runs(monkeypatch):
    from s2s_ad import calls
    params, X, y = _inputs(0, 8, [4, 8, 8, 3])
    df = ad.grad(loss)
    df(params, X, y)
    read = []
    monkeypatch.setattr(calls, "kinds_of", lambda *a: read.append(a) or kinds_of(*a))
    got = df(params, X, y)
    assert read == []
    for (dW, db), (eW, eb) in zip(got, autograd.grad(autograd_loss)(params, X, y)):
        np.testing.assert_allclose(dW, eW, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(db, eb, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f, first", [
    (calls_first, True), (stores_then_calls, False), (calls_a_changer_then_calls, False),
    (aliases_then_calls, False), (operator_then_calls, False),
    (reads_a_property_of_the_base_then_calls, False), (divides_by_zero_then_calls, False)])
def test_which_calls_run_at_entry(f, first):
    """On the body as the transform reads it (normalized: the call an assignment of its own)."""
    import gast
    from s2s_ad import pipeline
    from s2s_ad.analysis.entry_values import calls_at_entry
    from s2s_ad.frontend.parse import parse_function
    from s2s_ad.naming import Namer
    parsed = parse_function(f)
    body = pipeline.normalize(parsed, Namer(set()), in_place_accumulation=False, wrt=("x",))[0]
    call = next(node for node in gast.walk(gast.Module(body=body, type_ignores=[]))
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
                and node.func.id == "picked_from")
    arguments = {"x": Array(2, ("n0", "n0")), "cfg": Entries(dict, (("i", Array(1, ("n0",))),)),
                 "changer": None,
                 "t": Array(1, ("n0",)), "w": Array(1, ("n0",))}
    assert (id(call) in calls_at_entry(body, arguments)) is first
