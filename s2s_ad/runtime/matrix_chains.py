"""Pieces of the derivatives of np.linalg.matrix_power and np.linalg.multi_dot.

matrix_power's derivative along `e` is the upper right block of the same power of the block
matrix [[a, e], [0, a]] (the block triangular form of a + eps e with eps**2 = 0), for every
integer power, negative ones too; its adjoint is that of a^T along the incoming adjoint."""
import numpy as np

from .arrays import real_like, shape_of, zeros_like
from .containers import GradList, GradTuple
from .linalg import _swap


def dual_block(a, e):
    """The block matrix [[a, e], [0, a]] of each matrix in `a` (linear in `a` and `e` together)."""
    top = np.concatenate([a, e], axis=-1)
    return np.concatenate([top, np.concatenate([zeros_like(a), a], axis=-1)], axis=-2)


def upper_right(m):
    """The upper right quarter of each (2n, 2n) matrix in `m`."""
    n = shape_of(m)[-1] // 2
    return m[..., :n, n:]


def block_diagonal_sum(m):
    """The sum of the two diagonal quarters of each (2n, 2n) matrix in `m`."""
    n = shape_of(m)[-1] // 2
    return m[..., :n, :n] + m[..., n:, n:]


def _as_matrices(arrays):
    """The factors of np.linalg.multi_dot as matrices: a 1-D first one a row, a 1-D last one a
    column."""
    mats = list(arrays)
    if np.ndim(mats[0]) == 1:
        mats[0] = np.reshape(mats[0], (1, -1))
    if np.ndim(mats[-1]) == 1:
        mats[-1] = np.reshape(mats[-1], (-1, 1))
    return mats


def _partial_products(mats):
    """(before, after): before[k] is the product of the factors before k (None for k = 0),
    after[k] of those after k (None for the last)."""
    before, after = [None], [None]
    for m in mats[:-1]:
        before.append(m if before[-1] is None else np.matmul(before[-1], m))
    for m in reversed(mats[1:]):
        after.append(m if after[-1] is None else np.matmul(m, after[-1]))
    return before, after[::-1]


def _like(arrays, parts):
    return (GradTuple if isinstance(arrays, tuple) else GradList)(parts)


def multi_dot_grads(g, arrays):
    """The adjoints of the factors of `np.linalg.multi_dot(arrays)`, given its adjoint `g`:
    before^T g after^T for each factor, as a list (tuple) like `arrays`."""
    mats = _as_matrices(arrays)
    g = np.reshape(g, (shape_of(mats[0])[0], shape_of(mats[-1])[-1]))
    before, after = _partial_products(mats)
    parts = []
    for x, left, right in zip(arrays, before, after):
        part = g if left is None else np.matmul(_swap(left), g)
        part = part if right is None else np.matmul(part, _swap(right))
        parts.append(real_like(np.reshape(part, shape_of(x)), x))
    return _like(arrays, parts)


def _replaced(arrays, k, t):
    return [t if i == k else x for i, x in enumerate(arrays)]


def multi_dot_tangent(arrays, tangents):
    """The tangent of `np.linalg.multi_dot(arrays)`: one product per factor with a tangent."""
    terms = [np.linalg.multi_dot(_replaced(arrays, k, t)) for k, t in enumerate(tangents)
             if t is not None]
    return sum(terms[1:], terms[0]) if terms else zeros_like(np.linalg.multi_dot(arrays))


def multi_dot_grads_tangent(dg, g, arrays, tangents):
    """The tangent of `multi_dot_grads(g, arrays)` along `dg` and the factors' `tangents`:
    each factor's adjoint moves with `g` and with every other factor."""
    parts = list(multi_dot_grads(zeros_like(g) if dg is None else dg, arrays))
    for j, t in enumerate(tangents):
        if t is None:
            continue
        moved = multi_dot_grads(g, _replaced(arrays, j, t))
        parts = [p if k == j else p + m for k, (p, m) in enumerate(zip(parts, moved))]
    return _like(arrays, parts)
