"""Adjoints of np.insert, linear in the array and the inserted values together. The entries are
numbered (the array's 1, 2, ..., the values' -1, -2, ...) and np.insert is run on the numbers,
which says where each entry landed however NumPy read `obj` and broadcast the values; the
adjoint of each is the result's adjoint read back from there (summed, for a value inserted in
several places)."""
import numpy as np

from .arrays import _xp, shape_of
from .indexing import add_at
from .sources import _on_host


def _labels(arr, obj, values, axis):
    """np.insert of the numbers of `arr`'s entries and of `values`' entries (on the host)."""
    mine = np.arange(1, int(np.prod(shape_of(arr))) + 1).reshape(tuple(shape_of(arr)))
    theirs = -np.arange(1, int(np.prod(shape_of(values))) + 1).reshape(tuple(shape_of(values)))
    return np.insert(mine, _on_host(obj), theirs, axis)


def insert_part_grad(g, arr, obj, values, axis=None, part="arr"):
    """Adjoint of `np.insert(arr, obj, values, axis)` with respect to `part` ('arr' or
    'values'), given the result's adjoint `g`."""
    xp = _xp(g)
    labels = _labels(arr, obj, values, axis)
    if part == "arr":
        return np.reshape(g[xp.asarray(labels > 0)], shape_of(arr))
    inserted = labels < 0
    out = np.zeros_like(g, shape=(int(np.prod(shape_of(values))),))
    add_at(out, xp.asarray(-labels[inserted] - 1), g[xp.asarray(inserted)])
    return np.reshape(out, shape_of(values))


def insert_place(u, arr, obj, values, axis=None, part="arr"):
    """`np.insert(arr, obj, values, axis)` with `part` replaced by `u` and the other by zeros:
    the transpose of `insert_part_grad`."""
    if part == "arr":
        return np.insert(u, obj, np.zeros_like(u, shape=tuple(shape_of(values))), axis)
    return np.insert(np.zeros_like(u, shape=tuple(shape_of(arr))), obj, u, axis)
