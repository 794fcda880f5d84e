"""Tangents of products: dot, outer, einsum (bilinear: one term per factor)."""
import numpy as np

from s2s_ad.rules import d, method, tangent
from s2s_ad.runtime_forward import einsum_tangent


@tangent(np.dot, method("dot"))
def dot(z, x, y):
    d[z] = np.dot(d[x], y) + np.dot(x, d[y])


@tangent(np.outer)
def outer(z, x, y):
    d[z] = np.outer(d[x], y) + np.outer(x, d[y])


@tangent(np.einsum)
def einsum(y, subscripts, *operands, **options):
    d[y] = einsum_tangent(subscripts, operands, d[operands])
