"""A list, tuple or dict argument read by two calls of the user's functions: the caller adds
the two gradient contributions leaf by leaf (`+` on plain lists would concatenate them, and
`+` on dicts raises). Checked against central differences in both modes."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def _leaves(tree):
    """[(path, leaf)] of a nested container of arrays, in a fixed order; None is no leaf."""
    if isinstance(tree, dict):
        return [((k,) + p, v) for k in tree for p, v in _leaves(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [((i,) + p, v) for i, item in enumerate(tree) for p, v in _leaves(item)]
    return [] if tree is None else [((), tree)]


def _replaced(tree, path, value):
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(tree, dict):
        return {k: _replaced(v, rest, value) if k == head else v for k, v in tree.items()}
    return type(tree)(_replaced(v, rest, value) if i == head else v for i, v in enumerate(tree))


def _check_grad(f, args):
    """ad.grad(f) on a container first argument, leaf by leaf against central differences."""
    grad = ad.grad(f)(*args)
    for path, leaf in _leaves(args[0]):
        expected = numerical_grad(lambda v: f(_replaced(args[0], path, v), *args[1:]), [leaf], 0)
        got = grad
        for key in path:
            got = got[key]
        assert_close(got, expected, rtol=1e-5, atol=1e-8)
    return grad


def _check_jvp(f, args, seed=1):
    """ad.jvp(f) with a container tangent against the directional central difference."""
    rng = np.random.default_rng(seed)
    tangent = args[0]
    for path, leaf in _leaves(args[0]):
        tangent = _replaced(tangent, path, rng.normal(size=np.shape(leaf)))
    value, derivative = ad.jvp(f)(*args, tangent=tangent)
    expected = 0.0
    for path, leaf in _leaves(args[0]):
        direction = dict(_leaves(tangent))[path]
        expected += np.sum(numerical_grad(
            lambda v: f(_replaced(args[0], path, v), *args[1:]), [leaf], 0) * direction)
    assert_close(value, f(*args))
    assert_close(derivative, expected, rtol=1e-5, atol=1e-8)


def predict(params, x):
    for i in range(len(params)):
        W, b = params[i]
        x = np.tanh(W @ x + b)
    return x


def regularizer(params):
    total = 0.0
    for i in range(len(params)):
        W = params[i][0]
        total = total + np.sum(W * W)
    return total


def layered_loss(params, x):
    return np.sum(predict(params, x) ** 2) + 0.1 * regularizer(params)


def pair_first(pair, x):
    return np.sum(np.sin(pair[0] * x))


def pair_both(pair):
    return np.sum(pair[0] * pair[1])


def tuple_loss(pair, x):
    return pair_first(pair, x) + pair_both(pair)


def dict_predict(p, x):
    return np.sum(np.tanh(p["W"] @ x + p["b"]))


def dict_penalty(p):
    return np.sum(p["W"] ** 2)


def dict_loss(p, x):
    return dict_predict(p, x) + dict_penalty(p)


def nested_first(tree, x):
    return np.sum(tree["layers"][0] @ x) + np.sum(tree["scale"]["a"] * x)


def nested_second(tree):
    return np.sum(tree["layers"][1] ** 2) * np.sum(tree["layers"][0]) + np.sum(tree["scale"]["a"] ** 3)


def nested_loss(tree, x):
    return nested_first(tree, x) * nested_second(tree)


def in_a_loop(p, x):
    total = 0.0
    for _ in range(3):
        total = total + dict_predict(p, x)
    return total + dict_penalty(p)


def in_a_branch(p, x):
    if np.sum(x) > 0:
        s = dict_predict(p, x)
    else:
        s = dict_penalty(p)
    return s * dict_penalty(p)


def unused_entry(p, x):
    return dict_predict(p, x) * dict_penalty(p)


def _rng():
    return np.random.default_rng(0)


def _layers():
    r = _rng()
    return [(r.normal(size=(2, 2)), r.normal(size=2)) for _ in range(2)], r.normal(size=2)


def _pair():
    r = _rng()
    return (r.normal(size=3), r.normal(size=3)), r.normal(size=3)


def _dict(extra=False):
    r = _rng()
    p = {"W": r.normal(size=(2, 3)), "b": r.normal(size=2)}
    if extra:
        p["unused"] = r.normal(size=4)
    return p, r.normal(size=3)


def _nested():
    r = _rng()
    return {"layers": [r.normal(size=(2, 2)), r.normal(size=3)],
            "scale": {"a": r.normal(size=2)}}, r.normal(size=2)


CASES = [(layered_loss, _layers), (tuple_loss, _pair), (dict_loss, _dict),
         (nested_loss, _nested), (in_a_loop, _dict), (in_a_branch, _dict),
         (unused_entry, lambda: _dict(extra=True))]


@pytest.mark.parametrize("f, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradient_of_a_container_read_by_two_calls(f, make):
    grad = _check_grad(f, make())
    assert isinstance(grad, type(make()[0]))        # the structure of the argument


@pytest.mark.parametrize("f, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_tangent_of_a_container_read_by_two_calls(f, make):
    _check_jvp(f, make())


def test_an_unused_dict_entry_gets_a_zero_gradient():
    p, x = _dict(extra=True)
    grad = ad.grad(unused_entry)(p, x)
    assert set(grad) == {"W", "b", "unused"}
    assert_close(grad["unused"], np.zeros(4))


def built_pair_loss(a, b, x):
    return tuple_loss((a, b), x) + dict_loss({"W": np.outer(a[:2], b), "b": b[:2]}, x)


def test_hvp_through_containers_read_by_two_calls():
    # forward over reverse: the reverse code adds the callees' container gradients, and
    # forward mode differentiates that addition
    (a, b), x = _pair()
    v = _rng().normal(size=3)
    hvp = ad.hvp(built_pair_loss)(a, b, x, vector=v)
    gradient = ad.grad(built_pair_loss)
    expected = np.array([numerical_grad(lambda t: gradient(a + t * v, b, x)[k], [0.0], 0)
                         for k in range(3)])
    assert_close(hvp, expected, rtol=1e-5, atol=1e-7)
    assert_close(gradient(a, b, x), numerical_grad(built_pair_loss, [a, b, x], 0), rtol=1e-5)


def two_lists(A, B):
    return np.sum(A[0] * B[0]) + np.sum(A[1] * B[1])


def tuple_entries(t):
    return np.sum(t[0] ** 2) + np.sum(t[1])


def test_gradients_reach_the_user_as_plain_containers():
    # inside generated code container adjoints add leaf by leaf; what the user holds must
    # concatenate with + as Python's lists and tuples do
    A, B = [np.ones(2), np.ones(3)], [np.full(2, 2.0), np.full(3, 3.0)]
    gA, gB = ad.grad(two_lists, wrt=0)(A, B), ad.grad(two_lists, wrt=1)(A, B)
    assert type(gA) is list and len(gA + gB) == 4
    gt = ad.grad(tuple_entries)((np.ones(2), np.ones(3)))
    assert type(gt) is tuple and len(gt + (np.zeros(1),)) == 3
    np.testing.assert_allclose(gA[0], B[0])
    np.testing.assert_allclose(gt[0], 2.0 * np.ones(2))
