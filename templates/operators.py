"""Python's arithmetic operators and their NumPy twins: each by its partial derivatives, in
terms of the incoming derivative `g` (rules.elementwise), or as a product (rules.bilinear)."""
import math
import operator

import numpy as np

from s2s_ad.rules import bilinear, d, elementwise, non_differentiable
from s2s_ad.runtime import matmul_grad_a, matmul_grad_b


@elementwise(operator.add, np.add, complex=True)
def add(g, z, x, y):
    d[x] = g
    d[y] = g


@elementwise(operator.sub, np.subtract, complex=True)
def subtract(g, z, x, y):
    d[x] = g
    d[y] = -g


@elementwise(operator.mul, np.multiply, complex=True)
def multiply(g, z, x, y):
    d[x] = g * y
    d[y] = x * g


@elementwise(operator.truediv, np.divide, complex=True)
def divide(g, z, x, y):
    d[x] = g / y
    d[y] = -g * z / y


@elementwise(operator.pow, pow, np.power, np.float_power, math.pow, complex=True)
def power(g, z, x, y):
    # y * x ** (y - 1), with the exponent kept at 0 where y == 0: x ** 0 is the constant 1,
    # whose derivative is 0 even at x == 0 (not 0 * 0 ** -1). At x == 0 the y-derivative
    # z * log(x) is taken as 0, as JAX does.
    d[x] = g * y * x ** (y - (y != 0))
    d[y] = g * z * np.log(np.where(x == 0, 1, x))


@elementwise(operator.mod, np.mod)
def mod(g, z, x, y):
    d[x] = g
    d[y] = -g * np.floor_divide(x, y)


@bilinear(operator.matmul, np.matmul, np.linalg.matmul, complex=True)
def matmul(z, x, y):
    d[x] = matmul_grad_a(d[z], x, y)
    d[y] = matmul_grad_b(d[z], x, y)


@elementwise(operator.neg, np.negative, complex=True)
def negative(g, y, x):
    return -g


@elementwise(operator.pos, np.positive, complex=True)
def positive(g, y, x):
    return g


non_differentiable(
    operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
    operator.not_, operator.is_, operator.is_not, operator.contains,
    operator.floordiv, np.floor_divide, operator.and_, operator.or_, operator.xor,
    operator.invert, operator.lshift, operator.rshift,
)
