"""np.meshgrid: result k repeats input k along the other axes. Linear in each input: reverse mode
sums each result's adjoint back over the axes it was repeated along, forward mode makes the
meshgrid of the tangents."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, linear, tangent
from s2s_ad.runtime import element, meshgrid_tangent, remesh, remesh_all, unmesh, unmesh_all


@adjoint(np.meshgrid)
def meshgrid(y, *xi, copy=True, sparse=False, indexing="xy"):
    d[xi[k]] = unmesh(element(d[y], k, y[k]), k, xi[k], indexing)


@tangent(np.meshgrid)
def meshgrid_tangent_(y, *xi, copy=True, sparse=False, indexing="xy"):
    d[y] = meshgrid_tangent(xi, d[xi], copy, sparse, indexing)


@linear(runtime.unmesh)
def unmesh_(r, g, k, x, indexing="xy"):
    d[g] = remesh(d[r], g, k, indexing)


@linear(runtime.remesh)
def remesh_(r, u, g, k, indexing="xy"):
    d[u] = unmesh(d[r], k, u, indexing)


# the tangent template's helper, linear in the tangents: reverse over forward (grad of jvp)
@adjoint(runtime.meshgrid_tangent)
def meshgrid_tangent_adjoint(r, xi, tangents, copy=True, sparse=False, indexing="xy"):
    d[tangents] = unmesh_all(d[r], xi, indexing)


@tangent(runtime.meshgrid_tangent)
def meshgrid_tangent_tangent(r, xi, tangents, copy=True, sparse=False, indexing="xy"):
    d[r] = meshgrid_tangent(xi, d[tangents], copy, sparse, indexing)


@linear(runtime.unmesh_all)
def unmesh_all_(r, g, xi, indexing="xy"):
    d[g] = remesh_all(d[r], g, indexing)


@linear(runtime.remesh_all)
def remesh_all_(r, u, g, indexing="xy"):
    d[u] = unmesh_all(d[r], u, indexing)
