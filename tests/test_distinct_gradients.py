"""Each gradient is an array of its own: where one adjoint reaches two arguments or two
entries of a container (`x + y`, `p[0] + p[1]`), generated code holds one array for both,
and a user who changes one gradient in place (`dW *= 0.5`) must not change the other (found
by a second reader, 2026-11-30)."""
import numpy as np
import pytest

import s2s_ad as ad


def entries_summed(p):
    return np.sum(np.sin(p[0] + p[1]))


def arguments_summed(x, y):
    return np.sum(np.sin(x + y))


def nested_entries(params):
    return np.sum(np.tanh(params["layers"][0] + params["layers"][1] + params["bias"]))


X = np.array([0.1, 0.2, 0.3])


def _leaves(tree):
    if isinstance(tree, dict):
        return [leaf for v in tree.values() for leaf in _leaves(v)]
    if isinstance(tree, (list, tuple)):
        return [leaf for v in tree for leaf in _leaves(v)]
    return [tree]


@pytest.mark.parametrize("call", [
    lambda: ad.grad(entries_summed)((X.copy(), X.copy())),
    lambda: ad.grad(entries_summed)([X.copy(), X.copy()]),
    lambda: ad.grad(arguments_summed, wrt=(0, 1))(X.copy(), X.copy()),
    lambda: ad.value_and_grad(arguments_summed, wrt=(0, 1))(X.copy(), X.copy())[1],
    lambda: ad.grad(nested_entries)({"layers": [X.copy(), X.copy()], "bias": X.copy()}),
], ids=["tuple", "list", "arguments", "value_and_grad", "nested"])
def test_no_two_gradients_are_one_array(call):
    leaves = _leaves(call())
    assert len({id(leaf) for leaf in leaves}) == len(leaves)
    # every leaf is one of the summed terms: the derivative of the outer function there
    expected = 1 - np.tanh(3 * X) ** 2 if len(leaves) == 3 else np.cos(2 * X)
    for leaf in leaves:
        np.testing.assert_allclose(leaf, expected, rtol=1e-12)
    leaves[0] *= 0.0                            # changed in place: the others stay
    for leaf in leaves[1:]:
        np.testing.assert_allclose(leaf, expected, rtol=1e-12)


def test_hvp_gives_two_arrays_for_two_arguments_one_adjoint_reaches():
    x, y = np.array([0.1, 0.2]), np.array([0.5, -0.4])
    hx, hy = ad.hvp(arguments_summed, wrt=(0, 1))(x, y, vector=(np.ones(2), np.zeros(2)))
    assert hx is not hy
    np.testing.assert_allclose(hy, -np.sin(x + y), rtol=1e-12)
    hx *= 0.0
    np.testing.assert_allclose(hy, -np.sin(x + y), rtol=1e-12)
