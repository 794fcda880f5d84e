"""Elementwise functions of several inputs: one rule each, by its partial derivatives in terms of
the incoming derivative `g` (rules.elementwise)."""
import math

import numpy as np

from s2s_ad.rules import (adjoint, constant_parameters, d, elementwise, method,
                          non_differentiable, tangent)
from s2s_ad.runtime import divide_or_zero, pick_grad, pick_tangent, tie_share, took_default


@elementwise(math.log, broadcasting=False)
def log_base(g, y, x, base=math.e):
    d[x] = g / (x * math.log(base))
    d[base] = -g * y / (base * math.log(base))


@elementwise(np.maximum, np.fmax)
def maximum(g, z, x, y):
    """Where x and y tie, each gets half."""
    d[x] = g * tie_share(x, y)
    d[y] = g * tie_share(y, x)


@elementwise(np.minimum, np.fmin)
def minimum(g, z, x, y):
    """Where x and y tie, each gets half."""
    d[x] = g * tie_share(y, x)
    d[y] = g * tie_share(x, y)


# max(a, b, ...) and min(...) pick one of their arguments (or the default): the derivative goes
# to the one picked, not elementwise
@adjoint(max, min)
def builtin_extremum(z, *args, key=None, default=None):
    d[args[k]] = pick_grad(d[z], z, args[k], args, key)
    d[default] = d[z] * took_default(args)


@tangent(max, min)
def builtin_extremum_tangent(z, *args, key=None, default=None):
    d[z] = pick_tangent(z, args, d[args], key) + d[default] * took_default(args)


@elementwise(np.where, complex=True)
def where(g, z, condition, x=None, y=None):
    d[x] = np.where(condition, g, 0)
    d[y] = np.where(condition, 0, g)


constant_parameters(("condition",), np.where)     # picks a branch: zero derivative a.e.
constant_parameters(("key",), max, min)


@elementwise(np.clip, method("clip"))
def clip(g, y, x, a_min=None, a_max=None, *, min=None, max=None, **options):
    d[x] = g * (y == x)
    d[a_min] = g * ((y != x) & (y == a_min))
    d[a_max] = g * ((y != x) & (y == a_max))
    d[min] = g * ((y != x) & (y == min))
    d[max] = g * ((y != x) & (y == max))


@elementwise(np.logaddexp)
def logaddexp(g, z, x, y):
    d[x] = g * np.exp(x - z)
    d[y] = g * np.exp(y - z)


@elementwise(np.logaddexp2)
def logaddexp2(g, z, x, y):
    d[x] = g * np.exp2(x - z)
    d[y] = g * np.exp2(y - z)


@elementwise(np.arctan2, math.atan2)
def arctan2(g, z, y, x):
    d[y] = g * x / (x * x + y * y)
    d[x] = -g * y / (x * x + y * y)


@elementwise(np.hypot, math.hypot)
def hypot(g, z, x, y):
    d[x] = g * divide_or_zero(x, z)
    d[y] = g * divide_or_zero(y, z)


non_differentiable(
    np.sign, np.floor, np.ceil, np.round, np.rint, np.trunc, np.fix, np.around,
    np.isnan, np.isinf, np.isfinite, np.signbit, np.greater, np.greater_equal, np.less,
    np.less_equal, np.equal, np.not_equal, np.logical_and, np.logical_or, np.logical_not,
    np.logical_xor, math.floor, math.ceil, math.trunc, math.isnan, math.isinf,
    math.isfinite, round, int, bool,
)
