"""Elementwise functions of one input: one rule, one line of math, both modes.

`def f(g, y, x): return E` says that y = f(x) has the derivative E in terms of `g`, the
incoming one: reverse mode reads it as `d[x] = E` with g = d[y], forward mode as
`d[y] = E` with g = d[x] (rules.elementwise)."""
import math

import numpy as np

from s2s_ad.rules import (adjoint, attribute, d, elementwise, linear, method, non_differentiable,
                          supports_complex, tangent)
from s2s_ad.runtime import angle_unit, conj, conj_sign, divide_or_zero, unbroadcast


@elementwise(np.exp, math.exp, complex=True)
def exp(g, y, x):
    return g * y


@elementwise(np.expm1, math.expm1, complex=True)
def expm1(g, y, x):
    return g * (y + 1)


@elementwise(np.exp2, complex=True)
def exp2(g, y, x):
    return g * y * np.log(2)


@elementwise(np.log, complex=True)
def log(g, y, x):
    return g / x


@elementwise(np.log2, math.log2, complex=True)
def log2(g, y, x):
    return g / (x * np.log(2))


@elementwise(np.log10, math.log10, complex=True)
def log10(g, y, x):
    return g / (x * np.log(10))


@elementwise(np.log1p, math.log1p, complex=True)
def log1p(g, y, x):
    return g / (1 + x)


@elementwise(np.sin, math.sin, complex=True)
def sin(g, y, x):
    return g * np.cos(x)


@elementwise(np.cos, math.cos, complex=True)
def cos(g, y, x):
    return -g * np.sin(x)


@elementwise(np.tan, math.tan, complex=True)
def tan(g, y, x):
    return g * (1 + y * y)


@elementwise(np.arcsin, math.asin, complex=True)
def arcsin(g, y, x):
    return g / np.sqrt(1 - x * x)


@elementwise(np.arccos, math.acos, complex=True)
def arccos(g, y, x):
    return -g / np.sqrt(1 - x * x)


@elementwise(np.arctan, math.atan, complex=True)
def arctan(g, y, x):
    return g / (1 + x * x)


@elementwise(np.sinh, math.sinh, complex=True)
def sinh(g, y, x):
    return g * np.cosh(x)


@elementwise(np.cosh, math.cosh, complex=True)
def cosh(g, y, x):
    return g * np.sinh(x)


@elementwise(np.tanh, math.tanh, complex=True)
def tanh(g, y, x):
    return g * (1 - y * y)


@elementwise(np.arcsinh, math.asinh, complex=True)
def arcsinh(g, y, x):
    return g / np.sqrt(x * x + 1)


@elementwise(np.arccosh, math.acosh, complex=True)
def arccosh(g, y, x):
    return g / np.sqrt(x * x - 1)


@elementwise(np.arctanh, math.atanh, complex=True)
def arctanh(g, y, x):
    return g / (1 - x * x)


@elementwise(np.deg2rad, np.radians, math.radians)
def deg2rad(g, y, x):
    return g * (np.pi / 180)


@elementwise(np.rad2deg, np.degrees, math.degrees)
def rad2deg(g, y, x):
    return g * (180 / np.pi)


@elementwise(np.sqrt, math.sqrt, complex=True)
def sqrt(g, y, x):
    return g / (2 * y)


@elementwise(np.cbrt)
def cbrt(g, y, x):
    return g / (3 * y * y)


@elementwise(np.square, complex=True)
def square(g, y, x):
    return g * 2 * x


@elementwise(np.reciprocal, complex=True)
def reciprocal(g, y, x):
    return -g * y * y


@elementwise(np.fabs, math.fabs)
def fabs(g, y, x):
    """0 at x = 0, where |x| has no derivative (np.sign's value there)."""
    return g * np.sign(x)


# Functions of complex values that are not holomorphic (README "Complex numbers"): each is
# linear over the reals in the tangent, so the tangent and the adjoint are two rules. A real
# value has a real adjoint: each takes the real part of its result's (an adjoint handed on
# through a list may hold an imaginary part NumPy has not dropped yet), and where it gives a
# complex one to a real `x`, unbroadcast keeps the real part.
@adjoint(np.abs, np.absolute, abs)
def absolute(y, x):
    """0 at x = 0, where |x| has no derivative (np.sign's value there)."""
    d[x] = np.real(d[y]) * conj_sign(x, y)


@tangent(np.abs, np.absolute, abs)
def absolute_tangent(y, x):
    d[y] = np.real(d[x] * conj_sign(x, y))


@linear(conj, np.conj, np.conjugate, method("conj"), method("conjugate"), complex=True)
def conjugate(y, x):
    d[x] = conj(d[y])


@adjoint(np.real, attribute("real"))
def real(y, x):
    d[x] = np.real(d[y])


@tangent(np.real, attribute("real"))
def real_tangent(y, x):
    d[y] = np.real(d[x])


@adjoint(np.imag, attribute("imag"))
def imag(y, x):
    """0 for real values (their imaginary part is constant)."""
    d[x] = unbroadcast(np.real(d[y]) * -1j, x)


@tangent(np.imag, attribute("imag"))
def imag_tangent(y, x):
    d[y] = np.imag(d[x])


@adjoint(np.angle)
def angle(y, z, deg=False):
    """0 for real values, whose angle is constant (0 or pi), also at 0."""
    d[z] = unbroadcast(divide_or_zero(np.real(d[y]) * conj(z * 1j), z * conj(z)), z) \
        * angle_unit(deg)


@tangent(np.angle)
def angle_tangent(y, z, deg=False):
    d[y] = np.imag(divide_or_zero(conj(z) * d[z], np.real(z * conj(z)))) * angle_unit(deg)


supports_complex(np.abs, np.absolute, abs, np.real, attribute("real"), np.imag,
                 attribute("imag"), np.angle, conj_sign)


non_differentiable(np.iscomplexobj, np.isrealobj, np.iscomplex, np.isreal)
