"""Derivatives of NumPy-written functions on Dask arrays, with the local scheduler: lazy Dask
arrays come back, nothing is computed while the derivative runs except the conditions that
control flow branches on (once each), and the values equal central differences of the NumPy
function or NumPy's closed forms."""
import sys

import numpy as np
import pytest

import cf_programs as C
import dask_programs as D
import golden_programs as G
import s2s_ad as ad
from s2s_ad import d, rules
from fd import assert_close, numerical_grad, numerical_vjp

da = pytest.importorskip("dask.array")
from dask.callbacks import Callback  # noqa: E402  (after the skip: dask may be missing)

rng = np.random.default_rng(5)


class Computes(Callback):
    """Counts the graphs the local scheduler computes while it is entered."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def _start(self, dsk):
        self.count += 1


def _chunked(value):
    """`value` as a Dask array of at least two chunks along each axis longer than one."""
    if isinstance(value, dict):
        return {k: _chunked(v) for k, v in value.items()}
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return da.from_array(value, chunks=tuple(max(1, (n + 1) // 2) for n in value.shape))
    return value


def _leaves(value):
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _lazily(fn, *args, **kwargs):
    """fn(*args) and how many graphs it computed; every array it returns must be lazy."""
    computes = Computes()
    with computes:
        out = fn(*args, **kwargs)
    for leaf in _leaves(out):
        assert isinstance(leaf, da.Array), type(leaf)
    return out, computes.count


def _wrt_tuple(wrt):
    return wrt if isinstance(wrt, tuple) else (wrt,)


def _expected_grads(fn, args, wrt):
    """Central differences of the NumPy function, one per argument in `wrt` (dict leaves too)."""
    expected = []
    for argnum in _wrt_tuple(wrt):
        if isinstance(args[argnum], dict):
            def entry(key):
                def with_entry(value, *rest):
                    params = dict(args[argnum], **{key: value})
                    return fn(*args[:argnum], params, *args[argnum + 1:])
                return numerical_grad(with_entry, (args[argnum][key],), 0)
            expected.append({key: entry(key) for key in args[argnum]})
        else:
            expected.append(numerical_grad(fn, args, argnum))
    return expected


def _assert_matches(found, expected):
    if isinstance(expected, dict):
        for key in expected:
            _assert_matches(found[key], expected[key])
        return
    assert_close(found.compute(), expected, rtol=1e-5, atol=1e-6)


def _golden(name):
    fn, wrt = G.CASES[name]
    names = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
    wrt = tuple(names.index(w) if isinstance(w, str) else w for w in _wrt_tuple(wrt))
    return fn, lambda: G.golden_arguments(name), wrt


# branch-free programs: nothing may be computed at all
STRAIGHT = {
    "least_squares": (D.least_squares, lambda: (rng.normal(size=3), rng.normal(size=(8, 3)),
                                                rng.normal(size=8)), (0, 1, 2)),
    "repeated_index": (D.repeated_index, lambda: (rng.normal(size=7),), (0,)),
    "masked_mean": (D.masked_mean, lambda: (rng.normal(size=9),), (0,)),
    "masked_rows": (D.masked_rows, lambda: (rng.normal(size=(6, 3)),), (0,)),
    "take_columns": (D.take_columns, lambda: (rng.normal(size=(4, 5)),), (0,)),
    "trace_and_square": (D.trace_and_square, lambda: (rng.normal(size=(4, 4)),), (0,)),
    "diagonals": (D.diagonals, lambda: (rng.normal(size=(4, 4)),), (0,)),
    "new_axes": (D.new_axes, lambda: (rng.normal(size=(3, 4)),), (0,)),
    "spread_and_norm": (D.spread_and_norm, lambda: (rng.normal(size=6),), (0,)),
    "selected": (D.selected, lambda: (rng.normal(size=7), rng.normal(size=7)), (0, 1)),
    "cumprod": (C.cumprod, lambda: (rng.normal(size=5) * 0.5 + 1,), (0,)),
    "setitem_column": (C.setitem_column, lambda: (rng.normal(size=(3, 4)), rng.normal(size=3)),
                       (0, 1)),
    "rnn": (C.rnn, lambda: (rng.normal(size=(6, 3)), rng.normal(size=(4, 4)) * 0.5,
                            rng.normal(size=(4, 3)) * 0.5), (1, 2)),
    **{name: _golden(name) for name in ("tanh_layer", "broadcast_bias", "indexing",
                                       "einsum_bilinear", "reductions", "for_with_inplace_write",
                                       "call_into_helper", "mlp_with_dict")},
}


@pytest.mark.parametrize("name", sorted(STRAIGHT))
def test_gradient_is_lazy_and_equals_central_differences(name):
    fn, make, wrt = STRAIGHT[name]
    args = make()
    grads, computes = _lazily(ad.grad(fn, wrt=wrt), *map(_chunked, args))
    assert computes == 0
    for found, expected in zip(grads, _expected_grads(fn, args, wrt)):
        _assert_matches(found, expected)


@pytest.mark.parametrize("name", ["least_squares", "masked_mean", "tanh_layer"])
def test_value_and_grad_is_lazy(name):
    fn, make, wrt = STRAIGHT[name]
    args = make()
    (value, grads), computes = _lazily(ad.value_and_grad(fn, wrt=wrt), *map(_chunked, args))
    assert computes == 0
    assert_close(value.compute(), fn(*args))
    for found, expected in zip(grads, _expected_grads(fn, args, wrt)):
        _assert_matches(found, expected)


def test_gradients_keep_the_chunks_and_dtype_of_their_arguments():
    X = da.from_array(rng.normal(size=(12, 3)).astype(np.float32), chunks=(4, 3))
    w = da.from_array(rng.normal(size=3).astype(np.float32), chunks=2)
    y = da.from_array(rng.normal(size=12).astype(np.float32), chunks=4)
    gw, gX = ad.grad(D.least_squares, wrt=(0, 1))(w, X, y)
    assert (gw.chunks, gw.dtype) == (w.chunks, np.float32)
    assert (gX.chunks, gX.dtype) == (X.chunks, np.float32)


# each condition is computed once: not again when the backward pass reads the branch taken
BRANCHING = {
    "if_else": (C.if_else, lambda: (rng.normal(size=4) + 2,), 0, 1),
    "if_elif": (*_golden("if_elif")[:2], 0, 2),
    "early_return": (*_golden("early_return")[:2], 0, 1),
    "branch_on_loss": (D.branch_on_loss, lambda: (rng.normal(size=3), rng.normal(size=(8, 3)),
                                                  rng.normal(size=8)), 0, 1),
    "while_with_break": (*_golden("while_with_break")[:2], 0, 3),
}


@pytest.mark.parametrize("name", sorted(BRANCHING))
def test_control_flow_computes_each_condition_once(name):
    fn, make, wrt, conditions = BRANCHING[name]
    args = make()
    grad, computes = _lazily(ad.grad(fn, wrt=wrt), *map(_chunked, args))
    assert computes == conditions
    assert_close(grad.compute(), numerical_grad(fn, args, wrt), rtol=1e-5, atol=1e-6)


def _least_squares_arguments():
    w, X, y = rng.normal(size=3), rng.normal(size=(10, 3)), rng.normal(size=10)
    return (w, X, y), tuple(map(_chunked, (w, X, y)))


def test_vjp_is_lazy_and_equals_central_differences():
    fn = D.layer
    args = (rng.normal(size=(3, 4)), rng.normal(size=3), rng.normal(size=4))
    seed = rng.normal(size=3)
    (value, cotangent), computes = _lazily(ad.vjp(fn, wrt=2), *map(_chunked, args),
                                           seed=_chunked(seed))
    assert computes == 0
    assert_close(value.compute(), fn(*args))
    assert_close(cotangent.compute(), numerical_vjp(fn, args, 2, seed), rtol=1e-5)


def test_jvp_is_lazy_and_equals_central_differences():
    (w, X, y), lazy = _least_squares_arguments()
    tangent = rng.normal(size=3)
    (value, derivative), computes = _lazily(ad.jvp(D.least_squares), *lazy,
                                            tangent=_chunked(tangent))
    assert computes == 0
    assert_close(value.compute(), D.least_squares(w, X, y))
    assert_close(derivative.compute(), numerical_grad(D.least_squares, (w, X, y), 0) @ tangent,
                 rtol=1e-5)


def test_hvp_is_lazy_and_equals_the_normal_matrix_times_the_vector():
    (w, X, y), lazy = _least_squares_arguments()
    v = rng.normal(size=3)
    product, computes = _lazily(ad.hvp(D.least_squares), *lazy, vector=_chunked(v))
    assert computes == 0
    assert_close(product.compute(), X.T @ X @ v)


def test_hvp_of_a_masked_quartic_equals_its_closed_form():
    x, v = rng.normal(size=8), rng.normal(size=8)
    product, computes = _lazily(ad.hvp(D.masked_mean), _chunked(x), vector=_chunked(v))
    assert computes == 0
    positive = x > 0
    assert_close(product.compute(), np.where(positive, 6 * x * v / positive.sum(), 0.0))


def test_grad_of_grad_is_lazy():
    x = rng.normal(size=6)
    second, computes = _lazily(ad.grad(lambda x: np.sum(ad.grad(D.masked_mean)(x))), _chunked(x))
    assert computes == 0
    positive = x > 0
    assert_close(second.compute(), np.where(positive, 6 * x / positive.sum(), 0.0))


def test_check_grad_accepts_dask_arguments_and_computes_each_once():
    _, lazy = _least_squares_arguments()
    computes = Computes()
    with computes:
        assert ad.check_grad(D.least_squares, *lazy, wrt=(0, 1)) < 1e-6
    assert computes.count <= 5           # the three arguments and the two gradients


@pytest.fixture
def wrong_rule():
    @ad.adjoint(D.doubled)
    def _(result, x):
        d[x] = d[result] * 3.0           # wrong on purpose: the derivative of 2 * x is 2
    yield
    rules.ADJOINTS.pop(D.doubled)        # leave no rule behind for other tests
    ad.clear_cache()


def test_check_grad_on_dask_arguments_finds_a_wrong_rule(wrong_rule):
    x = rng.normal(size=5)
    assert ad.check_grad(D.uses_doubled, _chunked(x)) > 0.1


def test_numpy_arguments_mix_with_dask_arguments():
    (w, X, y), (_, lazy_X, lazy_y) = _least_squares_arguments()
    (gw, gy), computes = _lazily(ad.grad(D.least_squares, wrt=(0, 2)), w, lazy_X, lazy_y)
    assert computes == 0
    assert_close(gw.compute(), numerical_grad(D.least_squares, (w, X, y), 0))
    assert_close(gy.compute(), numerical_grad(D.least_squares, (w, X, y), 2))


class _CupyLike(np.ndarray):
    """Stands in for a CuPy array where no GPU is present: only the module name matters to
    the check, which runs before any arithmetic."""


_CupyLike.__module__ = "cupy._core.core"


@pytest.mark.parametrize("transform, keyword", [(ad.grad, {}), (ad.jvp, {"tangent": np.ones(3)}),
                                                (ad.hvp, {"vector": np.ones(3)})])
def test_dask_and_cupy_arrays_in_one_call_are_refused_naming_both(transform, keyword,
                                                                  monkeypatch):
    import types
    # a CuPy array means cupy is imported: the check looks only then (its fast path)
    monkeypatch.setitem(sys.modules, "cupy", sys.modules.get("cupy") or types.ModuleType("cupy"))
    (w, X, y), (_, lazy_X, lazy_y) = _least_squares_arguments()
    on_gpu = w.view(_CupyLike)
    with pytest.raises(TypeError, match=r"`w` is a CuPy array and `X` is a Dask array"):
        transform(D.least_squares)(on_gpu, lazy_X, lazy_y, **keyword)
    with pytest.raises(TypeError, match=r"`params\[.w.\]` is a NumPy array and `params\[.b.\]`"):
        ad.grad(lambda params, X: np.sum(X @ params["w"] + params["b"]))(
            {"w": w, "b": on_gpu[:1]}, X)


def test_hessian_with_respect_to_a_matrix_equals_its_closed_form():
    (w, X, y), _ = _least_squares_arguments()
    X = X[:4]
    H, _ = _lazily(ad.hessian(D.least_squares, wrt=1), w, _chunked(X), y[:4])
    # d2/dX_ij dX_kl of sum((X @ w - y)**2) / 2 is [i == k] w_j w_l
    expected = np.einsum("ik,j,l->ijkl", np.eye(4), w, w)
    assert_close(H.compute(), expected)


def test_jacobian_with_respect_to_a_matrix_equals_its_closed_form():
    W, b, x = rng.normal(size=(3, 4)), rng.normal(size=3), rng.normal(size=4)
    J, _ = _lazily(ad.jacobian(D.layer), _chunked(W), b, x)
    slope = 1 - np.tanh(W @ x + b) ** 2
    assert_close(J.compute(), np.einsum("a,ai,j->aij", slope, np.eye(3), x))


def test_a_broadcast_adjoint_is_chunked_like_the_array_it_meets():
    """One whole-size chunk would be built on one worker and shipped to the others."""
    from s2s_ad import runtime
    x = da.from_array(rng.normal(size=(6, 4)), chunks=(2, 4))
    spread = runtime.unreduce(da.sum(x), x)
    assert spread.chunks == x.chunks
    assert_close(spread.compute(), np.full((6, 4), float(np.sum(x.compute()))))
    rows = runtime.unbroadcast(da.from_array(np.arange(4.0), chunks=4), x)
    assert rows.chunks == x.chunks
