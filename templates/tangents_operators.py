"""Tangents of Python's arithmetic operators and their NumPy twins.

Each rule is a sum with one term per differentiable input; the transformer drops the terms whose
input has no tangent. `broadcast_like(t, z)` stretches a lone term to the result's shape; it is
removed when every term survives, since the full sum already has that shape.
"""
import math
import operator

import numpy as np

from s2s_ad.rules import d, tangent
from s2s_ad.runtime import broadcast_like


@tangent(operator.add, np.add)
def add(z, x, y):
    d[z] = broadcast_like(d[x], z) + broadcast_like(d[y], z)


@tangent(operator.sub, np.subtract)
def subtract(z, x, y):
    d[z] = broadcast_like(d[x], z) - broadcast_like(d[y], z)


@tangent(operator.mul, np.multiply)
def multiply(z, x, y):
    d[z] = d[x] * y + x * d[y]


@tangent(operator.truediv, np.divide)
def divide(z, x, y):
    d[z] = d[x] / y - d[y] * z / y


@tangent(operator.pow, pow, np.power, np.float_power, math.pow)
def power(z, x, y):
    # the exponent stays at 0 where y == 0: see the adjoint of power
    d[z] = d[x] * y * x ** (y - (y != 0)) + d[y] * z * np.log(np.where(x == 0, 1, x))


@tangent(operator.mod, np.mod)
def mod(z, x, y):
    d[z] = broadcast_like(d[x], z) - broadcast_like(d[y] * np.floor_divide(x, y), z)


@tangent(operator.matmul, np.matmul)
def matmul(z, x, y):
    d[z] = d[x] @ y + x @ d[y]


@tangent(operator.neg, np.negative)
def negative(y, x):
    d[y] = -d[x]


@tangent(operator.pos, np.positive)
def positive(y, x):
    d[y] = d[x]
