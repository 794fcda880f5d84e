"""Tangents of elementwise functions: one rule, one line of math."""
import math

import numpy as np

from s2s_ad.rules import d, method, tangent
from s2s_ad.runtime import divide_or_zero, pick_tangent, tie_share, took_default
from s2s_ad.runtime_forward import broadcast_like


@tangent(np.exp, math.exp)
def exp(y, x):
    d[y] = d[x] * y


@tangent(np.expm1, math.expm1)
def expm1(y, x):
    d[y] = d[x] * (y + 1)


@tangent(np.exp2)
def exp2(y, x):
    d[y] = d[x] * y * np.log(2)


@tangent(np.log)
def log(y, x):
    d[y] = d[x] / x


@tangent(math.log)
def log_base(y, x, base=math.e):
    d[y] = d[x] / (x * math.log(base)) - d[base] * y / (base * math.log(base))


@tangent(np.log2, math.log2)
def log2(y, x):
    d[y] = d[x] / (x * np.log(2))


@tangent(np.log10, math.log10)
def log10(y, x):
    d[y] = d[x] / (x * np.log(10))


@tangent(np.log1p, math.log1p)
def log1p(y, x):
    d[y] = d[x] / (1 + x)


@tangent(np.sin, math.sin)
def sin(y, x):
    d[y] = d[x] * np.cos(x)


@tangent(np.cos, math.cos)
def cos(y, x):
    d[y] = -d[x] * np.sin(x)


@tangent(np.tan, math.tan)
def tan(y, x):
    d[y] = d[x] * (1 + y * y)


@tangent(np.arcsin, math.asin)
def arcsin(y, x):
    d[y] = d[x] / np.sqrt(1 - x * x)


@tangent(np.arccos, math.acos)
def arccos(y, x):
    d[y] = -d[x] / np.sqrt(1 - x * x)


@tangent(np.arctan, math.atan)
def arctan(y, x):
    d[y] = d[x] / (1 + x * x)


@tangent(np.sinh, math.sinh)
def sinh(y, x):
    d[y] = d[x] * np.cosh(x)


@tangent(np.cosh, math.cosh)
def cosh(y, x):
    d[y] = d[x] * np.sinh(x)


@tangent(np.tanh, math.tanh)
def tanh(y, x):
    d[y] = d[x] * (1 - y * y)


@tangent(np.arcsinh, math.asinh)
def arcsinh(y, x):
    d[y] = d[x] / np.sqrt(x * x + 1)


@tangent(np.arccosh, math.acosh)
def arccosh(y, x):
    d[y] = d[x] / np.sqrt(x * x - 1)


@tangent(np.arctanh, math.atanh)
def arctanh(y, x):
    d[y] = d[x] / (1 - x * x)


@tangent(np.deg2rad, np.radians, math.radians)
def deg2rad(y, x):
    d[y] = d[x] * (np.pi / 180)


@tangent(np.rad2deg, np.degrees, math.degrees)
def rad2deg(y, x):
    d[y] = d[x] * (180 / np.pi)


@tangent(np.sqrt, math.sqrt)
def sqrt(y, x):
    d[y] = d[x] / (2 * y)


@tangent(np.cbrt)
def cbrt(y, x):
    d[y] = d[x] / (3 * y * y)


@tangent(np.square)
def square(y, x):
    d[y] = d[x] * 2 * x


@tangent(np.reciprocal)
def reciprocal(y, x):
    d[y] = -d[x] * y * y


@tangent(np.abs, np.absolute, abs, np.fabs, math.fabs)
def absolute(y, x):
    d[y] = d[x] * np.sign(x)


@tangent(np.maximum, np.fmax)
def maximum(z, x, y):
    d[z] = d[x] * tie_share(x, y) + d[y] * tie_share(y, x)


@tangent(np.minimum, np.fmin)
def minimum(z, x, y):
    d[z] = d[x] * tie_share(y, x) + d[y] * tie_share(x, y)


@tangent(max, min)
def builtin_extremum(z, *args, key=None, default=None):
    d[z] = pick_tangent(z, args, d[args], key) + d[default] * took_default(args)


@tangent(np.where)
def where(z, condition, x=None, y=None):
    d[z] = broadcast_like(np.where(condition, d[x], 0), z) + broadcast_like(np.where(condition, 0, d[y]), z)


@tangent(np.clip, method("clip"))
def clip(y, x, a_min=None, a_max=None, *, min=None, max=None, **options):
    d[y] = d[x] * (y == x) + d[a_min] * ((y != x) & (y == a_min)) + d[a_max] * ((y != x) & (y == a_max)) + d[min] * ((y != x) & (y == min)) + d[max] * ((y != x) & (y == max))


@tangent(np.logaddexp)
def logaddexp(z, x, y):
    d[z] = d[x] * np.exp(x - z) + d[y] * np.exp(y - z)


@tangent(np.logaddexp2)
def logaddexp2(z, x, y):
    d[z] = d[x] * np.exp2(x - z) + d[y] * np.exp2(y - z)


@tangent(np.arctan2, math.atan2)
def arctan2(z, y, x):
    d[z] = d[y] * x / (x * x + y * y) - d[x] * y / (x * x + y * y)


@tangent(np.hypot, math.hypot)
def hypot(z, x, y):
    d[z] = d[x] * divide_or_zero(x, z) + d[y] * divide_or_zero(y, z)
