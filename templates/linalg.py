"""Adjoints of products: dot, outer, einsum."""
import numpy as np

from s2s_ad.rules import adjoint, d, method
from s2s_ad.runtime import dot_grad_a, dot_grad_b, einsum_grad


@adjoint(np.dot, method("dot"))
def dot(z, x, y):
    d[x] = dot_grad_a(d[z], x, y)
    d[y] = dot_grad_b(d[z], x, y)


@adjoint(np.outer)
def outer(z, x, y):
    d[x] = np.reshape(d[z] @ np.ravel(y), np.shape(x))
    d[y] = np.reshape(np.ravel(x) @ d[z], np.shape(y))


@adjoint(np.einsum)
def einsum(y, subscripts, *operands, **options):
    d[operands[k]] = einsum_grad(d[y], subscripts, k, *operands)
