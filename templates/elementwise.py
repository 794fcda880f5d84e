"""Elementwise functions of one input: one rule, one line of math, both modes.

`def f(g, y, x): return E` says that y = f(x) has the derivative E in terms of `g`, the
incoming one: reverse mode reads it as `d[x] = E` with g = d[y], forward mode as
`d[y] = E` with g = d[x] (rules.elementwise)."""
import math

import numpy as np

from s2s_ad.rules import attribute, elementwise, method, non_differentiable


@elementwise(np.exp, math.exp)
def exp(g, y, x):
    return g * y


@elementwise(np.expm1, math.expm1)
def expm1(g, y, x):
    return g * (y + 1)


@elementwise(np.exp2)
def exp2(g, y, x):
    return g * y * np.log(2)


@elementwise(np.log)
def log(g, y, x):
    return g / x


@elementwise(np.log2, math.log2)
def log2(g, y, x):
    return g / (x * np.log(2))


@elementwise(np.log10, math.log10)
def log10(g, y, x):
    return g / (x * np.log(10))


@elementwise(np.log1p, math.log1p)
def log1p(g, y, x):
    return g / (1 + x)


@elementwise(np.sin, math.sin)
def sin(g, y, x):
    return g * np.cos(x)


@elementwise(np.cos, math.cos)
def cos(g, y, x):
    return -g * np.sin(x)


@elementwise(np.tan, math.tan)
def tan(g, y, x):
    return g * (1 + y * y)


@elementwise(np.arcsin, math.asin)
def arcsin(g, y, x):
    return g / np.sqrt(1 - x * x)


@elementwise(np.arccos, math.acos)
def arccos(g, y, x):
    return -g / np.sqrt(1 - x * x)


@elementwise(np.arctan, math.atan)
def arctan(g, y, x):
    return g / (1 + x * x)


@elementwise(np.sinh, math.sinh)
def sinh(g, y, x):
    return g * np.cosh(x)


@elementwise(np.cosh, math.cosh)
def cosh(g, y, x):
    return g * np.sinh(x)


@elementwise(np.tanh, math.tanh)
def tanh(g, y, x):
    return g * (1 - y * y)


@elementwise(np.arcsinh, math.asinh)
def arcsinh(g, y, x):
    return g / np.sqrt(x * x + 1)


@elementwise(np.arccosh, math.acosh)
def arccosh(g, y, x):
    return g / np.sqrt(x * x - 1)


@elementwise(np.arctanh, math.atanh)
def arctanh(g, y, x):
    return g / (1 - x * x)


@elementwise(np.deg2rad, np.radians, math.radians)
def deg2rad(g, y, x):
    return g * (np.pi / 180)


@elementwise(np.rad2deg, np.degrees, math.degrees)
def rad2deg(g, y, x):
    return g * (180 / np.pi)


@elementwise(np.sqrt, math.sqrt)
def sqrt(g, y, x):
    return g / (2 * y)


@elementwise(np.cbrt)
def cbrt(g, y, x):
    return g / (3 * y * y)


@elementwise(np.square)
def square(g, y, x):
    return g * 2 * x


@elementwise(np.reciprocal)
def reciprocal(g, y, x):
    return -g * y * y


@elementwise(np.abs, np.absolute, abs, np.fabs, math.fabs)
def absolute(g, y, x):
    """0 at x = 0, where |x| has no derivative (np.sign's value there)."""
    return g * np.sign(x)


# the real part and the conjugate of a real value are the value itself (a complex value that
# meets a differentiated one is refused before any rule: ComplexValue)
@elementwise(np.real, np.conj, np.conjugate, attribute("real"), method("conj"), method("conjugate"))
def real(g, y, x):
    return g


# The imaginary part and the angle of a real value are constants (0; 0 or pi), but not of a
# complex one: marked constant, a complex value that depends on the inputs would lose its
# derivative through them unnoticed. A rule of zero keeps the value differentiated, so such a
# complex value is refused (ComplexValue) like any other.
@elementwise(np.imag, attribute("imag"), np.angle)
def imag(g, y, x):
    """0 for real values (their imaginary part and angle are constant)."""
    return g * 0.0


non_differentiable(np.iscomplexobj, np.isrealobj, np.iscomplex, np.isreal)
