"""np.polyval(p, x): linear in the coefficients p; in x, the derivative polynomial's value.
With the rules of the helpers its adjoint calls (second order: hvp, hessian)."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, tangent, transposes
from s2s_ad.runtime import poly_derivative, polyval_grad_p, unbroadcast, unpoly_derivative


@adjoint(np.polyval)
def polyval(y, p, x):
    d[p] = polyval_grad_p(d[y], p, x)
    d[x] = unbroadcast(d[y] * np.polyval(poly_derivative(p), x), x)


@tangent(np.polyval)
def polyval_tangent(y, p, x):
    d[y] = np.polyval(d[p], x) + d[x] * np.polyval(poly_derivative(p), x)


@transposes(runtime.poly_derivative, runtime.unpoly_derivative)
def poly_derivative_(r, p):
    d[p] = unpoly_derivative(d[r])


# linear in g; in x, the sum of g times x^k moves by the sum of g dx times k x^(k-1): the sums of
# the derivative polynomial's powers, times k (unpoly_derivative)
@adjoint(runtime.polyval_grad_p)
def polyval_grad_p_(r, g, p, x):
    d[g] = unbroadcast(np.polyval(d[r], x), g)
    d[x] = unbroadcast(g * np.polyval(poly_derivative(d[r]), x), x)


@tangent(runtime.polyval_grad_p)
def polyval_grad_p_tangent(r, g, p, x):
    d[r] = polyval_grad_p(d[g], p, x) + unpoly_derivative(polyval_grad_p(g * d[x], poly_derivative(p), x))
