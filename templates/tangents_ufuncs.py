"""Tangents of elementwise functions: one rule, one line of math."""
import math

import numpy as np

from s2s_ad.rules import d, method, tangent
from s2s_ad.runtime import broadcast_like, divide_or_zero, pick_tangent, tie_share, took_default


@tangent(math.log)
def log_base(y, x, base=math.e):
    d[y] = d[x] / (x * math.log(base)) - d[base] * y / (base * math.log(base))


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
