"""Adjoints of elementwise functions: one rule, one line of math."""
import math

import numpy as np

from s2s_ad.rules import adjoint, d, method, non_differentiable
from s2s_ad.runtime import divide_or_zero, pick_grad, tie_share, took_default, unbroadcast


@adjoint(np.exp, math.exp)
def exp(y, x):
    d[x] = d[y] * y


@adjoint(np.expm1, math.expm1)
def expm1(y, x):
    d[x] = d[y] * (y + 1)


@adjoint(np.exp2)
def exp2(y, x):
    d[x] = d[y] * y * np.log(2)


@adjoint(np.log)
def log(y, x):
    d[x] = d[y] / x


@adjoint(math.log)
def log_base(y, x, base=math.e):
    d[x] = d[y] / (x * math.log(base))
    d[base] = -d[y] * y / (base * math.log(base))


@adjoint(np.log2, math.log2)
def log2(y, x):
    d[x] = d[y] / (x * np.log(2))


@adjoint(np.log10, math.log10)
def log10(y, x):
    d[x] = d[y] / (x * np.log(10))


@adjoint(np.log1p, math.log1p)
def log1p(y, x):
    d[x] = d[y] / (1 + x)


@adjoint(np.sin, math.sin)
def sin(y, x):
    d[x] = d[y] * np.cos(x)


@adjoint(np.cos, math.cos)
def cos(y, x):
    d[x] = -d[y] * np.sin(x)


@adjoint(np.tan, math.tan)
def tan(y, x):
    d[x] = d[y] * (1 + y * y)


@adjoint(np.arcsin, math.asin)
def arcsin(y, x):
    d[x] = d[y] / np.sqrt(1 - x * x)


@adjoint(np.arccos, math.acos)
def arccos(y, x):
    d[x] = -d[y] / np.sqrt(1 - x * x)


@adjoint(np.arctan, math.atan)
def arctan(y, x):
    d[x] = d[y] / (1 + x * x)


@adjoint(np.sinh, math.sinh)
def sinh(y, x):
    d[x] = d[y] * np.cosh(x)


@adjoint(np.cosh, math.cosh)
def cosh(y, x):
    d[x] = d[y] * np.sinh(x)


@adjoint(np.tanh, math.tanh)
def tanh(y, x):
    d[x] = d[y] * (1 - y * y)


@adjoint(np.arcsinh, math.asinh)
def arcsinh(y, x):
    d[x] = d[y] / np.sqrt(x * x + 1)


@adjoint(np.arccosh, math.acosh)
def arccosh(y, x):
    d[x] = d[y] / np.sqrt(x * x - 1)


@adjoint(np.arctanh, math.atanh)
def arctanh(y, x):
    d[x] = d[y] / (1 - x * x)


@adjoint(np.deg2rad, np.radians, math.radians)
def deg2rad(y, x):
    d[x] = d[y] * (np.pi / 180)


@adjoint(np.rad2deg, np.degrees, math.degrees)
def rad2deg(y, x):
    d[x] = d[y] * (180 / np.pi)


@adjoint(np.sqrt, math.sqrt)
def sqrt(y, x):
    d[x] = d[y] / (2 * y)


@adjoint(np.cbrt)
def cbrt(y, x):
    d[x] = d[y] / (3 * y * y)


@adjoint(np.square)
def square(y, x):
    d[x] = d[y] * 2 * x


@adjoint(np.reciprocal)
def reciprocal(y, x):
    d[x] = -d[y] * y * y


@adjoint(np.abs, np.absolute, abs, np.fabs, math.fabs)
def absolute(y, x):
    d[x] = d[y] * np.sign(x)


@adjoint(np.maximum, np.fmax)
def maximum(z, x, y):
    d[x] = unbroadcast(d[z] * tie_share(x, y), x)
    d[y] = unbroadcast(d[z] * tie_share(y, x), y)


@adjoint(np.minimum, np.fmin)
def minimum(z, x, y):
    d[x] = unbroadcast(d[z] * tie_share(y, x), x)
    d[y] = unbroadcast(d[z] * tie_share(x, y), y)


@adjoint(max, min)
def builtin_extremum(z, *args, key=None, default=None):
    d[args[k]] = pick_grad(d[z], z, args[k], args, key)
    d[default] = d[z] * took_default(args)


@adjoint(np.where)
def where(z, condition, x=None, y=None):
    d[x] = unbroadcast(np.where(condition, d[z], 0), x)
    d[y] = unbroadcast(np.where(condition, 0, d[z]), y)


@adjoint(np.clip, method("clip"))
def clip(y, x, a_min=None, a_max=None, *, min=None, max=None, **options):
    d[x] = unbroadcast(d[y] * (y == x), x)
    d[a_min] = unbroadcast(d[y] * ((y != x) & (y == a_min)), a_min)
    d[a_max] = unbroadcast(d[y] * ((y != x) & (y == a_max)), a_max)
    d[min] = unbroadcast(d[y] * ((y != x) & (y == min)), min)
    d[max] = unbroadcast(d[y] * ((y != x) & (y == max)), max)


@adjoint(np.logaddexp)
def logaddexp(z, x, y):
    d[x] = unbroadcast(d[z] * np.exp(x - z), x)
    d[y] = unbroadcast(d[z] * np.exp(y - z), y)


@adjoint(np.logaddexp2)
def logaddexp2(z, x, y):
    d[x] = unbroadcast(d[z] * np.exp2(x - z), x)
    d[y] = unbroadcast(d[z] * np.exp2(y - z), y)


@adjoint(np.arctan2, math.atan2)
def arctan2(z, y, x):
    d[y] = unbroadcast(d[z] * x / (x * x + y * y), y)
    d[x] = unbroadcast(-d[z] * y / (x * x + y * y), x)


@adjoint(np.hypot, math.hypot)
def hypot(z, x, y):
    d[x] = unbroadcast(d[z] * divide_or_zero(x, z), x)
    d[y] = unbroadcast(d[z] * divide_or_zero(y, z), y)


non_differentiable(
    np.sign, np.floor, np.ceil, np.round, np.rint, np.trunc, np.fix, np.around,
    np.isnan, np.isinf, np.isfinite, np.signbit, np.greater, np.greater_equal, np.less,
    np.less_equal, np.equal, np.not_equal, np.logical_and, np.logical_or, np.logical_not,
    np.logical_xor, math.floor, math.ceil, math.trunc, math.isnan, math.isinf,
    math.isfinite, round, int, bool,
)
