"""Adjoints of reductions: the incoming adjoint is spread back over the reduced axes."""
import numpy as np

from s2s_ad.rules import adjoint, d, method, non_differentiable
from s2s_ad.runtime import extremum_mask, norm_grad, prod_grad, reduction_count, unreduce


@adjoint(np.sum, method("sum"))
def sum(y, x, axis=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis, keepdims)


@adjoint(np.mean, method("mean"))
def mean(y, x, axis=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis, keepdims) / reduction_count(x, axis)


@adjoint(np.prod, method("prod"))
def prod(y, x, axis=None, keepdims=False):
    d[x] = prod_grad(d[y], y, x, axis, keepdims)


@adjoint(np.max, np.amax, method("max"), np.min, np.amin, method("min"))
def extremum(y, x, axis=None, keepdims=False):
    d[x] = unreduce(d[y], x, axis, keepdims) * extremum_mask(x, y, axis, keepdims)


@adjoint(np.var, method("var"))
def var(y, x, axis=None, keepdims=False, ddof=0):
    d[x] = unreduce(d[y], x, axis, keepdims) * 2 * (x - np.mean(x, axis=axis, keepdims=True)) / (reduction_count(x, axis) - ddof)


@adjoint(np.std, method("std"))
def std(y, x, axis=None, keepdims=False, ddof=0):
    d[x] = unreduce(d[y] / y, x, axis, keepdims) * (x - np.mean(x, axis=axis, keepdims=True)) / (reduction_count(x, axis) - ddof)


@adjoint(np.linalg.norm)
def norm(y, x, ord=None, axis=None, keepdims=False):
    d[x] = norm_grad(d[y], y, x, ord, axis, keepdims)


non_differentiable(
    np.argmax, np.argmin, method("argmax"), method("argmin"), np.argsort, method("argsort"),
    np.all, np.any, method("all"), method("any"), np.count_nonzero, np.nonzero,
)
