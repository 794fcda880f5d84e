"""The helpers of the definitions of np.unique, np.histogram and np.roots
(s2s_ad/definitions.py). The weights summed per bin are linear in the weights, and constant in
the data and the edges (an entry moves within its bin: the counts' derivative is 0 wherever
one exists); the integer parts carry no derivative; the coefficients np.roots strips refuse
one."""
from s2s_ad import runtime
from s2s_ad.rules import (adjoint, constant_parameters, d, non_differentiable, supports_complex,
                          tangent, transposes)
from s2s_ad.runtime import bin_spread, refuse_stripped_roots


@transposes(runtime.bin_totals, runtime.bin_spread)
def bin_totals_(r, weights, a, edges):
    d[weights] = bin_spread(d[r], a, edges)


@adjoint(runtime.stripped_coefficients)
def stripped_coefficients_(r, p, first, stop):
    d[p] = refuse_stripped_roots(d[r])


@tangent(runtime.stripped_coefficients)
def stripped_coefficients_tangent(r, p, first, stop):
    d[r] = refuse_stripped_roots(d[p])


supports_complex(runtime.stripped_coefficients)
constant_parameters(("a", "edges"), runtime.bin_totals, runtime.bin_spread)
non_differentiable(runtime.unique_index, runtime.unique_extras, runtime.bin_count,
                   runtime.bin_dtype, runtime.refuse_stripped_roots)
