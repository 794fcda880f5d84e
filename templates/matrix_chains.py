"""np.linalg.matrix_power, np.linalg.multi_dot and the matrix transpose (np.matrix_transpose,
np.linalg.matrix_transpose)."""
import numpy as np

from s2s_ad import runtime
from s2s_ad.rules import adjoint, d, linear, supports_complex, tangent
from s2s_ad.runtime import (block_diagonal_sum, dual_block, multi_dot_grads,
                            multi_dot_grads_tangent, multi_dot_tangent, upper_right, zeros_like)


# d a^n along e is the upper right block of [[a, e], [0, a]]^n (runtime.dual_block), for every
# integer n; its transpose is the same with a^T and the incoming adjoint
@adjoint(np.linalg.matrix_power)
def matrix_power(y, a, n):
    """Every integer n (a negative one needs an invertible `a`)."""
    d[a] = upper_right(np.linalg.matrix_power(dual_block(np.swapaxes(a, -1, -2), d[y]), n))


@tangent(np.linalg.matrix_power)
def matrix_power_tangent(y, a, n):
    """Every integer n (a negative one needs an invertible `a`)."""
    d[y] = upper_right(np.linalg.matrix_power(dual_block(a, d[a]), n))


@adjoint(np.linalg.multi_dot)
def multi_dot(y, arrays, *, out=None):
    d[arrays] = multi_dot_grads(d[y], arrays)


@tangent(np.linalg.multi_dot)
def multi_dot_tangent_(y, arrays, *, out=None):
    d[y] = multi_dot_tangent(arrays, d[arrays])


supports_complex(np.linalg.matrix_power, np.linalg.multi_dot)    # holomorphic: transposes


@linear(np.matrix_transpose, np.linalg.matrix_transpose, complex=True)
def matrix_transpose(y, x):
    d[x] = np.swapaxes(d[y], -1, -2)


# the helpers of the rules above (forward over reverse: hvp and hessian)
@adjoint(runtime.dual_block)
def dual_block_(r, a, e):
    d[a] = block_diagonal_sum(d[r])
    d[e] = upper_right(d[r])


@tangent(runtime.dual_block)
def dual_block_tangent(r, a, e):
    d[r] = dual_block(d[a], d[e])


@linear(runtime.upper_right)
def upper_right_(r, m):
    d[m] = dual_block(zeros_like(d[r]), d[r])


@linear(runtime.block_diagonal_sum)
def block_diagonal_sum_(r, m):
    d[m] = dual_block(d[r], zeros_like(d[r]))


@tangent(runtime.multi_dot_grads)
def multi_dot_grads_tangent_(r, g, arrays):
    d[r] = multi_dot_grads_tangent(d[g], g, arrays, d[arrays])


supports_complex(runtime.dual_block, runtime.upper_right, runtime.block_diagonal_sum,
                 runtime.multi_dot_grads)
