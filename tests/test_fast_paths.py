"""The fast paths that specialized code and the run-time helpers take where they can prove
they may, each with the cases where they must not apply: every answer is checked against an
independent formula or central differences."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from s2s_ad import cache, runtime
from s2s_ad.analysis.kinds import kinds_of


def _reference_share(g, x, axis, keepdims):
    """The adjoint of np.max(x, axis, keepdims) written out: g split equally between the
    entries that attain each group's max."""
    y = np.max(x, axis=axis, keepdims=True)
    hits = x == y
    ties = np.sum(hits, axis=axis, keepdims=True)
    g = g if keepdims or axis is None else np.expand_dims(g, axis)
    return hits * g / ties


_TIED = np.array([[1.0, 3.0, 3.0], [2.0, 0.5, 1.0], [4.0, 4.0, 4.0], [0.0, -1.0, 0.0]])
_CASES = [
    (np.arange(12.0).reshape(3, 4) % 5, 1, True),         # one winner a row
    (np.arange(12.0).reshape(3, 4) % 5, 1, False),
    (_TIED, 1, True), (_TIED, 1, False), (_TIED, 0, False), (_TIED, -1, True),
    (_TIED, None, False), (_TIED, None, True), (_TIED, (0, 1), False),
    (np.array([1.0, 3.0, 2.0]), None, False), (np.array([1.0, 3.0, 3.0]), 0, False),
    (np.arange(24.0).reshape(2, 3, 4), (0, 2), True), (np.arange(24.0).reshape(2, 3, 4), (0, -1), False),
    # one group ties twice, the other's max is NaN: as many hits as groups, not one each
    (np.array([[3.0, 3.0], [np.nan, 1.0]]), 1, True),
    (np.array([[2, 7, 7], [1, 0, 5]]), 1, False),          # integers: no NaN to look for
]


@pytest.mark.parametrize("x, axis, keepdims", _CASES)
def test_extremum_share_matches_the_written_out_adjoint(x, axis, keepdims):
    rng = np.random.default_rng(0)
    y = np.max(x, axis=axis, keepdims=keepdims)
    g = rng.normal(size=np.shape(y)) + 2.0
    got = runtime.extremum_share(g, x, y, axis, keepdims)
    assert got.shape == x.shape
    np.testing.assert_allclose(got, _reference_share(g, x, axis, keepdims), equal_nan=True)


@pytest.mark.parametrize("x, axis, keepdims", _CASES)
def test_extremum_gather_is_the_transpose_of_share(x, axis, keepdims):
    rng = np.random.default_rng(1)
    y = np.max(x, axis=axis, keepdims=keepdims)
    g = rng.normal(size=np.shape(y))
    u = rng.normal(size=x.shape)
    gathered = runtime.extremum_gather(u, x, y, axis, keepdims)
    assert np.shape(gathered) == np.shape(y)
    share = _reference_share(g, x, axis, keepdims)
    if np.isnan(share).any():          # a NaN max: its group has no winner, NaN both ways
        assert np.isnan(gathered).any()
        return
    np.testing.assert_allclose(np.sum(share * u), np.sum(g * gathered))     # <share g, u> = <g, gather u>


# --- an adjoint stored at positions that never repeat: x[np.arange(n), y] ------------------

import s2s_ad as ad  # noqa: E402
from fd import assert_close, assert_layers_close, numerical_grad  # noqa: E402


def picked_rows(x, y):
    rows = np.arange(x.shape[0])
    return np.sum(np.log(x[rows, y]) * np.arange(1.0, x.shape[0] + 1))


def picked_columns(x, y):
    return np.sum(np.exp(x[y, np.arange(x.shape[1])]) * 2.0)


def picked_and_a_number(x, y):
    return np.sum(x[np.arange(len(x)), 1] ** 2) + np.sum(x[np.arange(len(x)), y])


def range_read_otherwise(x, y):
    rows = np.arange(x.shape[0])
    return np.sum(x[rows, y] ** 2) + np.sum(rows)


def repeated_rows(x, y, rows):
    return np.sum(x[rows, y] ** 2)


def range_against_a_matrix(x, y2):
    # the range stands along the last axis of a (2, n) index: rows repeat across its rows
    return np.sum(x[np.arange(x.shape[0]), y2] ** 2)


def _check(f, *args, distinct):
    df = ad.grad(f)
    got = df(*args)
    assert_close(got, numerical_grad(f, args, 0), rtol=1e-6, atol=1e-8)
    assert ("scatter_distinct(" in ad.source(df)) == distinct, ad.source(df)


def test_a_store_where_each_row_is_picked_once():
    rng = np.random.default_rng(0)
    x = rng.uniform(1.0, 2.0, size=(5, 3))
    y = np.array([0, 2, 2, 1, 2])                  # repeated columns, distinct rows
    _check(picked_rows, x, y, distinct=True)
    _check(picked_columns, rng.normal(size=(4, 3)), np.array([3, 3, 0]), distinct=True)
    _check(picked_and_a_number, x, np.array([-1, 0, -1, 2, 2]), distinct=True)


def test_np_add_at_where_positions_may_repeat():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(4, 3))
    _check(range_read_otherwise, x, np.array([0, 1, 1, 2]), distinct=False)
    _check(repeated_rows, x, np.array([0, 1, 1, 2]), np.array([1, 1, 3, 1]), distinct=False)
    _check(range_against_a_matrix, x, np.array([[0, 1, 1, 2], [0, 0, 2, 1]]), distinct=False)
    _check(picked_rows, rng.uniform(1.0, 2.0, size=(1, 3)), np.array([2, 2, 2]), distinct=False)


def test_hessian_vector_product_through_the_store():
    """hvp differentiates the specialized gradient, scatter_distinct included."""
    rng = np.random.default_rng(2)
    x, y = rng.uniform(1.0, 2.0, size=(5, 3)), np.array([0, 2, 2, 1, 2])
    v = rng.normal(size=x.shape)
    grad = ad.grad(picked_rows)
    grad(x, y)
    assert "scatter_distinct(" in ad.source(grad)
    eps = 1e-5
    expected = (grad(x + eps * v, y) - grad(x - eps * v, y)) / (2 * eps)
    assert_close(ad.hvp(picked_rows)(x, y, vector=v), expected, rtol=1e-5, atol=1e-7)


# --- a callee's code specialized to the kinds of each call's arguments -----------------------

def lin(x, W, b):
    return x @ W + b


def stacked(params, x):
    h = x
    for W, b in params:
        h = np.tanh(lin(h, W, b))
    return np.sum(h ** 2)


def _layer_grads(params, x):
    """Central differences of stacked for each W and b."""
    grads = []
    for k, (W, b) in enumerate(params):
        def at(position, value, k=k):
            changed = [list(layer) for layer in params]
            changed[k][position] = value
            return stacked([tuple(layer) for layer in changed], x)
        grads.append((numerical_grad(lambda v: at(0, v), [W], 0),
                      numerical_grad(lambda v: at(1, v), [b], 0)))
    return grads


def test_a_callee_called_with_other_shapes_gets_code_for_each():
    """One layer's bias is a row, one a single entry broadcast over the columns, one a
    number: each call of `lin` unbroadcasts what its own arguments broadcast."""
    rng = np.random.default_rng(3)
    params = [(rng.normal(size=(3, 4)), rng.normal(size=4)),
              (rng.normal(size=(4, 2)), rng.normal(size=1)),
              (rng.normal(size=(2, 2)), 0.3)]
    df = ad.grad(stacked)
    for x in (rng.normal(size=(5, 3)), rng.normal(size=(1, 3)), rng.normal(size=(2, 3))):
        got = df(params, x)
        for (dW, db), (eW, eb) in zip(got, _layer_grads(params, x)):
            assert np.shape(dW) == np.shape(eW) and np.shape(db) == np.shape(eb)
            assert_close(dW, eW, rtol=1e-6, atol=1e-8)
            assert_close(db, eb, rtol=1e-6, atol=1e-8)


def model(params, x):
    h = x
    for W, b in params:
        h = np.tanh(h @ W + b)
    return h


def loss_of_model(params, x):
    return np.sum(model(params, x) ** 2)


def _made_for(fn):
    """The kinds each derivative the cache holds for `fn` was made for."""
    return [key[-1] for key in cache._cache if key[0] is fn.__code__]


def test_a_callee_is_made_for_the_layers_it_walks():
    """`model` walks its layers: their kinds (joined over layers of different widths) make
    the loop's code shape-aware, so the callee's code is made for them, and for them alone:
    the caller's facts say what it passes (analysis/passed_kinds.py); its gradient is right
    leaf by leaf."""
    rng = np.random.default_rng(4)
    params = [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 2)),
                                                              rng.normal(size=2))]
    x = rng.normal(size=(5, 3))
    cache.clear()
    got = ad.grad(loss_of_model)(params, x)
    made = _made_for(model)
    assert len(made) == 1 and made[0] == kinds_of((params, x), frozenset({0}))
    assert_layers_close(got, loss_of_model, params, x)


def affine(x, W, b):
    out = x @ W + b
    if out.ndim > 5:            # a branch: a call, not inlined (passes/inline_helpers.py)
        out = out * 2.0
    return out


def loss_of_affine(x, W, b):
    return np.sum(np.tanh(affine(x, W, b)) ** 2)


def test_a_callee_reading_its_arrays_in_place_is_made_for_their_kinds():
    rng = np.random.default_rng(5)
    x, W, b = rng.normal(size=(5, 3)), rng.normal(size=(3, 4)), rng.normal(size=4)
    cache.clear()
    got = ad.grad(loss_of_affine, wrt=(1, 2))(x, W, b)
    assert len(_made_for(affine)) == 2 and None in _made_for(affine)
    for k in (1, 2):
        assert_close(got[k - 1], numerical_grad(loss_of_affine, [x, W, b], k))


# --- a dict adjoint filled entry by entry ----------------------------------------------------

def dict_layers(params, x):
    h = np.tanh(x @ params["W"] + params["b"])
    return np.sum(h ** 2) * params["scale"]


def dict_read_twice(params, x):
    a = np.sum(params["w"] * x)
    b = np.sum(params["w"] ** 2)                 # "w" read again: its two terms add
    return a + b * params["s"]


def dict_entries_by_differences(f, params, x):
    out = {}
    for key in params:
        def at(v, key=key):
            changed = dict(params)
            changed[key] = v
            return f(changed, x)
        out[key] = numerical_grad(at, [params[key]], 0)
    return out


@pytest.mark.parametrize("f, params", [
    (dict_layers, {"W": np.arange(6.0).reshape(3, 2) / 7, "b": np.array([0.1, -0.2]),
                   "scale": 1.5}),
    (dict_read_twice, {"w": np.array([0.5, -1.0, 2.0]), "s": 0.7}),
])
def test_dict_adjoint_entries_against_differences(f, params):
    x = np.linspace(-1.0, 1.0, 12).reshape(4, 3)[:, :3] if f is dict_layers else np.array([1.0, 2.0, 3.0])
    df = ad.grad(f)
    got = df(params, x)
    assert set(got) == set(params)
    for key, expected in dict_entries_by_differences(f, params, x).items():
        assert_close(got[key], expected, rtol=1e-6, atol=1e-8)
    if f is dict_layers:
        source = ad.source(df)                      # made in one call, not merged
        assert "scatter_entries(params, " in source and "dparams + " not in source, source


# --- NumPy reductions of known arrays called as methods --------------------------------------

def reductions_of_an_array(x, xs):
    m = np.max(x, axis=0, keepdims=True)
    return np.sum((x - m) ** 2) + np.mean(x, axis=1).sum() + np.sum(xs) * np.min(x)


def test_reductions_of_arrays_are_methods_and_of_lists_stay_functions():
    x, xs = np.array([[1.0, 4.0], [3.0, 2.0], [0.5, 5.0]]), [0.5, 1.5]
    expected = numerical_grad(reductions_of_an_array, [x, xs], 0)
    grad, jvp = ad.grad(reductions_of_an_array), ad.jvp(reductions_of_an_array)
    assert_close(grad(x, xs), expected)
    v = np.arange(6.0).reshape(3, 2) - 2.0
    assert_close(jvp(x, xs, tangent=v)[1], np.sum(expected * v))
    for derivative in (grad, jvp):
        source = ad.source(derivative)
        assert "x.max(axis=0, keepdims=True)" in source and "np.sum(xs)" in source, source


# --- the adjoint of a whole sum carried as a number until it becomes a gradient --------------

def doubled_until_large(a):
    b = a * 2
    while np.linalg.norm(b) < 100:
        b = b * 2
    c = b if np.sum(b) > 0 else -3.0 * b
    return np.sum(c) / 4.0


def sum_and_squares(a):
    c = a * 3.0
    return np.sum(c) + np.sum(c ** 2)          # an array adjoint joins the spread number


def sum_of_sines(a):
    return np.sum(np.sin(a * 2.0))             # the spread meets an array factor


def sum_of_a_broadcast(a):
    return np.sum((a * 2.0) + np.zeros((3, 4)))   # spread to (3, 4), a gradient of (4,)


@pytest.mark.parametrize("f, carried", [(doubled_until_large, True), (sum_and_squares, False),
                                        (sum_of_sines, False), (sum_of_a_broadcast, False)])
def test_a_whole_sum_adjoint_carried_as_a_number(f, carried):
    rng = np.random.default_rng(4)
    for a in (rng.normal(size=4), -np.abs(rng.normal(size=4))):
        df = ad.grad(f)
        assert_close(df(a), numerical_grad(f, [a], 0), rtol=1e-6, atol=1e-8)
        v = rng.normal(size=4)
        eps = 1e-5
        expected = (df(a + eps * v) - df(a - eps * v)) / (2 * eps)
        assert_close(ad.hvp(f)(a, vector=v), expected, rtol=1e-5, atol=1e-6)
        assert ("gradient_like(unreduce(" in ad.source(df)) == carried, ad.source(df)


def rows_and_ends(x):
    return np.sum(x[0] * x[1]) + np.sum(x[2] ** 2) * np.sum(x[-1]) + np.sum(x[1] ** 3)


def pair_read_again(p):
    return np.sum(p[0] * p[1]) + np.sum(p[0] ** 3)


def pair_terms(pairs):
    total = 0.0
    for a, b in pairs:
        total = total + np.sum(a * b) + np.sum(a ** 2)
    return total


def test_entries_stored_at_int_keys_against_differences():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(3, 2))        # x[2] and x[-1] are one row: their terms add
    df = ad.grad(rows_and_ends)
    assert_close(df(x), numerical_grad(rows_and_ends, [x], 0), rtol=1e-6, atol=1e-8)
    assert "dx[" not in ad.source(df)     # an array's rows: np.add.at refuses a complex row
    a, b = rng.normal(size=2), rng.normal(size=2)
    df = ad.grad(pair_read_again)
    da, db = df((a, b))
    assert_close(da, b + 3 * a ** 2)
    assert_close(db, a)
    # the entries read once, in one call; p[0] read twice adds its second adjoint
    assert "dp = scatter_entries(p, (0, 1), " in ad.source(df) and \
        "dp + scatter(p, 0" in ad.source(df), ad.source(df)
    pairs = [(rng.normal(size=2), rng.normal(size=2)) for _ in range(3)]
    got = ad.grad(pair_terms)(pairs)
    for k, (a, b) in enumerate(pairs):
        assert_close(got[k][0], b + 2 * a)
        assert_close(got[k][1], a)


def two_whole_sums(x):
    return 0.5 * np.sum(x) + np.sum(x) * 2.0


def test_two_spread_numbers_added_are_one_number_spread():
    """Found by the fuzzer: the second spread, inside `dx = dx + unreduce(...)`, was left an
    array while the first was carried as a number, and their sum was spread again."""
    x = np.array([0.7, 0.4, -0.2, 0.1])
    df = ad.grad(two_whole_sums)
    assert_close(df(x), numerical_grad(two_whole_sums, [x], 0), rtol=1e-6, atol=1e-8)
    assert "gradient_like(unreduce(" in ad.source(df), ad.source(df)


def test_kinds_read_by_shapes_are_the_kinds():
    """kinds_of keeps the kinds of numbers, None and arrays by their types and shapes: the
    second call with the same shapes must get what reading the values gives."""
    from s2s_ad.analysis import kinds
    rng = np.random.default_rng(6)
    cases = [(rng.normal(size=(8, 4)), rng.normal(size=(4, 8)), rng.normal(size=8)),
             (rng.normal(size=(8, 8)), rng.normal(size=(8, 8)), rng.normal(size=8)),
             (rng.normal(size=(1, 3)), np.arange(3), 2, None, np.float32(1.0)),
             (rng.normal(size=(1, 3)), np.arange(3) > 1, 2.0, None, np.float32(1.0))]
    W = rng.normal(size=(3, 4))
    cases += [({"W": W, "b": np.zeros(4)}, rng.normal(size=(5, 3))),
              ({"W": W, "b": np.zeros(1)}, rng.normal(size=(5, 3))),
              ({"b": np.zeros(4), "W": W}, rng.normal(size=(5, 3))),
              ({"W": W, "inner": {"c": np.zeros(3)}}, 1.0),
              ({"W": W, "inner": {"c": np.zeros(4)}}, 1.0),
              ({"W": W, "n": 3}, [1.0, 2.0])]
    cases += [([(W, np.zeros(4)), (W.T, np.zeros(3))], 1.0),
              ([(W, np.zeros(4)), (W.T, np.zeros(4))], 1.0),
              ([(W, np.zeros(4))], [1, 2.0, True, np.float32(3.0)]),
              ((W, [1.0, 2.0]), ()), ([np.zeros(3)] * 20, [W]), ([W, np.zeros(2, complex)],),
              ([W, 1j], [1.0, 2j]), ([], (1.0, np.zeros(3)))]
    for values in cases + cases:
        sizes = {}
        expected = tuple(kinds.kind_of(v, sizes) for v in values)
        assert kinds.kinds_of(values) == expected, values
    undescribed = ({"W": W}, {"W": np.zeros(2)})
    assert kinds.kinds_of(undescribed, frozenset({0})) == \
        (kinds.kind_of(undescribed[0], {}), None)
    lists = ([W], [(W, W)], [1.0, 2.0])
    for _ in range(2):
        assert kinds.kinds_of(lists, frozenset({0})) == \
            (kinds.kind_of([W], {}), None, kinds.REALS)


_LEAVES = st.one_of(st.sampled_from([(2,), (3,), (2, 3), ()]).map(np.zeros),
                   st.sampled_from([(2,), (3,)]).map(lambda s: np.zeros(s, complex)),
                   st.sampled_from([1.0, 2, True, None, "text"]))
_NESTED = st.one_of(_LEAVES, st.lists(_LEAVES, max_size=18), st.lists(_LEAVES, max_size=3).map(tuple))


@settings(max_examples=300, deadline=None)
@given(st.lists(_NESTED, max_size=18))
def test_the_key_of_a_list_of_layers_is_the_key_read_entry_by_entry(sequence):
    """_layers_key, the one-loop reading of a list of (W, b) layers, gives the key the
    entry-by-entry reading gives, or leaves it to that reading (None)."""
    from s2s_ad.analysis import kinds
    fast = kinds._layers_key(sequence)
    assert fast is None or fast == kinds._plain_key(sequence, None)


def test_kinds_that_describe_every_value_leave_no_complex_value_out():
    """describes_all(kinds) lets a call skip looking for complex values: it must be False
    wherever some value (an entry too) has no kind."""
    from s2s_ad.analysis import kinds
    W = np.ones((2, 3))
    assert kinds.describes_all(kinds.kinds_of(({"W": W, "n": 2}, [(W, W[0])], [1.0], 3)))
    for values in [({"W": W, "c": 1j},), ([(W, W.astype(complex))],), (W.astype(complex),),
                   ([W, object()],), (1j,), (W, "text")]:
        assert not kinds.describes_all(kinds.kinds_of(values)), values
    assert not kinds.describes_all(None)
    assert not kinds.describes_all(kinds.kinds_of(({"W": W},), frozenset()))


# --- a gradient a callee hands back converted is not converted again --------------------------

def _tanh_layer(x, W, b):
    if np.ndim(W) != 2:         # a branch: a call, not copied in (passes/inline_helpers.py)
        raise ValueError("W is a matrix")
    return np.tanh(x @ W + b)


def _tanh_stack(params, x):
    for W, b in params:
        x = _tanh_layer(x, W, b)
    return x


def passed_to_a_callee(W, b, x):
    return np.sum(_tanh_layer(x, W, b) ** 2)


def passed_and_read_again(W, b, x):
    return np.sum(_tanh_layer(x, W, b)) + np.sum(W ** 2)


def passed_after_a_rebinding(W, b, x):
    W = W * 2.0
    return np.sum(_tanh_layer(x, W, b))


def list_passed_to_a_callee(params, x):
    return np.sum(_tanh_stack(params, x) ** 2)


@pytest.mark.parametrize("f, converted", [
    (passed_to_a_callee, True), (passed_and_read_again, False), (passed_after_a_rebinding, False)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_gradients_from_a_callee_against_differences(f, converted, dtype):
    rng = np.random.default_rng(7)
    W, x = rng.normal(size=(3, 2)).astype(dtype), rng.normal(size=(4, 3)).astype(dtype)
    for b in (rng.normal(size=2).astype(dtype), rng.normal(size=1).astype(dtype), 0.25):
        df = ad.grad(f, wrt=(0, 1))
        dW, db = df(W, b, x)
        assert dW.dtype == dtype and type(db) is type(b) and np.shape(db) == np.shape(b)
        if dtype is np.float64:
            assert_close(dW, numerical_grad(f, [W, b, x], 0), rtol=1e-6, atol=1e-8)
            assert_close(db, numerical_grad(f, [W, b, x], 1), rtol=1e-6, atol=1e-8)
        returned = ad.source(df).splitlines()[-1]
        assert ("gradient_like(dW, W" not in returned) == converted, ad.source(df)


def test_a_list_of_layers_from_a_callee_against_differences():
    rng = np.random.default_rng(8)
    params = [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 2)), 0.5)]
    x = rng.normal(size=(5, 3))
    df = ad.grad(list_passed_to_a_callee)
    got = df(params, x)
    assert type(got) is list and all(type(layer) is tuple for layer in got)
    for (dW, db), (W, b), k in zip(got, params, range(2)):
        def at(v, w, k=k):
            changed = [list(layer) for layer in params]
            changed[k][w] = v
            return list_passed_to_a_callee([tuple(layer) for layer in changed], x)
        assert_close(dW, numerical_grad(lambda v: at(v, 0), [W], 0), rtol=1e-6, atol=1e-8)
        assert_close(db, numerical_grad(lambda v: at(v, 1), [b], 0), rtol=1e-6, atol=1e-8)
        assert type(db) is type(b)
    # a callee hands back a list with the entries it did not touch left out: the caller's
    # own conversion fills them (tests/test_callee_gradients_sparse.py)
    assert ad.source(df).splitlines()[-1].strip() == "return gradient_like(dparams, params)"


# --- the updates of one entry in a backward loop step, added first ---------------------------

def entry_read_three_times(x, steps):
    s = 0.0
    for t in range(steps):
        s = s * 0.5 + x[t] * x[t] + np.sin(x[t]) * s
    return s


def entry_read_in_a_branch(x, steps):
    s = 0.0
    for t in range(steps):
        s = s + x[t] ** 2
        if s > 1.0:
            s = s * x[t]
    return s


# (the branch's update is left a scatter: AccumulateInPlace takes only the loop body's own;
# the one update a step of a loop over a range stores: each entry gets one addition, onto 0)
@pytest.mark.parametrize("f, updates", [(entry_read_three_times, 1), (entry_read_in_a_branch, 0)])
def test_one_update_of_an_entry_a_step_against_differences(f, updates):
    x = np.array([0.3, -0.8, 1.1, 0.6, -0.2])
    df = ad.grad(f)
    assert_close(df(x, 5), numerical_grad(f, [x, 5], 0), rtol=1e-6, atol=1e-8)
    assert ad.source(df).count("dx[t] = ") == updates, ad.source(df)


# --- an entry a loop over a range adds into once, stored ------------------------------------

def entry_read_once_a_step(x, steps):
    s = 0.0
    for t in range(steps):
        s = 0.5 * s + x[t] * x[t]
    return s


def entries_read_at_repeating_positions(x, steps):
    s = 0.0
    for t in range(steps):
        s = 0.5 * s + x[t % 2] * x[t]
    return s


def entries_read_at_listed_positions(x, steps):
    s = 0.0
    for t in [0, 1, 1, 3][:steps]:
        s = 0.5 * s + x[t] * x[t]
    return s


def entry_read_in_two_loops(x, steps):
    # the later loop's adjoint, first in the backward pass, stores; the other adds
    s = 0.0
    for t in range(steps):
        s = 0.5 * s + x[t] * x[t]
    for t in range(steps - 1):
        s = s + np.sin(x[t])
    return s


def entry_read_in_a_nested_loop(x, steps):
    s = 0.0
    for t in range(steps):
        for _ in range(2):
            s = 0.5 * s + x[t] * s + x[t]
    return s


@pytest.mark.parametrize("f, stores", [
    (entry_read_once_a_step, 1), (entries_read_at_repeating_positions, 0),
    (entries_read_at_listed_positions, 0), (entry_read_in_two_loops, 1),
    (entry_read_in_a_nested_loop, 0)], ids=lambda v: getattr(v, "__name__", v))
def test_a_loop_over_a_range_stores_the_one_update_of_its_entry(f, stores):
    """`dx[t] += g` is `dx[t] = g` only where the loop visits each `t` once, `dx` was zeros
    just before it, and nothing else in the step touches `dx`; the gradient is right either
    way (a store where an entry repeats would drop all its updates but the last)."""
    x = np.array([0.3, -0.8, 1.1, 0.6, -0.2])
    df = ad.grad(f)
    assert_close(df(x, 4), numerical_grad(f, [x, 4], 0), rtol=1e-6, atol=1e-8)
    assert ad.source(df).count("dx[t] = ") == stores, ad.source(df)


# --- an adjoint that holds more than zeros before a loop, made the loop's own ----------------

def summed_after_the_loop(x, steps):
    s = 0.0
    for t in range(steps):
        s = s + x[t] ** 2
    return s + 0.1 * np.sum(x)


def rows_summed_after_the_loop(x, steps):
    s = 0.0
    for t in range(steps):
        s = s + np.sum(x[t] ** 2)
    return s + 0.1 * np.sum(x)


def list_summed_after_the_loop(xs, steps):
    s = 0.0
    for t in range(steps):
        s = s + xs[t] ** 2
    return s + 0.1 * sum(xs)


@pytest.mark.parametrize("f, make", [
    (summed_after_the_loop, lambda x: x), (rows_summed_after_the_loop, lambda x: x.reshape(5, 1) * [1.0, -2.0]),
    (list_summed_after_the_loop, lambda x: [float(v) for v in x])], ids=lambda v: getattr(v, "__name__", ""))
def test_an_adjoint_a_later_sum_wrote_is_copied_once_not_every_step(f, make):
    """`dx = unreduce(...)` of the sum, then the loop's `dx = dx + scatter(x, t, g)` made a
    whole array every step (quadratic); now one copy the loop owns, updated in place."""
    x = make(np.array([0.3, -0.8, 1.1, 0.6, -0.2]))
    df = ad.grad(f)
    got = df(x, 4)
    expected = numerical_grad(f, [np.array(x, dtype=float), 4], 0)
    assert_close(np.asarray(got, dtype=float), expected, rtol=1e-6, atol=1e-8)
    loop = ad.source(df).split("[::-1]:", 1)[1]
    assert "scatter(" not in loop, ad.source(df)


# --- jvp's tangents taken as they are where nothing needs converting --------------------------

def test_jvp_tangents_of_a_list_of_layers_checked_and_converted():
    rng = np.random.default_rng(9)
    params = [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 2)), 0.5)]
    x = rng.normal(size=(5, 3))
    v = [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 2)), 0.25)]
    jvp = ad.jvp(list_passed_to_a_callee)
    value, slope = jvp(params, x, tangent=v)
    grads = ad.grad(list_passed_to_a_callee)(params, x)
    expected = sum(np.sum(g * t) for layer, tangent in zip(grads, v) for g, t in zip(layer, tangent))
    assert_close(slope, expected, rtol=1e-10, atol=1e-12)
    as_float32 = [tuple(np.asarray(t, dtype=np.float32) for t in layer) for layer in v]
    _, slope32 = jvp(params, x, tangent=as_float32)       # converted to the arguments' float64
    expected32 = sum(np.sum(g * np.float64(np.float32(t))) for layer, tangent in zip(grads, v)
                     for g, t in zip(layer, tangent))
    assert_close(slope32, expected32, rtol=1e-10, atol=1e-12)
    wrong = [v[0], (v[1][0][:3], v[1][1])]
    with pytest.raises(ValueError, match=r"tangent= for 'params\[1\]\[0\]' has shape"):
        jvp(params, x, tangent=wrong)


def test_zero_tangents_of_numbers_and_arrays():
    from s2s_ad.runtime import zero_tangent
    assert zero_tangent(2.5) == 0.0 and type(zero_tangent(2.5)) is float
    for x in (np.ones(3, np.float32), np.arange(3), np.ones(2, complex)):
        z = zero_tangent(x)
        assert z.shape == x.shape and not z.any()
        assert z.dtype == (x.dtype if x.dtype.kind in "fc" else np.float64)


# --- hvp: the gradient's own container and what only it read are left out ---------------------

def dict_mlp(params, X):
    h = np.tanh(X @ params["W1"] + params["b1"])
    return np.sum((h @ params["W2"]) ** 2)


def dict_written_by_the_user(params, X):
    parts = {}
    parts["h"] = np.tanh(X @ params["W1"])
    parts["out"] = parts["h"] @ params["W2"]
    return np.sum(parts["out"] ** 2) + np.sum(params["b1"] ** 3)


@pytest.mark.parametrize("f", [dict_mlp, dict_written_by_the_user])
def test_hvp_of_dict_parameters_against_differences_of_the_gradient(f):
    rng = np.random.default_rng(10)
    params = {"W1": rng.normal(size=(3, 4)), "b1": rng.normal(size=4),
              "W2": rng.normal(size=(4, 2))}
    X = rng.normal(size=(5, 3))
    v = {k: rng.normal(size=p.shape) for k, p in params.items()}
    grad = ad.grad(f)
    eps = 1e-6
    ahead = grad({k: p + eps * v[k] for k, p in params.items()}, X)
    behind = grad({k: p - eps * v[k] for k, p in params.items()}, X)
    hv = ad.hvp(f)(params, X, vector=v)
    for k in params:
        assert_close(hv[k], (ahead[k] - behind[k]) / (2 * eps), rtol=1e-6, atol=1e-7)
    code = [line.strip() for line in ad.source(ad.hvp(f)).splitlines()
            if not line.strip().startswith("#")]
    assert not any(line.startswith(("dparams = ", "dparams[")) for line in code), code


def test_integers_refused_inside_a_list_of_layers_naming_the_entry():
    params = [(np.ones((2, 2)), np.ones(2)), (np.ones((2, 1)), np.arange(1))]
    with pytest.raises(TypeError, match=r"'params\[1\]\[1\]': it is an integer"):
        ad.grad(list_passed_to_a_callee)(params, np.ones((3, 2)))


@pytest.mark.parametrize("g", [2.0, 3, True, np.float32(1.5), np.float64(-0.5)])
def test_unreduce_of_a_whole_reduction_by_a_number(g):
    from s2s_ad.runtime import unreduce
    for x in (np.ones((2, 3)), np.ones(5000), [1.0, 2.0], 4.0):
        for keepdims in (False, True):
            got = unreduce(g, x, None, keepdims)
            assert np.shape(got) == np.shape(x)
            assert np.all(np.asarray(got) == g) and np.asarray(got).dtype == np.result_type(g)


def _scores(W, X):
    if np.ndim(W) != 2:         # a call (as above): its result has no shape facts
        raise ValueError("W is a matrix")
    return X @ W


def picked_from_a_callees_value(W, X, y):
    rows = np.arange(len(y))
    s = _scores(W, X)                   # s's shape is not known where the code is made
    return np.sum(s[rows, y] ** 2)


def test_a_store_where_rows_are_picked_once_from_a_callees_value():
    rng = np.random.default_rng(11)
    W, X, y = rng.normal(size=(3, 4)), rng.normal(size=(6, 3)), np.array([0, 3, 3, 1, 2, 0])
    df = ad.grad(picked_from_a_callees_value)
    assert_close(df(W, X, y), numerical_grad(picked_from_a_callees_value, [W, X, y], 0),
                 rtol=1e-6, atol=1e-8)
    assert "scatter_distinct(s, (rows, y)" in ad.source(df), ad.source(df)
    # what is not a NumPy array there takes the general way
    assert runtime.scatter_distinct({"a": 1.0, "b": 2.0}, "a", 3.0) == {"a": 3.0}


def test_zeros_like_an_array_is_numpys():
    from s2s_ad.runtime import zeros_like
    for x in (np.ones((2, 3)), np.ones((2, 3), np.float32), np.asfortranarray(np.ones((2, 3))),
              np.arange(3), np.ones((2, 3))[:, 1], np.ones(()), np.ones((0, 2))):
        got, expected = zeros_like(x), np.zeros_like(x)
        assert got.shape == expected.shape and got.dtype == expected.dtype and not got.any()
        assert got.flags.c_contiguous == expected.flags.c_contiguous
        assert got.flags.f_contiguous == expected.flags.f_contiguous


def picked_by_a_range_after_a_callee(W, X, y):
    rows = np.arange(X.shape[0])
    s = _scores(W, X=X)                 # by keyword: what it returns is not known here
    return np.sum(np.tanh(s[rows, y]))


@pytest.mark.parametrize("y", [np.array([0, 3, 3, 1, 2, 0]), np.array([2]), np.array([-1, 0, 1, 1, 0, 3])])
def test_rows_picked_by_a_range_whose_shape_is_asked_when_it_runs(y):
    """y of the range's length: a store; y of one entry broadcast against the range: a
    store too (the rows tell the positions apart); the general way for anything else."""
    rng = np.random.default_rng(12)
    W, X = rng.normal(size=(3, 4)), rng.normal(size=(6, 3))
    df = ad.grad(picked_by_a_range_after_a_callee)
    assert_close(df(W, X, y), numerical_grad(picked_by_a_range_after_a_callee, [W, X, y], 0),
                 rtol=1e-6, atol=1e-8)
    assert "scatter_by_range(s, (rows, y), " in ad.source(df), ad.source(df)
    v = rng.normal(size=W.shape)
    eps = 1e-6
    ahead, behind = df(W + eps * v, X, y), df(W - eps * v, X, y)
    assert_close(ad.hvp(picked_by_a_range_after_a_callee)(W, X, y, vector=v),
                 (ahead - behind) / (2 * eps), rtol=1e-5, atol=1e-7)


def test_scatter_by_range_stores_only_where_positions_cannot_repeat():
    x = np.zeros((3, 4))
    r = np.arange(3)
    for index, g in [((r, np.array([1, 1, 2])), np.ones(3)),          # distinct: a store
                     ((np.arange(1), np.array([1, 1, 2])), np.ones(3)),  # row 0 thrice: adds
                     ((r, 2), np.ones(3)),
                     ((np.arange(2), np.array([True, False, True, False])), np.ones(2))]:
        expected = np.zeros_like(x)
        np.add.at(expected, index, g)
        assert np.array_equal(runtime.scatter_by_range(x, index, g, 0), expected), index
    # a complex adjoint into a real array goes the general way (its real part, after the
    # check that a complex value was expected there), not through a store that casts it
    index, g = (r, np.array([0, 1, 2])), np.ones(3) * (1 + 2j)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no ComplexWarning from a store
        assert np.array_equal(runtime.scatter_by_range(x, index, g, 0),
                              runtime.scatter(x, index, g))


def test_calls_alternating_between_kinds_get_each_their_own_derivative():
    """The derivatives a transform keeps by the call's key (cache.Recent, kinds.call_key):
    a list argument, then an array, then the list again, each against differences, and an
    argument of another dtype gets a gradient of its dtype."""
    def total(x):
        return np.sum(np.asarray(x) ** 3)

    df = ad.grad(total)
    as_list, as_array = [1.0, -2.0, 0.5], np.array([1.0, -2.0, 0.5])
    for x in (as_list, as_array, as_list, as_array.astype(np.float32), as_array):
        got = df(x)
        assert type(got) is type(x) and np.asarray(got).dtype == np.asarray(x).dtype
        assert_close(np.asarray(got, dtype=float), 3 * np.asarray(x, dtype=float) ** 2,
                     rtol=1e-6, atol=0)


# --- a list of (W, b) gradients returned in one loop ---------------------------------------------
_POOL = [np.zeros(2), np.ones(3), np.full((2, 2), 2.0)]         # drawn twice: shared arrays
_ADJOINT_KINDS = [runtime.GradList, runtime.GradTuple, list, tuple]


@st.composite
def _layer_gradients(draw):
    def leaf():
        return draw(st.one_of(st.sampled_from(_POOL), st.just(None), st.just(1.5),
                              st.builds(lambda: np.arange(3.0))))
    entries, likes = [], []
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            entries.append(leaf())
            likes.append(np.zeros(3))
        else:
            kind = draw(st.sampled_from(_ADJOINT_KINDS))
            entries.append(kind(leaf() for _ in range(draw(st.integers(0, 3)))))
            likes.append(draw(st.sampled_from([(np.zeros(1),), [np.zeros(1)], {"a": 1}])))
    outer = draw(st.sampled_from([runtime.GradList, runtime.GradTuple]))
    return outer(entries), draw(st.sampled_from([list, tuple]))(likes)


@settings(max_examples=300, deadline=None)
@given(_layer_gradients())
def test_gradients_returned_in_one_loop_are_those_returned_entry_by_entry(case):
    from s2s_ad.gradients_returned import _unshared, as_returned, plain
    grads, like = case
    got, expected = as_returned(grads, like), _unshared(plain(grads, like))
    assert _shape_of(got) == _shape_of(expected)
    leaves = [leaf for leaf in _leaves(got) if type(leaf) is np.ndarray]
    assert len(set(map(id, leaves))) == len(leaves)          # no array handed back twice


def _shape_of(tree):
    if isinstance(tree, (list, tuple)):
        return type(tree), [_shape_of(entry) for entry in tree]
    return repr(tree)


def _leaves(tree):
    if isinstance(tree, (list, tuple)):
        return [leaf for entry in tree for leaf in _leaves(entry)]
    return [tree]
