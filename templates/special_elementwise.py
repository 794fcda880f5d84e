"""More elementwise functions: np.sinc, np.fmod, np.copysign, np.heaviside, np.nan_to_num,
np.ldexp, np.i0 and np.modf, and np.angle of real values. Each is declared once by its partial derivatives (rules.elementwise),
in terms of the incoming derivative `g`; where a function jumps or has a kink, the derivative
there is the one JAX and HIPS autograd give."""
import numpy as np

from s2s_ad.rules import adjoint, d, elementwise, method, non_differentiable, tangent
from s2s_ad import runtime
from s2s_ad.runtime import (divide_or_zero, element, i1, sinc_curvature, sinc_slope, sinc_third,
                            zeros_like)


# sin(pi x) / (pi x): its derivatives are written with their limits at x = 0, where sinc is
# smooth (the first, third, ... are 0 there, the second -pi^2 / 3)
@elementwise(np.sinc)
def sinc(g, y, x):
    return g * sinc_slope(x)


@elementwise(runtime.sinc_slope)
def sinc_slope_(g, y, x):
    return g * sinc_curvature(x)


@elementwise(runtime.sinc_curvature)
def sinc_curvature_(g, y, x):
    return g * sinc_third(x)


# the fourth, (pi^3 sin(pi x) - 4 y) / x with y the third; its series near 0 (one rule that
# reads its own result, so every higher order follows)
@elementwise(runtime.sinc_third)
def sinc_third_(g, y, x):
    return g * np.where(np.abs(x) < 1e-2, np.pi ** 4 * (1 / 5 - np.pi ** 2 * x * x / 14 + np.pi ** 4 * x ** 4 / 216), (np.pi ** 3 * np.sin(np.pi * x) - 4 * y) / np.where(np.abs(x) < 1e-2, 1.0, x))


# x1 - trunc(x1 / x2) * x2: the quotient is constant between its jumps (as for x % y)
@elementwise(np.fmod)
def fmod(g, y, x1, x2):
    d[x1] = g
    d[x2] = -g * np.trunc(x1 / x2)


# |x1| with the sign of x2: sign(x1) (0 at x1 = 0, as |x| has) times x2's sign; x2 only flips it
@elementwise(np.copysign)
def copysign(g, y, x1, x2):
    d[x1] = g * np.sign(x1) * np.copysign(1.0, x2)
    d[x2] = g * 0.0


# a step: flat in x1 (0 at the jump as well), x2 is the value taken where x1 == 0
@elementwise(np.heaviside)
def heaviside(g, y, x1, x2):
    d[x1] = g * 0.0
    d[x2] = g * (x1 == 0)


# finite entries pass through; a NaN or infinite entry takes the value given for it (copy=False
# writes into x, which the derivative cannot follow: the rule leaves copy out, so it is refused)
@elementwise(np.nan_to_num)
def nan_to_num(g, y, x, nan=0.0, posinf=None, neginf=None):
    d[x] = g * np.isfinite(x)
    d[nan] = g * np.isnan(x)
    d[posinf] = g * np.isposinf(x)
    d[neginf] = g * np.isneginf(x)


# x1 * 2**x2, exactly: x2 is an integer (NumPy refuses a float one), so only x1 moves
@elementwise(np.ldexp)
def ldexp(g, y, x1, x2):
    d[x1] = np.ldexp(g, x2)
    d[x2] = g * 0.0


# I0' = I1 (runtime/bessel.py), and I1' = I0 - I1 / x, whose limit at 0 is 1/2
@elementwise(np.i0)
def i0(g, y, x):
    return g * i1(x)


@elementwise(runtime.i1)
def i1_(g, y, x):
    return g * np.where(x == 0, 0.5, np.i0(x) - y / np.where(x == 0, 1.0, x))


# (x - trunc(x), trunc(x)): the fractional part moves with x, the integral part is a step
@adjoint(np.modf)
def modf(y, x):
    d[x] = element(d[y], 0, y[0])


@tangent(np.modf)
def modf_tangent(y, x):
    d[y] = (d[x], zeros_like(y[1]))


# rounding is a step function (np.angle has the rule of np.imag: templates/elementwise.py)
non_differentiable(method("round"))
