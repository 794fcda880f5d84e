"""Adjoints of the helpers generated code calls, so that derivatives can be differentiated again."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, non_differentiable
from s2s_ad.runtime import matmul_grad_a, matmul_grad_b, scatter, unbroadcast, zero_at


@adjoint(runtime.unbroadcast)
def unbroadcast_(y, g, like):
    d[g] = np.broadcast_to(d[y], np.shape(g))


@adjoint(runtime.unreduce)
def unreduce_(y, g, x, axis=None, keepdims=False):
    d[g] = np.reshape(np.sum(d[y], axis=axis, keepdims=True), np.shape(g))


@adjoint(runtime.scatter)
def scatter_(y, x, index, g):
    d[g] = unbroadcast(d[y][index], g)


@adjoint(runtime.zero_at)
def zero_at_(y, g, index):
    d[g] = zero_at(d[y], index)


@adjoint(runtime.matmul_grad_a)
def matmul_grad_a_(y, g, a, b):
    d[g] = np.matmul(d[y], b)
    d[b] = matmul_grad_b(g, d[y], b)


@adjoint(runtime.matmul_grad_b)
def matmul_grad_b_(y, g, a, b):
    d[g] = np.matmul(a, d[y])
    d[a] = matmul_grad_a(g, a, d[y])


@adjoint(runtime.seed_like)
def seed_like_(y, out, seed, function_name="f"):
    d[seed] = d[y]


@adjoint(runtime.gradient_like)
def gradient_like_(y, g, x):
    d[g] = d[y]


@adjoint(np.broadcast_to)
def broadcast_to_(y, x, shape):
    d[x] = unbroadcast(d[y], x)


non_differentiable(runtime.extremum_mask, runtime.reduction_count, runtime.tie_share,
                   runtime.zeros_like, runtime.ones_like, np.zeros_like, np.ones_like)
