"""Adjoints and tangents of joining arrays: np.stack, np.concatenate, np.hstack and friends,
and the index tricks np.r_ and np.c_."""
import numpy as np

from .arrays import real_like, shape_of, zeros_like
from .checks import is_complex
from .containers import GradDict, GradList, as_adjoint


def unstack(g, xs, axis=0):
    """Adjoint of `np.stack(xs, axis)`: slices of `g` along `axis`."""
    return _real_where_real(GradList(np.take(g, i, axis=axis) for i in range(len(xs))), xs)


def _real_where_real(pieces, xs):
    """The pieces of a complex adjoint `g` split among `xs`: the real part for a real input
    (README "Complex numbers"); `pieces` as they are for a real `g`."""
    if not any(is_complex(piece) for piece in pieces):
        return pieces
    return GradList(real_like(piece, x) for piece, x in zip(pieces, xs))


def unsequence(g, x):
    """Adjoint of `list(x)` / `tuple(x)` / `dict(x)`: an array's entries are its rows, stacked
    back (a None entry is a zero row); a list's or dict's adjoint is already shaped like it."""
    if isinstance(x, dict):
        return GradDict(g)
    if isinstance(x, (list, tuple)) and isinstance(g, dict):      # dict(pairs): to the values
        return GradList(GradList([None, g.get(key)]) for key, _ in x)
    if isinstance(x, (list, tuple)):
        return GradList(g)
    if not hasattr(x, "shape"):
        raise TypeError(f"cannot differentiate list(), tuple() or dict() of a {type(x).__name__} "
                        f"whose entries depend on the inputs; build the list or dict directly "
                        f"(`[a, b]`, `{{'w': w}}`)")
    if len(x) == 0:
        return zeros_like(x)
    return np.stack([zeros_like(x[0]) if row is None else row for row in g])


def sequenced(t, y, x):
    """The tangent of `y = list(x)` / `tuple(x)` / `dict(x)` from the tangent `t` of `x`:
    for `dict(pairs)`, each pair's value tangent under its key."""
    if isinstance(y, dict) and isinstance(x, (list, tuple)):
        pairs = t if isinstance(t, (list, tuple)) else [None] * len(x)
        return GradDict((key, None if pair is None else pair[1])
                        for (key, _), pair in zip(x, pairs))
    return type(y)(t)


def resequence(u, x):
    """The transpose of `unsequence`: `u`, shaped like `x`, as the entries `list(x)` made."""
    return GradDict(u) if isinstance(x, dict) else GradList(u)


def from_entries(g, x):
    """Adjoint of `x.tolist()`: the nested list adjoint `g` (None a zero) as an array like x."""
    if g is None:
        return zeros_like(x)
    if np.ndim(x) == 0:
        return g
    return np.stack([from_entries(entry, x[i]) for i, entry in enumerate(g)])


def entries_of(u, x):
    """The transpose of `from_entries`: `u`, shaped like `x`, as the nested entries of tolist."""
    entries = np.asarray(u).tolist()
    return as_adjoint(entries) if isinstance(entries, list) else entries


def unconcatenate(g, xs, axis=0):
    """Adjoint of `np.concatenate(xs, axis)`: pieces of `g` with the sizes of `xs` (axis None:
    the arrays were flattened first, so the pieces are too)."""
    if axis is None:
        sizes = np.cumsum([np.size(x) for x in xs])[:-1]
        return _real_where_real(GradList(np.reshape(piece, np.shape(x))
                                         for piece, x in zip(np.split(g, sizes), xs)), xs)
    sizes = np.cumsum([np.shape(x)[axis] for x in xs])[:-1]
    return _real_where_real(GradList(np.split(g, sizes, axis=axis)), xs)


def _joined_shape(shape, kind):
    """The shape np.hstack ('h'), np.vstack ('v'), np.column_stack ('column') or np.dstack
    ('d') gives an input of `shape` before joining."""
    if kind == "h":
        return shape or (1,)
    if kind == "v":
        return shape if len(shape) >= 2 else (1,) + (shape or (1,))
    if kind == "column":
        return shape if len(shape) >= 2 else (shape or (1,)) + (1,)
    if len(shape) >= 3:
        return shape
    return {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}[len(shape)]


def unjoin(g, xs, kind):
    """Adjoint of np.hstack / vstack / column_stack / dstack (`kind` 'h', 'v', 'column', 'd')
    of `xs`: the piece of `g` each input became, in that input's shape."""
    shapes = [_joined_shape(tuple(shape_of(x)), kind) for x in xs]
    axis = {"v": 0, "column": 1, "d": 2}.get(kind, 0 if len(shapes[0]) == 1 else 1)
    ends = [int(e) for e in np.cumsum([s[axis] for s in shapes])[:-1]]
    return _real_where_real(GradList(np.reshape(part, shape_of(x))
                                     for part, x in zip(np.split(g, ends, axis=axis), xs)), xs)


def rejoin(u, xs, kind):
    """The adjoint of `unjoin`: the pieces in `u` (None for a zero) joined as np.hstack /
    vstack / column_stack / dstack (`kind`) joined `xs`."""
    parts = [zeros_like(x) if part is None else part for part, x in zip(u, xs)]
    return {"h": np.hstack, "v": np.vstack, "column": np.column_stack, "d": np.dstack}[kind](parts)


def _stands_in_for(part, like):
    """What takes `part`'s place in `concatenator[...]` so that it fills the same positions:
    `like` shaped as the part, with slices (`0:3` meaning a range) spelled out."""
    if isinstance(part, str):
        return part                      # a directive such as '0,2,1' is kept as it is
    if isinstance(part, slice):
        return like(np.r_[part])
    if np.ndim(part) == 0 and not isinstance(part, np.ndarray):
        return like(np.asarray(part)).item()     # a scalar stays a scalar (np.r_ treats them apart)
    return like(np.asarray(part))


def _refuse_matrix(result):
    if isinstance(result, np.matrix):
        raise TypeError("np.r_/np.c_ with the 'r' or 'c' directive make an np.matrix, whose "
                        "operators differ from arrays': the derivative would be wrong")
    return result


def _refuse_tuple_index(parts):
    if len(parts) == 1 and isinstance(parts[0], tuple):
        raise TypeError("np.r_[t]/np.c_[t] with t a tuple takes t's entries as the entries, "
                        "which s2s_ad cannot differentiate: write the entries in the brackets "
                        "(np.r_[a, b]) or use np.concatenate")


def concatenator_place(u, concatenator, k, *parts):
    """`concatenator[parts]` (np.r_, np.c_) with part `k` replaced by `u` and every other part
    by zeros: where part k's values land, and the transpose of `concatenator_part_grad`."""
    _refuse_tuple_index(parts)
    replaced = [u if j == k else _stands_in_for(part, np.zeros_like)
                for j, part in enumerate(parts)]
    return _refuse_matrix(concatenator[tuple(replaced)])


def concatenator_part_grad(g, concatenator, k, *parts):
    """Adjoint of `concatenator[parts]` (np.r_, np.c_) with respect to part `k`: each entry of
    part k lands at one position of the result (the parts are only laid side by side), found
    by numbering part k's entries 1, 2, ... and placing the numbers."""
    _refuse_tuple_index(parts)
    count = int(np.size(parts[k]))
    numbers = np.reshape(np.arange(1, count + 1), np.shape(parts[k]))
    if np.ndim(numbers) == 0 and not isinstance(parts[k], np.ndarray):
        numbers = 1
    placed = np.ravel(np.asarray(concatenator_place(numbers, concatenator, k, *parts)))
    positions = np.flatnonzero(placed)
    positions = positions[np.argsort(placed[positions], kind="stable")]
    return np.reshape(np.ravel(g)[positions], np.shape(parts[k]))


def concatenator_tangent(concatenator, parts, tangents):
    """Tangent of `concatenator[parts]`: the parts' tangents laid out as the parts were."""
    _refuse_tuple_index(parts)
    replaced = [_stands_in_for(part, np.zeros_like) if t is None else t
                for part, t in zip(parts, tangents)]
    return _refuse_matrix(concatenator[tuple(replaced)])
