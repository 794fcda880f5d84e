"""np.linalg.vector_norm, np.linalg.matrix_norm and np.linalg.cond, written through the
derivatives of np.linalg.norm (runtime.norm_grad, norm_direction), whose rules carry them to
second order."""
import numpy as np

from s2s_ad.rules import adjoint, d, non_differentiable, supports_complex, tangent
from s2s_ad.runtime import (cond_ord, norm_direction, norm_grad, pinv_tangent,
                            vector_norm_layout)


# vector_norm is np.linalg.norm's vector norm along one axis of x with the reduced axes moved
# last and made one (runtime.vector_norm_layout)
@adjoint(np.linalg.vector_norm)
def vector_norm(y, x, *, axis=None, keepdims=False, ord=2):
    """0 at x = 0; entries that tie for ord=inf / -inf share the derivative."""
    lay = vector_norm_layout(x, axis)
    d[x] = np.moveaxis(np.reshape(norm_grad(np.reshape(d[y], lay[4]), np.reshape(y, lay[4]), np.reshape(np.moveaxis(x, lay[0], lay[1]), lay[3]), ord, -1), lay[2]), lay[1], lay[0])


@tangent(np.linalg.vector_norm)
def vector_norm_tangent(y, x, *, axis=None, keepdims=False, ord=2):
    """0 at x = 0; entries that tie for ord=inf / -inf share the derivative."""
    lay = vector_norm_layout(x, axis)
    d[y] = np.reshape(np.real(np.sum(norm_direction(np.reshape(np.moveaxis(x, lay[0], lay[1]), lay[3]), np.reshape(y, lay[4]), ord, -1) * np.reshape(np.moveaxis(d[x], lay[0], lay[1]), lay[3]), axis=-1)), np.shape(y))


@adjoint(np.linalg.matrix_norm)
def matrix_norm(y, x, *, keepdims=False, ord="fro"):
    """0 at x = 0. ord 2, -2 and 'nuc': distinct singular values; hvp and hessian, but no grad
    of grad (as np.linalg.norm)."""
    d[x] = norm_grad(d[y], y, x, ord, (-2, -1), keepdims)


@tangent(np.linalg.matrix_norm)
def matrix_norm_tangent(y, x, *, keepdims=False, ord="fro"):
    """0 at x = 0. ord 2, -2 and 'nuc': distinct singular values."""
    d[y] = np.real(np.sum(norm_direction(x, y, ord, (-2, -1), keepdims) * d[x], axis=(-2, -1), keepdims=keepdims))


supports_complex(np.linalg.vector_norm, np.linalg.matrix_norm)


# cond(x, p) = norm(x, p) * norm(pinv(x), p) (pinv is inv where p needs a square matrix). The
# pinv adjoint's terms beyond -pinv^T G pinv^T vanish here for every x: G, the direction of
# the 2-norm of pinv(x), lies in the row and column spaces of x
@adjoint(np.linalg.cond)
def cond(y, x, p=None):
    """Every p; p = None, 2, -2: distinct extreme singular values; hvp and hessian, but no grad
    of grad (as np.linalg.norm)."""
    inverse = np.linalg.pinv(x)
    size = np.linalg.norm(x, cond_ord(p), (-2, -1))
    inverse_size = np.linalg.norm(inverse, cond_ord(p), (-2, -1))
    d[x] = norm_grad(d[y] * inverse_size, size, x, cond_ord(p), (-2, -1)) - np.matmul(np.swapaxes(inverse, -1, -2), np.matmul(norm_grad(d[y] * size, inverse_size, inverse, cond_ord(p), (-2, -1)), np.swapaxes(inverse, -1, -2)))


@tangent(np.linalg.cond)
def cond_tangent(y, x, p=None):
    """Every p; p = None, 2, -2: distinct extreme singular values."""
    inverse = np.linalg.pinv(x)
    size = np.linalg.norm(x, cond_ord(p), (-2, -1))
    inverse_size = np.linalg.norm(inverse, cond_ord(p), (-2, -1))
    d[y] = np.real(np.sum(norm_direction(x, size, cond_ord(p), (-2, -1)) * d[x], axis=(-2, -1)) * inverse_size + size * np.sum(norm_direction(inverse, inverse_size, cond_ord(p), (-2, -1)) * pinv_tangent(d[x], inverse, x), axis=(-2, -1)))


# complex values: cond is real, its adjoint the norms' (whose conjugates meet x) and pinv's
supports_complex(np.linalg.cond)
non_differentiable(cond_ord, vector_norm_layout)
