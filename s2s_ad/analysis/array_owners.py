"""Which names surely hold an array or a number: a call of an array method's name on one
(`h.sum()`) is that array method. On any other name (`p.sum()`, `p` a parameter of no known
kind, an entry of a container, a field of an object) it may be a method of the user's own
class (a dataclass's `sum`), which the array method's rule would take for an array:
passes/guard_method_owners.py checks those when they run.

A name is sure where every binding of it gives an array or a number: a NumPy function or
ufunc, arithmetic, a literal, an array method of a sure name, an entry, slice or attribute
(`.T`) of a sure name, a loop over one; a parameter where the arguments' kinds at the first
call (analysis.kinds) say it is an array or a number.
"""
import gast
import numpy as np

from .. import rules, runtime
from ..traversal import walk_statements
from .flow import bound_names
from .kinds import Array, is_number
from .primitives import classify

_NUMBERS = (int, float, len, abs, round)
_ARITHMETIC = (gast.BinOp, gast.UnaryOp, gast.Compare, gast.Constant)


def surely_arrays(parsed, body, params, local_names, kinds=None):
    """The local names (parameters included) that always hold an array or a number."""
    known = {p for p, kind in zip(params, kinds or ()) if type(kind) is Array or is_number(kind)}
    checked = checked_owners(parsed, body, local_names)
    bindings = list(_bindings(body))
    candidates = {name for name, _ in bindings} - set(params) | known | checked
    changed = True
    while changed:                  # the greatest fixpoint: a name leaves, never comes back
        changed = False
        for name, value in bindings:
            if name in candidates and name not in checked and \
                    not _gives_an_array(value, candidates, parsed, local_names):
                candidates.discard(name)
                changed = True
    return candidates


def checked_owners(parsed, body, local_names):
    """The names a check of a method's owner already in the code reads (differentiating a
    derivative again: hvp): they hold arrays or numbers past it."""
    return {s.value.args[0].id for s in walk_statements(body)
            if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and s.value.args and
            isinstance(s.value.args[0], gast.Name) and
            any(classify(s.value, parsed, local_names).key is c for c in _CHECKS)}


_CHECKS = (runtime.check_method_owner, runtime.check_attribute_owner)


def _bindings(body):
    """(name, the value it is bound to, or None where not a plain `name = value`, or the
    sequence a `for` walks as ("for", node))."""
    for statement in walk_statements(body):
        if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name):
            yield statement.targets[0].id, statement.value
        elif isinstance(statement, gast.AugAssign) and isinstance(statement.target, gast.Name):
            yield statement.target.id, gast.Name(id=statement.target.id, ctx=gast.Load(),
                                                 annotation=None, type_comment=None)
        elif isinstance(statement, gast.For) and isinstance(statement.target, gast.Name):
            yield statement.target.id, ("for", statement.iter)
        else:
            for name in bound_names(statement):
                yield name, None


def _gives_an_array(value, sure, parsed, local_names):
    if value is None:
        return False
    if isinstance(value, tuple):                       # a loop's target: a row of a sure array
        return _gives_an_array(value[1], sure, parsed, local_names)
    if isinstance(value, _ARITHMETIC):
        return True
    if isinstance(value, gast.Name):
        return value.id in sure if value.id in local_names else \
            _is_array(parsed.namespace.get(value.id))
    if isinstance(value, (gast.Subscript, gast.Attribute)):
        return _gives_an_array(value.value, sure, parsed, local_names)
    if isinstance(value, gast.IfExp):
        return all(_gives_an_array(v, sure, parsed, local_names)
                   for v in (value.body, value.orelse))
    if isinstance(value, gast.Call):
        primitive = classify(value, parsed, local_names)
        key = primitive.key
        if isinstance(key, rules.method):
            return bool(primitive.args) and _gives_an_array(primitive.args[0], sure, parsed,
                                                           local_names)
        module = (getattr(key, "__module__", None) or "").split(".")[0]
        return isinstance(key, np.ufunc) or module in ("numpy", "cupy") or \
            any(key is f for f in _NUMBERS)
    return False


def _is_array(value):
    return isinstance(value, (np.ndarray, np.generic, int, float)) or \
        hasattr(value, "__cuda_array_interface__")
