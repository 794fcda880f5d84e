"""Adjoints and tangents of np.meshgrid: result k holds input k (flattened) along one axis and
repeats it along the others, so its adjoint is the sum over the others."""
import numpy as np

from .arrays import shape_of
from .containers import GradList
from .tangents import zero_tangent


def _mesh_axis(k, ndim, indexing):
    """The axis of np.meshgrid's results along which input `k` runs: with indexing='xy' the
    first two inputs swap places."""
    if indexing == "xy" and ndim >= 2 and k < 2:
        return 1 - k
    return k


def unmesh(g, k, x, indexing="xy"):
    """Adjoint of result `k` of `np.meshgrid(..., indexing=indexing)` with respect to input `k`,
    `x`: `g` summed over every axis but the one `x` runs along, in `x`'s shape."""
    axis = _mesh_axis(k, np.ndim(g), indexing)
    others = tuple(i for i in range(np.ndim(g)) if i != axis)
    return np.reshape(np.sum(g, axis=others), shape_of(x))


def remesh(u, g, k, indexing="xy"):
    """`u` (shaped like input `k`) spread along the axis input `k` runs along to the shape of
    `g`, a result of np.meshgrid: the transpose of `unmesh`."""
    axis = _mesh_axis(k, np.ndim(g), indexing)
    along = [1] * np.ndim(g)
    along[axis] = -1
    return np.broadcast_to(np.reshape(u, tuple(along)), shape_of(g))


def meshgrid_tangent(xi, tangents, copy=True, sparse=False, indexing="xy"):
    """Tangent of `np.meshgrid(*xi, ...)`: the meshgrid of the inputs' tangents (None for an
    input without one: zeros)."""
    filled = [zero_tangent(x) if t is None else t for x, t in zip(xi, tangents)]
    return np.meshgrid(*filled, copy=copy, sparse=sparse, indexing=indexing)


def unmesh_all(g, xi, indexing="xy"):
    """Adjoint of `meshgrid_tangent` with respect to the tangents: each result's adjoint in `g`
    summed back to its input's shape (a missing one, None, stays a zero)."""
    return GradList(None if part is None else unmesh(part, k, x, indexing)
                    for k, (part, x) in enumerate(zip(g, xi)))


def remesh_all(u, g, indexing="xy"):
    """The transpose of `unmesh_all`: each entry of `u` spread to the shape of the result's
    adjoint in `g` it came from (None stays a zero)."""
    return GradList(None if part is None or grid is None else remesh(part, grid, k, indexing)
                    for k, (part, grid) in enumerate(zip(u, g)))
