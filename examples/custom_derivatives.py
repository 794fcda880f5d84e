"""Custom derivatives: s2s_ad's answer to PyTorch's `torch.autograd.Function`.

A rule is a template registered for a function: `@ad.adjoint(f)` for reverse mode (grad, vjp),
`@ad.tangent(f)` for forward mode (jvp, and the outer pass of hvp/hessian). Its first parameter
is f's result, the others are f's parameters; `d[v]` is the derivative of v (the adjoint in an
adjoint rule, the tangent in a tangent rule). The rule reads the values of the call it
differentiates directly: there is no `ctx.save_for_backward`.

Run: python examples/custom_derivatives.py
"""
import ctypes
import ctypes.util

import numpy as np

import s2s_ad as ad


# 1. A numerically stable softplus: its derivative written as the logistic function in a form
# that never overflows (1 / (1 + exp(-x)) would, at x = -800).
def softplus(x):
    return np.logaddexp(0.0, x)


@ad.adjoint(softplus)
def _(y, x):
    d[x] = d[y] * 0.5 * (1.0 + np.tanh(0.5 * x))   # noqa: F821 - `d` exists only here


@ad.tangent(softplus)
def _(y, x):
    d[y] = d[x] * 0.5 * (1.0 + np.tanh(0.5 * x))   # noqa: F821


# 2. A function with no Python source: the C library's cube root, called through ctypes.
# s2s_ad cannot read it, so it needs a rule (without one it is refused with a hint).
_libm = ctypes.CDLL(ctypes.util.find_library("m") or None)
c_cbrt = _libm.cbrt
c_cbrt.restype, c_cbrt.argtypes = ctypes.c_double, [ctypes.c_double]


@ad.adjoint(c_cbrt)
def _(y, x):
    d[x] = d[y] / (3.0 * y * y)        # noqa: F821 - the rule reads the result y, no recompute


@ad.tangent(c_cbrt)
def _(y, x):
    d[y] = d[x] / (3.0 * y * y)        # noqa: F821


# 3. A straight-through estimator: round in the forward pass, pass the gradient unchanged in
# the backward pass (a rule replaces the derivative of a function that has Python source, too).
def round_ste(x):
    return np.round(x)


@ad.adjoint(round_ste)
def _(y, x):
    d[x] = d[y]                        # noqa: F821


@ad.tangent(round_ste)
def _(y, x):
    d[y] = d[x]                        # noqa: F821


def model(w, x):
    """A loss that uses all three."""
    quantized = round_ste(w * 4.0) / 4.0
    return np.sum(softplus(quantized * x)) + c_cbrt(float(np.sum(w * w)) + 1.0)


def main():
    x = np.array([-800.0, 0.0, 3.0])
    print("softplus gradient:", ad.grad(lambda v: np.sum(softplus(v)))(x))   # no overflow
    print("d cbrt(x)/dx at 8:", ad.grad(c_cbrt)(8.0), "(1/12 =", 1 / 12, ")")
    w = np.array([0.3, -0.6, 1.2])
    print("gradient through all three:", ad.grad(model)(w, np.array([1.0, 2.0, -1.0])))
    print(ad.source(ad.grad(model)))


if __name__ == "__main__":
    main()
