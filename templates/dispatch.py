"""Adjoints of run-time dispatch (`vjp_call`), so that a derivative called inside a
differentiated function can be differentiated to any order."""
from s2s_ad.dispatch import vjp_call, vjp_call_adjoints
from s2s_ad.rules import adjoint, d


@adjoint(vjp_call)
def vjp_call_(y, fn, args, kwargs, seed, active, where=None):
    adjoints = vjp_call_adjoints(d[y], fn, args, kwargs, seed, active, where)
    d[args] = adjoints[0]
    d[kwargs] = adjoints[1]
    d[seed] = adjoints[2]
