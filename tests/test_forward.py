"""Forward mode (jvp), jacobian, hessian and hvp, checked against central finite differences."""
import math

import numpy as np
import pytest

import cf_programs as P
import s2s_ad as ad
from fd import assert_close
from s2s_ad import d, rules
from test_control_flow import CASES as CONTROL_FLOW_CASES

rng = np.random.default_rng(7)
EPS = 1e-6


# helpers ----------------------------------------------------------------------------------

def _copy(a):
    if isinstance(a, list):
        return [_copy(x) for x in a]
    return a.copy() if hasattr(a, "copy") else a


def _direction(x):
    if isinstance(x, float):
        return float(rng.normal())
    return rng.normal(size=np.shape(x))


def _shift(args, wrts, directions, eps):
    args = [_copy(a) for a in args]
    for k, v in zip(wrts, directions):
        args[k] = args[k] + eps * v
        if isinstance(v, float):
            args[k] = float(args[k])
    return args


def _directional(fn, args, wrts, directions):
    """d/de f(args + e * directions) at e = 0, by central differences (float64)."""
    up = np.asarray(fn(*_shift(args, wrts, directions, EPS)), dtype=np.float64)
    down = np.asarray(fn(*_shift(args, wrts, directions, -EPS)), dtype=np.float64)
    return (up - down) / (2 * EPS)


def _check_jvp(fn, args, wrt, rtol=1e-5, atol=1e-6):
    wrts = wrt if isinstance(wrt, tuple) else (wrt,)
    directions = [_direction(args[k]) for k in wrts]
    tangent = tuple(directions) if isinstance(wrt, tuple) else directions[0]
    value, t = ad.jvp(fn, wrt=wrt)(*[_copy(a) for a in args], tangent=tangent)
    assert_close(value, fn(*[_copy(a) for a in args]), rtol=1e-12, atol=1e-12)
    assert np.shape(t) == np.shape(value)
    assert_close(t, _directional(fn, args, wrts, directions), rtol=rtol, atol=atol)


# one function per rule ----------------------------------------------------------------------

def f_arith(x, y):
    return (x * y - x / (y + 3.0) + x ** 2 - y ** 3 + 2.0 ** x + (-x) + (+y)) % 7.0


def f_broadcast(x, b):
    return x + b - b * x


def f_matmul(A, B):
    return A @ B + np.matmul(A, B) * 2


def f_batched_matmul(A, v):
    return A @ v


def f_ufuncs(x):
    return (np.exp(x) + np.expm1(x) + np.exp2(x) + np.log(x) + np.log2(x) + np.log10(x)
            + np.log1p(x) + np.sin(x) + np.cos(x) + np.tan(x) + np.arcsin(x / 3)
            + np.arccos(x / 3) + np.arctan(x) + np.sinh(x) + np.cosh(x) + np.tanh(x)
            + np.sqrt(x) + np.cbrt(x) + np.square(x) + np.reciprocal(x) + np.abs(x - 1.0)
            + np.fabs(x))


def f_binary_ufuncs(x, y):
    return (np.maximum(x, y) + np.minimum(x, y) + np.fmax(x, y) + np.logaddexp(x, y)
            + np.arctan2(x, y) + np.hypot(x, y) + np.power(x, y) + np.float_power(x, 2.0))


def f_where_clip(x, y):
    return np.where(x > 0.5, x * y, y) + np.clip(x, 0.2, 0.8) + x.clip(0.1, None)


def f_clip_bounds(x, lo, hi):
    return np.clip(x, lo, hi)


def f_math(a, b):
    return (math.exp(a) + math.sin(b) * math.cos(a) + math.sqrt(a) + math.log(a)
            + math.log(b, 3.0) + math.tanh(b) + math.pow(a, b) + math.atan2(a, b)
            + math.hypot(a, b) + abs(a - b) + math.log1p(a) + float(a))


def f_reductions(X):
    return (np.sum(X, axis=0) + np.mean(X, axis=0) + X.sum(axis=0) * X.mean()
            + np.prod(X, axis=0) + np.max(X, axis=0) + np.min(X, axis=0) + X.max(0)
            + np.var(X, axis=0) + np.std(X, axis=0, ddof=1) + np.amax(X, axis=0, keepdims=True)[0]
            + np.sum(X, axis=1, keepdims=True)[:, 0] @ X)


def f_prod_with_zero(x):
    return np.prod(x) + np.prod(x[1:])


def f_norms(x, X):
    return (np.linalg.norm(x) + np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf)
            + np.linalg.norm(x, 3) + np.linalg.norm(X) + np.linalg.norm(X, "fro")
            + np.sum(np.linalg.norm(X, axis=1)) + np.linalg.norm(X, "nuc") + np.linalg.norm(X, 2))


def f_fill_and_cast(x):
    ramp = np.linspace(x[0], x[1:], 4, axis=1) * np.linspace(x[2], x[0], 2, endpoint=False)[:, None]
    filled = np.full((2, 3), x[1]) + np.full_like(x, x[2])
    return np.sum(ramp) + np.sum(filled ** 2) + np.sum(x.astype(np.int64) * x)


def f_shapes(X):
    a = np.reshape(X, (6, 2)).T @ np.ones(6)
    b = X.reshape(2, 6).sum(0) + np.ravel(X)[:6] + X.flatten()[6:] + X.ravel(order="F")[:6]
    c = np.transpose(X, (1, 0, 2)).reshape(-1)[:6] + np.swapaxes(X, 0, 2).ravel()[:6]
    d = np.moveaxis(X, 0, -1).ravel()[:6] + X.transpose(2, 1, 0).ravel()[:6]
    e = np.sum(np.squeeze(np.expand_dims(X, 0)).ravel()[:6]) + np.sum(np.atleast_2d(X[0, 0])[0, :2] @ X[0].T)
    f = np.broadcast_to(X[0, 0], (3, 2)).sum(0) + X.copy()[1, 1] + np.asarray(X)[1, 2] + np.array(X)[0, 0]
    return a.sum() + b.sum() * c.sum() + d.sum() + e.sum() + f.sum() + X.astype(np.float64).sum()


def f_reshape_orders(X):
    return np.reshape(X, (2, 6), order="F") * np.arange(12.0).reshape(2, 6) + np.reshape(X.T, (2, 6), order="A")


def f_indexing(x, M):
    return (x[0] * x[-1] + np.sum(x[::2]) + np.sum(x[x > 0]) + np.sum(M[1:, [0, 2]])
            + np.sum(M[:, 1] * x[:3]) + M[2, 2] + np.sum(x[np.array([0, 0, 1])]))


def f_linalg(x, y, A):
    return (np.dot(x, y) + x.dot(y) + np.sum(np.outer(x, y)) + np.einsum("i,ij,j->", x, A, y)
            + np.sum(np.dot(A, y)) + np.einsum("ii", A) + np.sum(np.einsum("ij,jk->ik", A, A)))


def f_containers(x, y):
    pair = (x * 2, y)
    parts = [x, y * y, x * y]
    table = {"a": x, "b": y * 3}
    return (np.sum(np.stack(parts)) + np.sum(np.concatenate([x, y])) + np.sum(sum(parts))
            + np.sum(pair[0] * pair[1]) + np.sum(table["a"] * table["b"])
            + np.sum(np.hstack((x, y))) + np.sum(np.vstack([x, y])))


def f_list_append(x):
    rows = []
    for i in range(3):
        rows.append(x * i + np.sin(x))
    rows.append(x)
    last = rows.pop()
    return np.stack(rows) * np.sum(last)


def f_stop_gradient(x):
    return np.sum(x * ad.stop_gradient(x))


def f_no_grad(x):
    with ad.no_grad():
        scale = np.sum(x)
    return x * scale


def f_scalar_out_float(a):
    return a * a * 3.0


def f_tuple_out(x):
    return x * 2, np.sum(x)


RULE_CASES = [
    (f_arith, lambda: [rng.uniform(0.5, 2, 4), rng.uniform(0.5, 2, 4)], (0, 1)),
    (f_broadcast, lambda: [rng.normal(size=(3, 4)), rng.normal(size=4)], (0, 1)),
    (f_broadcast, lambda: [rng.normal(size=(3, 4)), rng.normal(size=4)], 1),
    (f_matmul, lambda: [rng.normal(size=(3, 4)), rng.normal(size=(4, 2))], (0, 1)),
    (f_batched_matmul, lambda: [rng.normal(size=(2, 3, 4)), rng.normal(size=4)], (0, 1)),
    (f_ufuncs, lambda: [rng.uniform(0.5, 1.5, 5)], 0),
    (f_binary_ufuncs, lambda: [rng.uniform(0.5, 1.5, 5), rng.uniform(0.5, 1.5, 5)], (0, 1)),
    (f_where_clip, lambda: [rng.uniform(0, 1, 6), rng.normal(size=6)], (0, 1)),
    (f_clip_bounds, lambda: [rng.normal(size=6), rng.uniform(-1, -0.5, 6), rng.uniform(0.5, 1, 6)],
     (0, 1, 2)),
    (f_math, lambda: [float(rng.uniform(1, 2)), float(rng.uniform(1, 2))], (0, 1)),
    (f_reductions, lambda: [rng.normal(size=(3, 4))], 0),
    (f_prod_with_zero, lambda: [np.array([1.5, 0.0, -2.0, 0.7])], 0),
    (f_norms, lambda: [rng.normal(size=5), rng.normal(size=(3, 4))], (0, 1)),
    (f_shapes, lambda: [rng.normal(size=(2, 3, 2))], 0),
    (f_fill_and_cast, lambda: [rng.normal(size=3) * 3], 0),
    (f_reshape_orders, lambda: [np.asfortranarray(rng.normal(size=(3, 4)))], 0),
    (f_indexing, lambda: [rng.normal(size=5), rng.normal(size=(3, 3))], (0, 1)),
    (f_linalg, lambda: [rng.normal(size=3), rng.normal(size=3), rng.normal(size=(3, 3))], (0, 1, 2)),
    (f_containers, lambda: [rng.normal(size=3), rng.normal(size=3)], (0, 1)),
    (f_list_append, lambda: [rng.normal(size=3)], 0),
    (f_scalar_out_float, lambda: [1.3], 0),
]


@pytest.mark.parametrize("fn, make, wrt", RULE_CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(RULE_CASES)])
def test_jvp_of_rules_matches_finite_differences(fn, make, wrt):
    _check_jvp(fn, make(), wrt)


def test_stop_gradient_and_no_grad_hold_values_constant():
    x, v = rng.normal(size=3), rng.normal(size=3)
    assert ad.jvp(f_stop_gradient)(x, tangent=v)[1] == pytest.approx(np.sum(v * x))
    assert_close(ad.jvp(f_no_grad)(x, tangent=v)[1], v * np.sum(x))


def test_every_adjoint_has_a_tangent():
    rules.load_templates()
    literals = {"tuple", "list", "dict"}           # s2s_ad.modes.forward handles literals itself
    from s2s_ad.dispatch import vjp_call               # and run-time dispatch (jvp_vjp_call)
    missing = [getattr(k, "__qualname__", k) for k in rules.ADJOINTS
               if k not in rules.TANGENTS and k not in literals and k is not vjp_call]
    assert not missing, f"adjoints without a tangent rule: {missing}"


# control flow ---------------------------------------------------------------------------------

@pytest.mark.parametrize("fn, makers, wrt", CONTROL_FLOW_CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CONTROL_FLOW_CASES)])
def test_jvp_through_control_flow(fn, makers, wrt):
    _check_jvp(fn, [m() for m in makers], wrt)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_jvp_zero_one_many_trips(n):
    _check_jvp(P.zero_trip, [rng.normal(size=3), n], 0)


def grows_inside_loop(x, n):
    s = 0.0
    t = 1.0
    k = 0
    while k < n:
        t = t * x
        if np.sum(t) > 2.0:
            break
        s = s + t
        k = k + 1
    return s


def defined_in_one_branch(x):
    if np.sum(x) > 0:
        y = np.sin(x)
        z = y * 2
    else:
        z = x * 0.0 + 1.0
    return z


@pytest.mark.parametrize("n", [0, 1, 5])
def test_tangents_materialized_where_paths_join(n):
    _check_jvp(grows_inside_loop, [rng.uniform(0.5, 1.2, 3), n], 0)
    _check_jvp(defined_in_one_branch, [rng.normal(size=3) + 2], 0)
    _check_jvp(defined_in_one_branch, [rng.normal(size=3) - 2], 0)


def test_jvp_does_not_modify_arguments():
    x = np.array([1.0, 2.0, 3.0])
    dx = np.array([1.0, 0.0, 0.5])
    before, d_before = x.copy(), dx.copy()
    ad.jvp(P.setitem_argument)(x, tangent=dx)
    np.testing.assert_array_equal(x, before)
    np.testing.assert_array_equal(dx, d_before)


def test_straight_line_code_materializes_no_zeros():
    text = ad.source(ad.jvp(f_broadcast, wrt=(0, 1)))
    assert "zero_tangent" not in text and "broadcast_like" not in text
    text = ad.source(ad.jvp(f_broadcast, wrt=1))
    assert "dx" not in text.split("tangent", 1)[1].split("\n", 1)[1]   # x has no tangent
    assert "broadcast_like(db, _add)" in text


# calls into user functions ------------------------------------------------------------------

def helper_layer(W, x, scale=2.0):
    return np.tanh(W @ x) * scale


def calls_helper(W, x):
    h = helper_layer(W, x)
    return np.sum(helper_layer(W, h, scale=0.5) ** 2)


def recursive_power(x, n):
    if n == 0:
        return x * 0.0 + 1.0
    return x * recursive_power(x, n - 1)


def test_jvp_through_user_functions():
    W, x = rng.normal(size=(3, 3)), rng.normal(size=3)
    _check_jvp(calls_helper, [W, x], (0, 1))
    _check_jvp(calls_helper, [W, x], 1)
    _check_jvp(recursive_power, [rng.normal(size=3), 3], 0)


# jacobian, hessian, hvp -------------------------------------------------------------------------

def vector_function(x, A):
    return np.tanh(A @ x) * x[0]


def test_jacobian_shape_and_values_both_ways():
    A = rng.normal(size=(2, 3))
    x = rng.normal(size=3)
    J = ad.jacobian(vector_function)(x, A)          # 2 outputs < 3 inputs: rows by vjp
    assert J.shape == (2, 3)
    for j in range(3):
        e = np.zeros(3)
        e[j] = 1.0
        assert_close(J[:, j], _directional(vector_function, [x, A], [0], [e]), rtol=1e-6)
    JA = ad.jacobian(vector_function, wrt=1)(x, A)   # 2 outputs < 6 inputs
    assert JA.shape == (2, 2, 3)
    B = rng.normal(size=(5, 3))
    JB = ad.jacobian(vector_function)(x, B)          # 5 outputs > 3 inputs: columns by jvp
    assert JB.shape == (5, 3)
    for j in range(3):
        e = np.zeros(3)
        e[j] = 1.0
        assert_close(JB[:, j], _directional(vector_function, [x, B], [0], [e]), rtol=1e-6)
    both = ad.jacobian(vector_function, wrt=(0, 1))(x, B)
    assert both[0].shape == (5, 3) and both[1].shape == (5, 5, 3)
    assert_close(both[0], JB)


def test_jacobian_of_elementwise_and_scalar_functions():
    x = rng.normal(size=(2, 3))
    J = ad.jacobian(np_sin_times_two)(x)
    assert J.shape == (2, 3, 2, 3)
    assert_close(J.reshape(6, 6), np.diag(2 * np.cos(x).ravel()))
    assert_close(ad.jacobian(f_scalar_out_float)(1.5), 9.0)


def np_sin_times_two(x):
    return np.sin(x) * 2


def cubes(x):
    return np.sum(x ** 3)


def quadratic_form(x, A):
    return x @ A @ x


def tanh_mlp(x, W1, W2):
    h = np.tanh(W1 @ x)
    return np.sum(np.tanh(W2 @ h) ** 2)


def loopy_energy(x):
    e = 0.0
    for i in range(x.shape[0] - 1):
        d = x[i + 1] - x[i]
        if d > 0:
            e = e + d ** 3
        else:
            e = e + np.sin(d) * x[i]
    return e


def _hessian_by_fd(fn, args, k):
    """Central differences of the (reverse-mode) gradient."""
    grad = ad.grad(fn, wrt=k)
    x = np.asarray(args[k], dtype=np.float64)
    H = np.zeros(x.shape + x.shape)
    for j in range(x.size):
        e = np.zeros(x.size)
        e[j] = EPS
        e = e.reshape(x.shape)
        up = list(args)
        up[k] = x + e
        down = list(args)
        down[k] = x - e
        H.reshape(x.size, -1)[:, j] = ((grad(*up) - grad(*down)) / (2 * EPS)).ravel()
    return H


def prod_and_norm(x):
    return np.prod(x) * np.linalg.norm(x) + np.linalg.norm(x, 3) + np.sum(np.prod(x.reshape(2, 2), axis=0))


HESSIAN_CASES = [
    (cubes, lambda: [rng.normal(size=4)], 0),
    (quadratic_form, lambda: [rng.normal(size=3), rng.normal(size=(3, 3))], 0),
    (tanh_mlp, lambda: [rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=(2, 4))], 0),
    (tanh_mlp, lambda: [rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=(2, 4))], 1),
    (loopy_energy, lambda: [rng.normal(size=5)], 0),
    (P.while_data, lambda: [rng.normal(size=4) * 0.3 + 1], 0),
    (P.rnn, lambda: [rng.normal(size=(5, 3)), rng.normal(size=(4, 4)) * 0.5,
                     rng.normal(size=(4, 3)) * 0.5], 1),
    (P.cumprod, lambda: [rng.normal(size=4) * 0.5 + 1], 0),
    (f_norms, lambda: [rng.normal(size=4), rng.normal(size=(2, 3))], 0),
    (f_prod_with_zero, lambda: [rng.uniform(0.5, 2, 4)], 0),
    (prod_and_norm, lambda: [rng.uniform(0.5, 2, 4)], 0),
    (calls_helper, lambda: [rng.normal(size=(3, 3)), rng.normal(size=3)], 1),
]


@pytest.mark.parametrize("fn, make, k", HESSIAN_CASES)
def test_hessian_matches_finite_differences_of_the_gradient(fn, make, k):
    args = make()
    H = ad.hessian(fn, wrt=k)(*args)
    x = args[k]
    assert H.shape == np.shape(x) + np.shape(x)
    assert_close(H, _hessian_by_fd(fn, args, k), rtol=1e-5, atol=1e-6)
    v = rng.normal(size=np.shape(x))
    hv = ad.hvp(fn, wrt=k)(*args, vector=v)
    n = np.size(x)
    assert_close(hv, (H.reshape(n, n) @ v.ravel()).reshape(np.shape(x)), rtol=1e-8, atol=1e-10)


def test_known_hessians():
    x = rng.normal(size=3)
    A = rng.normal(size=(3, 3))
    assert_close(ad.hessian(quadratic_form)(x, A), A + A.T, rtol=1e-12, atol=1e-12)
    assert_close(ad.hessian(cubes)(x), np.diag(6 * x), rtol=1e-12, atol=1e-12)


def test_hessian_with_respect_to_two_arguments():
    args = [rng.normal(size=3), rng.normal(size=(2, 3)), rng.normal(size=(1, 2))]
    blocks = ad.hessian(tanh_mlp, wrt=(0, 1))(*args)
    assert blocks[0][0].shape == (3, 3) and blocks[0][1].shape == (3, 2, 3)
    assert blocks[1][0].shape == (2, 3, 3) and blocks[1][1].shape == (2, 3, 2, 3)
    assert_close(blocks[0][1], blocks[1][0].reshape(6, 3).T.reshape(3, 2, 3), rtol=1e-10)
    assert_close(blocks[0][0], ad.hessian(tanh_mlp)(*args), rtol=1e-12)
    vs = (rng.normal(size=3), rng.normal(size=(2, 3)))
    hv = ad.hvp(tanh_mlp, wrt=(0, 1))(*args, vector=vs)
    expected0 = blocks[0][0] @ vs[0] + blocks[0][1].reshape(3, 6) @ vs[1].ravel()
    assert_close(hv[0], expected0, rtol=1e-10)


# jvp and vjp agree: <vjp(u), v> == <u, jvp(v)> --------------------------------------------------

def appends_rows(x, W):
    rows = []
    for i in range(3):
        rows.append(np.tanh(W @ x) * i + x)
    return np.stack(rows)


DUALITY_CASES = [
    (f_broadcast, lambda: [rng.normal(size=(3, 4)), rng.normal(size=4)], (0, 1)),
    (f_matmul, lambda: [rng.normal(size=(3, 4)), rng.normal(size=(4, 2))], (0, 1)),
    (f_shapes, lambda: [rng.normal(size=(2, 3, 2))], 0),
    (f_indexing, lambda: [rng.normal(size=5), rng.normal(size=(3, 3))], (0, 1)),
    (f_linalg, lambda: [rng.normal(size=3), rng.normal(size=3), rng.normal(size=(3, 3))], (0, 1, 2)),
    (vector_function, lambda: [rng.normal(size=3), rng.normal(size=(5, 3))], (0, 1)),
    (P.branch_in_loop, lambda: [rng.normal(size=4) * 0.5 + 0.5], 0),
    (P.setitem_column, lambda: [rng.normal(size=(3, 3)), rng.normal(size=3)], (0, 1)),
    (appends_rows, lambda: [rng.normal(size=3), rng.normal(size=(3, 3))], (0, 1)),
]


@pytest.mark.parametrize("fn, make, wrt", DUALITY_CASES)
def test_jvp_and_vjp_satisfy_the_dot_product_identity(fn, make, wrt):
    args = make()
    wrts = wrt if isinstance(wrt, tuple) else (wrt,)
    vs = [_direction(args[k]) for k in wrts]
    value, t = ad.jvp(fn, wrt=wrt)(*[_copy(a) for a in args],
                                    tangent=tuple(vs) if isinstance(wrt, tuple) else vs[0])
    u = rng.normal(size=np.shape(value))
    _, grads = ad.vjp(fn, wrt=wrt)(*[_copy(a) for a in args], seed=u)
    grads = grads if isinstance(wrt, tuple) else (grads,)
    left = sum(float(np.sum(g * v)) for g, v in zip(grads, vs))
    right = float(np.sum(u * t))
    assert left == pytest.approx(right, rel=1e-10, abs=1e-10)


# the API ------------------------------------------------------------------------------------

def test_jvp_api_shapes_types_and_errors():
    x = np.array([0.5, 1.0], dtype=np.float32)
    value, t = ad.jvp(np_sin_times_two)(x, tangent=np.ones(2))
    assert t.dtype == np.float32 and t.shape == (2,)
    value, t = ad.jvp(f_scalar_out_float)(2.0, tangent=1.0)
    assert isinstance(t, float) and t == pytest.approx(12.0)
    value, t = ad.jvp(f_tuple_out)(np.ones(2), tangent=np.array([1.0, 2.0]))
    assert_close(t[0], [2.0, 4.0])
    assert t[1] == pytest.approx(3.0)
    with pytest.raises(TypeError, match="tangent="):
        ad.jvp(np_sin_times_two)(x)
    with pytest.raises(ValueError, match="shape"):
        ad.jvp(np_sin_times_two)(x, tangent=np.ones(3))
    with pytest.raises(TypeError, match="vector="):
        ad.hvp(cubes)(x)
    assert "def jvp_np_sin_times_two(x, tangent):" in ad.source(ad.jvp(np_sin_times_two))


def uses_unknown_function(x):
    return np.sum(np.unwrap(x))


def test_missing_tangent_rule_is_refused_at_transform_time():
    with pytest.raises(ad.TransformError, match="no tangent registered"):
        ad.jvp(uses_unknown_function)(np.ones(3), tangent=np.ones(3))


def test_dict_parameters():
    params = {"W": rng.normal(size=(2, 3)), "b": rng.normal(size=2)}
    x = rng.normal(size=3)
    tangent = {"W": rng.normal(size=(2, 3)), "b": rng.normal(size=2)}

    value, t = ad.jvp(dict_model)(params, x, tangent=tangent)
    assert_close(value, dict_model(params, x))
    up = {k: params[k] + EPS * tangent[k] for k in params}
    down = {k: params[k] - EPS * tangent[k] for k in params}
    assert_close(t, (dict_model(up, x) - dict_model(down, x)) / (2 * EPS), rtol=1e-6)


def dict_model(params, x):
    return np.sum(np.tanh(params["W"] @ x + params["b"]) ** 2)


# whole programs: methods, callable objects, closures, recursion -------------------------------

def _program_cases():
    import programs as W
    model = W.MLP([3, 4, 2], rng)
    affine = W.Affine(scale=rng.normal(size=3), shift=0.3)
    return [
        (W.rnn_loss, [rng.normal(size=(4, 3)), rng.normal(size=(4, 4)) * 0.5,
                      rng.normal(size=(4, 3)) * 0.5], 1),
        (W.class_model_loss, [rng.normal(size=3), model], 0),
        (W.dataclass_loss, [rng.normal(size=3), affine], 0),
        (W.rpow, [1.3, 3], 0),
        (W.tree_sum, [rng.normal(size=3), 2], 0),
        (W.calls_with_defaults, [rng.normal(size=3)], 0),
        (W.calls_other_module, [rng.normal(size=3) + 1], 0),
        (W.calls_closure, [rng.normal(size=3)], 0),
        (W.unpacks_pair, [rng.normal(size=3)], 0),
        (W.non_differentiable_calls, [rng.normal(size=6)], 0),
    ]


def test_jvp_and_hvp_through_whole_programs():
    for fn, args, k in _program_cases():
        _check_jvp(fn, args, k)
        x = args[k]
        v = _direction(x)
        hv = ad.hvp(fn, wrt=k)(*args, vector=v)
        expected = _directional(ad.grad(fn, wrt=k), args, [k], [v])
        assert_close(hv, expected, rtol=1e-5, atol=1e-6)


def writes_through_a_view(X, v):
    row = X[0]
    row[1] = v[0] * 2
    return np.sum(X * X)


def writes_into_loop_element(X):
    for row in X:
        row[0] = 1.0
    return np.sum(X)


def test_in_place_writes_through_views_are_refused():
    with pytest.raises(ad.TransformError, match="share memory"):
        ad.jvp(writes_through_a_view)(np.ones((2, 3)), np.ones(2), tangent=np.ones((2, 3)))
    with pytest.raises(ad.TransformError, match="loop at line"):
        ad.jvp(writes_into_loop_element)(np.ones((2, 3)), tangent=np.ones((2, 3)))


def test_loop_writing_rows_updates_its_tangent_in_place():
    text = ad.source(ad.jvp(P.setitem_loop))
    assert "tangent_copy" not in text          # a fresh tangent, written row by row
    _check_jvp(P.setitem_loop, [rng.normal(size=5)], 0)
    text = ad.source(ad.jvp(P.setitem_argument))
    assert "dx = tangent_copy(dx)" in text     # the caller's tangent is never written


def aliased_then_written(x):
    out = np.zeros(3)
    keep = out * 1.0
    out[0] = x[0] * 2
    first = out[0:2]
    out[1] = x[1] * 3
    return np.sum(first) + np.sum(out * out) + np.sum(keep)


def test_writes_into_an_array_whose_view_is_still_used_are_refused():
    # refused when it runs, at the write: `out[1]` is inside the view `first` (a write into
    # out[2] would not be)
    with pytest.raises(ad.TransformError, match="this write into `out` changes `first`, a view "
                                                "of it, which is read afterwards") as info:
        ad.jvp(aliased_then_written)(np.ones(3), tangent=np.ones(3))
    assert info.value.lineno == aliased_then_written.__code__.co_firstlineno + 5


def rule_returns_its_input_tangent(x, c):
    y = x + c                    # dy is dx itself (c has no tangent)
    y[0] = x[1] * 3              # so dy must be copied before this write
    return y * x


def rows_recurrence(X):
    out = np.zeros_like(X)
    out[0] = X[0]
    for i in range(1, X.shape[0]):
        out[i] = np.tanh(out[i - 1]) * X[i]
    return np.sum(out ** 2)


def test_tangents_shared_by_a_rule_are_copied_before_a_write():
    x, c = rng.normal(size=3), rng.normal(size=3)
    dx = rng.normal(size=3)
    before = dx.copy()
    _check_jvp(rule_returns_its_input_tangent, [x, c], 0)
    ad.jvp(rule_returns_its_input_tangent)(x, c, tangent=dx)
    np.testing.assert_array_equal(dx, before)


def test_recurrence_over_rows_in_place_and_its_hessian():
    X = rng.normal(size=(4, 2))
    assert "tangent_copy" not in ad.source(ad.jvp(rows_recurrence))
    _check_jvp(rows_recurrence, [X], 0)
    assert_close(ad.hessian(rows_recurrence)(X), _hessian_by_fd(rows_recurrence, [X], 0),
                 rtol=1e-5, atol=1e-6)


def softplus(x):
    return np.log(1 + np.exp(x))


def uses_softplus(x):
    return np.sum(softplus(x) * 2)


def test_custom_tangent_rule_replaces_the_source():
    @ad.tangent(softplus)
    def _(y, x):
        d[y] = d[x] / (1 + np.exp(-x))

    try:
        text = ad.source(ad.jvp(uses_softplus))
        assert "jvp_softplus" not in text and "np.exp(-x)" in text
        _check_jvp(uses_softplus, [rng.normal(size=3)], 0)
        with np.errstate(over="ignore"):
            _, t = ad.jvp(uses_softplus)(np.array([800.0]), tangent=np.array([1.0]))
        assert t == pytest.approx(2.0)
    finally:
        rules.TANGENTS.pop(softplus, None)
        ad.clear_cache()


def test_one_element_tuple_wrt_takes_and_gives_tuples():
    x, A = rng.normal(size=3), rng.normal(size=(3, 3))
    value, t = ad.jvp(quadratic_form, wrt=(0,))(x, A, tangent=(np.ones(3),))
    assert t == pytest.approx(float(np.ones(3) @ (A + A.T) @ x))
    hv = ad.hvp(quadratic_form, wrt=("x",))(x, A, vector=(np.ones(3),))
    assert isinstance(hv, tuple) and len(hv) == 1
    assert_close(hv[0], (A + A.T) @ np.ones(3))
    (H,), = ad.hessian(quadratic_form, wrt=(0,))(x, A)
    assert_close(H, A + A.T)
    J, = ad.jacobian(vector_function, wrt=(0,))(x, rng.normal(size=(2, 3)))
    assert J.shape == (2, 3)
    J, = ad.jacobian(vector_function, wrt=(0,))(x, rng.normal(size=(5, 3)))
    assert J.shape == (5, 3)


def test_jvp_through_an_augmented_update_of_a_possible_alias():
    # `s = a; s += 2.0; s *= a` is a rebinding for a number, an in-place update for an array
    import cf_programs as P
    assert ad.jvp(P.augassign_scalar)(1.5, tangent=1.0)[1] == pytest.approx(2 * 1.5 + 2.0)
    # an array: `a` is `s`, so both see each update, (a + 2) ** 2 as NumPy runs it (was a
    # SharedUpdate before issue 15's must-alias updates)
    a = np.array([1.0, 0.5])
    value, tangent = ad.jvp(P.augassign_scalar)(a.copy(), tangent=np.ones(2))
    assert_close(value, (a + 2.0) ** 2)
    assert_close(tangent, 2 * (a + 2.0))
