"""Adjoints of elementwise functions: one rule, one line of math."""
import math

import numpy as np

from s2s_ad.rules import adjoint, d, method, non_differentiable
from s2s_ad.runtime import divide_or_zero, pick_grad, tie_share, took_default, unbroadcast


@adjoint(math.log)
def log_base(y, x, base=math.e):
    d[x] = d[y] / (x * math.log(base))
    d[base] = -d[y] * y / (base * math.log(base))


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
