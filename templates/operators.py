"""Adjoints of Python's arithmetic operators and their NumPy twins."""
import math
import operator

import numpy as np

from s2s_ad.rules import adjoint, d, non_differentiable
from s2s_ad.runtime import matmul_grad_a, matmul_grad_b, unbroadcast


@adjoint(operator.add, np.add)
def add(z, x, y):
    d[x] = unbroadcast(d[z], x)
    d[y] = unbroadcast(d[z], y)


@adjoint(operator.sub, np.subtract)
def subtract(z, x, y):
    d[x] = unbroadcast(d[z], x)
    d[y] = unbroadcast(-d[z], y)


@adjoint(operator.mul, np.multiply)
def multiply(z, x, y):
    d[x] = unbroadcast(d[z] * y, x)
    d[y] = unbroadcast(x * d[z], y)


@adjoint(operator.truediv, np.divide)
def divide(z, x, y):
    d[x] = unbroadcast(d[z] / y, x)
    d[y] = unbroadcast(-d[z] * z / y, y)


@adjoint(operator.pow, pow, np.power, np.float_power, math.pow)
def power(z, x, y):
    # y * x ** (y - 1), with the exponent kept at 0 where y == 0: x ** 0 is the constant 1,
    # whose derivative is 0 even at x == 0 (not 0 * 0 ** -1). At x == 0 the y-derivative
    # z * log(x) is taken as 0, as JAX does.
    d[x] = unbroadcast(d[z] * y * x ** (y - (y != 0)), x)
    d[y] = unbroadcast(d[z] * z * np.log(np.where(x == 0, 1, x)), y)


@adjoint(operator.mod, np.mod)
def mod(z, x, y):
    d[x] = unbroadcast(d[z], x)
    d[y] = unbroadcast(-d[z] * np.floor_divide(x, y), y)


@adjoint(operator.matmul, np.matmul)
def matmul(z, x, y):
    d[x] = matmul_grad_a(d[z], x, y)
    d[y] = matmul_grad_b(d[z], x, y)


@adjoint(operator.neg, np.negative)
def negative(y, x):
    d[x] = -d[y]


@adjoint(operator.pos, np.positive)
def positive(y, x):
    d[x] = d[y]


non_differentiable(
    operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne,
    operator.not_, operator.is_, operator.is_not, operator.contains,
    operator.floordiv, np.floor_divide, operator.and_, operator.or_, operator.xor,
    operator.invert, operator.lshift, operator.rshift,
)
