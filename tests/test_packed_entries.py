"""The adjoint of an unpacking (`for W, b in params:`, `a, b, c = t`) and of reads of one
container at several literal keys, made in one call where the container's kind is not known
when the code is made (optimize/packed_entries.py): each program's gradient with respect to
its container argument, leaf by leaf, against central finite differences, for lists of
tuples, of lists, of dicts, for the rows of an array, with an entry left unread and with
one read twice."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import numerical_grad

RNG = np.random.default_rng(3)


def layers(params):
    s = 0.0
    for W, b in params:
        s = s + np.sum(np.tanh(W) * b)
    return s


def triples_with_one_unread(params):
    s = 0.0
    for a, b, c in params:
        s = s + np.sum(a * a * b)
    return s


def read_twice(params):
    s = 0.0
    for p in params:
        s = s + np.sum(p[0] * p[1] * p[0])
    return s


def named_entries(params):
    s = 0.0
    for p in params:
        s = s + np.sum(np.sin(p["W"]) * p["b"])
    return s


def rows(stack):
    s = 0.0
    for top, bottom in stack:
        s = s + np.sum(top * np.cos(bottom))
    return s


def _leaves(tree):
    if isinstance(tree, dict):
        return [leaf for key in sorted(tree) for leaf in _leaves(tree[key])]
    if isinstance(tree, (list, tuple)):
        return [leaf for entry in tree for leaf in _leaves(entry)]
    return [tree]


def _with_leaf(tree, k, value, counter=None):
    """`tree` with its k-th leaf (in _leaves order) replaced by `value`."""
    counter = counter if counter is not None else [0]
    if isinstance(tree, dict):
        return {key: _with_leaf(tree[key], k, value, counter) for key in sorted(tree)}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_with_leaf(entry, k, value, counter) for entry in tree)
    counter[0] += 1
    return value if counter[0] - 1 == k else tree


CASES = [
    (layers, [(RNG.normal(size=(2, 3)), RNG.normal(size=3)) for _ in range(3)]),
    (layers, [[RNG.normal(size=(3,)), RNG.normal(size=3)] for _ in range(2)]),
    (triples_with_one_unread, [(RNG.normal(size=2), RNG.normal(size=2), RNG.normal(size=2))
                               for _ in range(2)]),
    (read_twice, [(RNG.normal(size=2), RNG.normal(size=2)) for _ in range(2)]),
    (named_entries, [{"W": RNG.normal(size=3), "b": RNG.normal(size=3)} for _ in range(2)]),
    (rows, RNG.normal(size=(3, 2, 4))),
]


@pytest.mark.parametrize("fn, params", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_gradient_of_each_leaf(fn, params):
    gradient = ad.grad(fn)(params)
    leaves = _leaves(params)
    got = _leaves(gradient)
    assert len(got) == len(leaves)
    for k, leaf in enumerate(leaves):
        expected = numerical_grad(lambda v: fn(_with_leaf(params, k, v)), (leaf,), 0)
        np.testing.assert_allclose(got[k], expected, rtol=1e-6, atol=1e-8)


def test_the_adjoint_of_an_unpacking_is_made_in_one_call():
    grad = ad.grad(layers)
    grad(CASES[0][1])
    assert "scatter_entries(_element, (1, 0), (db, dW))" in ad.source(grad)


def _moved(tree, direction, step):
    """`tree + step * direction`, leaf by leaf; `direction=None` moves every leaf to its cosine."""
    if isinstance(tree, dict):
        return {k: _moved(tree[k], direction and direction[k], step) for k in tree}
    if isinstance(tree, (list, tuple)):
        return type(tree)(_moved(a, b, step) for a, b in
                          zip(tree, direction if direction is not None else [None] * len(tree)))
    return np.cos(tree) if direction is None else tree + step * direction


@pytest.mark.parametrize("fn, params", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_second_order_through_the_packed_adjoint(fn, params):
    # the helper has rules of its own: hvp differentiates the gradient's code again
    direction = _moved(params, None, 0.0)
    h = 1e-5
    up, down = (_leaves(ad.grad(fn)(_moved(params, direction, s))) for s in (h, -h))
    got = _leaves(ad.hvp(fn)(params, vector=direction))
    assert len(got) == len(up)
    for a, b, c in zip(got, up, down):
        np.testing.assert_allclose(a, (b - c) / (2 * h), rtol=1e-5, atol=1e-7)


def test_reverse_over_reverse_through_the_packed_adjoint():
    # grad of the gradient's code: the helper's adjoint (entries_at) and its own rules
    fn, params = CASES[4]
    gradient = ad.grad(fn).as_function()
    direction = _moved(params, None, 0.0)

    def along(p):
        g = gradient(p)
        return sum(np.sum(g[k]["W"] * direction[k]["W"] + g[k]["b"] * direction[k]["b"])
                   for k in range(len(p)))
    got = _leaves(ad.grad(along)(params))
    expected = _leaves(ad.hvp(fn)(params, vector=direction))
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
