"""A max's or min's adjoint is added into an adjoint array the derivative owns, in place
(optimize/add_into_owned.py, runtime add_extremum_share): gradients against central
differences and HIPS autograd on arrays large enough for the in-place path, second and third
derivatives through it, the helper against the sum it stands for, the rewrite on generated
code, and the cases where it must not apply."""
import ast

import gast
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad import engine, runtime
from s2s_ad.optimize.add_into_owned import AddIntoOwned
from s2s_ad.runtime import add_extremum_share, extremum_share


def logsumexp(x):
    top = np.max(x)
    return top + np.log(np.sum(np.exp(x - top)))


def row_softmax_loss(z, w):
    shifted = z - np.max(z, axis=1, keepdims=True)
    return np.sum(w * (shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))))


def column_min_spread(z):
    low = np.min(z, axis=0)
    return np.sum(np.sin(z) * 2.0) + np.sum(low ** 2)


def max_in_a_loop(z, steps):
    total = 0.0
    for _ in range(steps):
        z = np.cos(z) * 1.5
        total = total + np.max(z) + np.sum(z * z)
    return total


def repeated_layer(z, steps):
    out = z * 0.5
    for _ in range(steps):
        out = out + np.max(out, axis=1, keepdims=True) * 0.1 + np.sin(out)
    return out


def through_a_callee(z, w):
    # a callee with a loop is not inlined: its max's adjoint is added in its own backward pass
    return np.sum(repeated_layer(z * 2.0, 2) * w)


_RNG = np.random.default_rng(7)
_BIG = _RNG.normal(size=(64, 70))          # 4480 entries: the helper's in-place path
CASES = [
    (logsumexp, (_BIG,)),
    (row_softmax_loss, (_BIG, _RNG.normal(size=(64, 70)))),
    (column_min_spread, (_BIG,)),
    (max_in_a_loop, (_BIG, 2)),
    (through_a_callee, (_BIG, _RNG.normal(size=(64, 70)))),
]


def _autograd(f, args):
    autograd = pytest.importorskip("autograd")
    anp = pytest.importorskip("autograd.numpy")
    plain_np = f.__globals__["np"]
    f.__globals__["np"] = anp
    try:
        return autograd.grad(f)(*args)
    finally:
        f.__globals__["np"] = plain_np


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradients_against_differences_and_autograd(f, args):
    df = ad.grad(f)
    got = df(*args)
    source = engine.generated(repeated_layer, "split", ("z",)).source \
        if f is through_a_callee else ad.source(df)
    assert "add_extremum_share(" in source, source
    assert_close(got, numerical_grad(f, args, 0), rtol=1e-5, atol=1e-5)
    assert_close(got, _autograd(f, args), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f, args", CASES[:3], ids=[f.__name__ for f, _ in CASES[:3]])
def test_hessian_vector_products_against_differences_of_the_gradient(f, args):
    v = np.random.default_rng(1).normal(size=args[0].shape)
    got = ad.hvp(f)(*args, vector=v)
    got = got[-1] if isinstance(got, tuple) else got
    df, eps = ad.grad(f), 1e-5
    expected = (df(args[0] + eps * v, *args[1:]) - df(args[0] - eps * v, *args[1:])) / (2 * eps)
    assert_close(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f, args", CASES[:4], ids=[f.__name__ for f, _ in CASES[:4]])
def test_tangents_against_differences(f, args):
    # the max's tangent sums the winners' entries where they are (extremum_gather, where=);
    # logsumexp and the softmax do not depend on it (their shift cancels), the others do
    v = np.random.default_rng(2).normal(size=args[0].shape)
    _, got = ad.jvp(f)(*args, tangent=v)
    eps = 1e-6
    expected = (f(args[0] + eps * v, *args[1:]) - f(args[0] - eps * v, *args[1:])) / (2 * eps)
    assert got == pytest.approx(expected, rel=1e-6, abs=1e-6)


def test_a_third_derivative_reads_the_sum_spelled_out():
    # reverse mode over the gradient's own derivative: the in-place helper is lowered to
    # `d + extremum_share(...)` (passes/lower_accumulations.py) before it is differentiated
    def f(x):
        return np.max(x) * np.sum(x ** 3)

    x = np.random.default_rng(3).normal(size=5000)
    v = np.random.default_rng(4).normal(size=5000)

    def directional_second(x):
        return np.sum(ad.hvp(f)(x, vector=v) * v)

    def second_along_v(x):         # v' H(x) v, for the third derivative by differences
        g = ad.grad(f)
        return np.sum((g(x + 1e-4 * v) - g(x - 1e-4 * v)) / 2e-4 * v)

    got = ad.grad(directional_second)(x)
    # v' H v = 6 v_w sum(v x^2) + 6 max(x) sum(v^2 x), w the max's position: its gradient
    winner = np.argmax(x)
    expected = 6 * np.max(x) * v * v + 12 * v[winner] * v * x
    expected[winner] += 6 * np.sum(v * v * x)
    assert_close(got, expected, rtol=1e-8, atol=1e-8)
    assert abs(directional_second(x) - second_along_v(x)) < 1e-4 * abs(directional_second(x))


def _share_cases():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(80, 60))
    tied = x.copy()
    tied[3, :2] = tied[3].max() + 1.0                 # row 3: two winners
    with_nan = x.copy()
    with_nan[7, 5] = np.nan                           # row 7's max is NaN
    return [
        ("one winner a row", x, 1, True, True),
        ("the whole array", x, None, False, True),
        ("axis dropped", x, 0, False, True),
        ("ties", tied, 1, True, False),
        ("a NaN group", with_nan, 1, True, False),
        ("small", x[:4, :5], 1, True, False),
    ]


@pytest.mark.parametrize("what, x, axis, keepdims, in_place", _share_cases(),
                         ids=[c[0] for c in _share_cases()])
def test_the_helper_is_the_sum_it_stands_for(what, x, axis, keepdims, in_place):
    y = np.max(x, axis=axis, keepdims=keepdims)
    g = np.random.default_rng(6).normal(size=np.shape(y))
    total = np.random.default_rng(8).normal(size=x.shape)
    expected = total + extremum_share(g, x, y, axis, keepdims)
    got = add_extremum_share(total.copy() if not in_place else total, g, x, y, axis, keepdims)
    np.testing.assert_array_equal(got, expected)
    assert (got is total) == in_place


def test_a_max_adjoint_that_is_not_finite_reaches_every_entry_as_the_sum_does():
    x = np.random.default_rng(10).normal(size=(70, 70))
    y = np.max(x, axis=1, keepdims=True)
    for bad in (np.nan, np.inf):
        g = np.ones_like(y)
        g[4] = bad
        total = np.zeros(x.shape)
        with np.errstate(invalid="ignore"):
            expected = total + extremum_share(g, x, y, 1, True)
            np.testing.assert_array_equal(add_extremum_share(total, g, x, y, 1, True), expected)


@pytest.mark.parametrize("shape, axis, keepdims", [
    ((80, 60), None, False), ((80, 60), 1, True), ((80, 60), 0, False), ((4, 5), 1, True)])
def test_the_max_tangent_is_the_sum_of_the_winners_entries(shape, axis, keepdims):
    from s2s_ad.runtime import extremum_gather
    rng = np.random.default_rng(11)
    x = rng.normal(size=shape)
    y = np.max(x, axis=axis, keepdims=keepdims)
    hits = x == (y if keepdims or axis is None else np.expand_dims(y, axis))
    u = rng.normal(size=shape)
    np.testing.assert_array_equal(extremum_gather(u, x, y, axis, keepdims),
                                  np.sum(u * hits, axis=axis, keepdims=keepdims))
    # a NaN or inf among the losers is NaN in the product with 0: as x + t*u's max is
    for bad in (np.nan, np.inf):
        u_bad = u.copy()
        u_bad[(0,) * len(shape)] = bad if not hits[(0,) * len(shape)] else 0.0
        u_bad[(1,) * len(shape)] = bad if not hits[(1,) * len(shape)] else 0.0
        with np.errstate(invalid="ignore"):
            expected = np.sum(u_bad * hits, axis=axis, keepdims=keepdims)
            np.testing.assert_array_equal(extremum_gather(u_bad, x, y, axis, keepdims), expected)


def test_the_helper_makes_the_sum_where_it_cannot_write_into_it():
    x = np.random.default_rng(9).normal(size=(70, 70))
    y = np.max(x, axis=1, keepdims=True)
    g = np.ones_like(y)
    narrow = np.zeros(x.shape, dtype=np.float32)     # the sum is float64
    frozen = np.zeros(x.shape)
    frozen.flags.writeable = False
    for total in (narrow, frozen, np.zeros((1, 70))):
        before = total.copy()
        got = add_extremum_share(total, g, x, y, 1, True)
        assert got is not total and got.dtype == np.float64 and got.shape == x.shape
        np.testing.assert_array_equal(got, before + extremum_share(g, x, y, 1, True))
        np.testing.assert_array_equal(total, before)


def _rewritten(source):
    function = gast.parse(source).body[0]
    names = {"extremum_share": runtime.extremum_share}
    function = AddIntoOwned(names).run(function)
    return ast.unparse(gast.gast_to_ast(function)).splitlines()[1:]


_SHARE = "extremum_share(g, x, y, 1, True)"
_ADDED = "add_extremum_share(d, g, x, y, 1, True)"


@pytest.mark.parametrize("body", [
    # made by arithmetic here, read as an operand and by a reduction since
    f"    d = a * b\n    s = d.sum(axis=0) + d.shape[0]\n    d = d + {_SHARE}\n    return (d, s)\n",
    # held under a second name that nothing reads again
    f"    e = a * b\n    d = e\n    s = -e.sum()\n    d = d + {_SHARE}\n    return (d, s)\n",
    # inside a loop, made in the same step
    f"    for i in r:\n        d = a * i\n        d = d + {_SHARE}\n        out.append(d)\n    return out\n",
    # in a nested function (a split callee's backward pass), on its own
    f"    def backward(s):\n        d = s * b\n        d = d + {_SHARE}\n        return d\n"
    f"    return backward\n",
])
def test_an_owned_adjoint_takes_the_share_in_place(body):
    source = "def f(a, b, g, x, y, r, out):\n" + body
    assert any(_ADDED in line for line in _rewritten(source)), _rewritten(source)


@pytest.mark.parametrize("body", [
    # not made here: an argument
    f"    d = d + {_SHARE}\n    return d\n",
    # made by a call, which may return an array someone else holds
    f"    d = np.asarray(a)\n    d = d + {_SHARE}\n    return d\n",
    # another name for it read afterwards
    f"    e = a * b\n    d = e\n    d = d + {_SHARE}\n    return (d, e)\n",
    # handed to a call, which may keep it
    f"    d = a * b\n    out.append(d)\n    d = d + {_SHARE}\n    return d\n",
    # a view of it taken
    f"    d = a * b\n    t = d.T\n    d = d + {_SHARE}\n    return (d, t)\n",
    # put in a tuple
    f"    d = a * b\n    t = (d, 1)\n    d = d + {_SHARE}\n    return (d, t)\n",
    # read by a lambda, which may run after the addition
    f"    e = a * b\n    h = lambda: e + 1\n    d = e\n    d = d + {_SHARE}\n    return (d, h)\n",
    # read by a lambda made before it, which may run after the addition
    f"    h = lambda: e + 1\n    e = a * b\n    d = e\n    d = d + {_SHARE}\n    return (d, h)\n",
    # in a loop, read at the top of the next step through another name
    f"    e = a\n    for i in r:\n        out.append(e + 1)\n        e = a * i\n        d = e\n"
    f"        d = d + {_SHARE}\n    return out\n",
    # in a nested function, shared with the function around it
    f"    def backward(s):\n        nonlocal e\n        e = s * b\n        d = e\n"
    f"        d = d + {_SHARE}\n        return d\n    e = a\n    return (backward, e)\n",
    # another name for it rebound only sometimes, or in another scope, or kept by `+=`
    f"    d = a * b\n    e = d\n    if r:\n        e = c\n    d = d + {_SHARE}\n    return (d, e)\n",
    f"    d = a * b\n    e = d\n    for e in r:\n        pass\n    d = d + {_SHARE}\n    return (d, e)\n",
    f"    d = a * b\n    e = d\n    e += 1.0\n    d = d + {_SHARE}\n    return (d, e)\n",
    f"    d = a * b\n    e = d\n    s = [0 for e in r]\n    d = d + {_SHARE}\n    return (d, e, s)\n",
    # a value that arithmetic made from it may hold it (a GradList keeps an array's rows)
    f"    d = a * b\n    s = c + d\n    d = d + {_SHARE}\n    return (d, s)\n",
    # the target bound again by a generator's walrus, an import, or read through locals()
    f"    gen = ((d := c) for _ in r)\n    d = a * b\n    next(gen)\n    d = d + {_SHARE}\n"
    f"    return d\n",
    f"    d = a * b\n    from os import sep as d\n    d = d + {_SHARE}\n    return d\n",
    f"    d = a * b\n    e = d\n    d = d + {_SHARE}\n    return (d, locals()['e'])\n",
    # a walrus in the addition itself keeps it
    f"    d = a * b\n    d = d + extremum_share(g, x, y, (h := d).ndim - 1, True)\n"
    f"    return (d, h)\n",
    # bound again by a block in between
    f"    d = a * b\n    if r:\n        d = a\n    d = d + {_SHARE}\n    return d\n",
])
def test_left_as_it_is_where_someone_else_may_see_the_array(body):
    source = "def f(a, b, g, x, y, r, out):\n" + body
    assert not any("add_extremum_share" in line for line in _rewritten(source)), _rewritten(source)
