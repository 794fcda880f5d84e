"""ReadSequencesAsArrays: a list or tuple given to a NumPy function that reads its operands as
arrays, spelled as the array NumPy makes of it, on the normal form.

    _t = [a]; _t2 = [b]; _add = np.add(_t, _t2)
        ->  _t = [a]; _t2 = [b]; _asarray = np.asarray(_t); _asarray2 = np.asarray(_t2)
            _add = np.add(_asarray, _asarray2)

A ufunc reads `[a]` as `np.asarray([a])`. Its rule does not: it is written on arrays, and a
list's derivative is a list, on which the rule's `+` concatenates (`[da] + [db]`, a tangent of
two entries where the value has one) and its `-` or `*` by a number fails. Spelled as
`np.asarray`, whose rules turn the entries' derivatives into an array's and back, the list is
read as NumPy reads it, in both modes and at every order.

Operands known to hold a list or a tuple are spelled so: locals that always hold one
(analysis.container_kinds) and parameters that a list or a tuple was passed as and that the
function never binds again (analysis.kinds, part of the derivative cache's key). What one of
the user's functions returned, where that may be a list or a tuple
(analysis.call_results.results_of_user_calls), is read by `read_as_array(v)`, which makes
the array only where it runs on one, and has np.asarray's rules."""
import gast
import numpy as np

from .. import build, rules
from ..analysis.container_kinds import container_kinds
from ..analysis.kinds import REALS, Entries
from ..traversal import stores


def sequence_names(body, params, namespace, kinds=None):
    """The names that always hold a list or a tuple in the normal-form `body`."""
    known = {n for n, kind in container_kinds(body, params, namespace).items()
             if kind in ("list", "tuple")}
    rebound = stores(body)
    for name, kind in zip(params, kinds or ()):
        if name not in rebound and (kind == REALS or isinstance(kind, Entries)
                                    and kind.of is not dict):
            known.add(name)
    return known


def reads_operands_as_arrays(function):
    """Does `function` read each operand as `np.asarray` of it: a NumPy (or SciPy) ufunc, or a
    NumPy function whose rule is elementwise (`np.where`, `np.clip`)?"""
    if isinstance(function, np.ufunc):
        return True
    module = getattr(function, "__module__", None) or ""
    return module.split(".")[0] == "numpy" and rules.is_elementwise(function)


class ReadSequencesAsArrays:
    """`resolve(node)`: the global object a chain stands for (raises LookupError);
    `asarray()`, `read_as_array()`: expressions for np.asarray and runtime.read_as_array;
    `sequences`: the names known to hold a list or a tuple (sequence_names); `maybe`: those
    that may hold one."""

    def __init__(self, resolve, asarray, read_as_array, namer, sequences, maybe):
        self.resolve, self.asarray, self.read_as_array = resolve, asarray, read_as_array
        self.namer, self.sequences, self.maybe = namer, sequences, maybe

    def run(self, body):
        out = []
        for statement in body:
            for field in ("body", "orelse", "finalbody"):
                if getattr(statement, field, None):
                    setattr(statement, field, self.run(getattr(statement, field)))
            for handler in getattr(statement, "handlers", None) or []:
                handler.body = self.run(handler.body)
            out += self._conversions(statement) + [statement]
        return out

    def _conversions(self, statement):
        """The `_asarray = np.asarray(xs)` statements `statement`'s call needs, its operands
        replaced by them."""
        call = getattr(statement, "value", None)
        if not isinstance(statement, gast.Assign) or not isinstance(call, gast.Call) or \
                not self._reads_arrays(call.func):
            return []
        code, converted = [], {}
        for holder, operand in _operands(call):
            if not isinstance(operand, gast.Name):
                continue
            maker = self.asarray if operand.id in self.sequences else \
                self.read_as_array if operand.id in self.maybe else None
            if maker is None:
                continue
            if operand.id not in converted:
                converted[operand.id] = self.namer.fresh("_asarray")
                code.append(gast.copy_location(build.assign(
                    converted[operand.id], gast.Call(func=maker(), keywords=[],
                                                     args=[build.name(operand.id)])), statement))
            holder(build.name(converted[operand.id]))
        return code

    def _reads_arrays(self, func):
        try:
            return reads_operands_as_arrays(self.resolve(func))
        except (LookupError, TypeError):
            return False


def _operands(call):
    """(a setter of the operand's place, the operand) for each argument of `call`."""
    for k, arg in enumerate(call.args):
        yield (lambda node, k=k: call.args.__setitem__(k, node)), arg
    for keyword in call.keywords:
        if keyword.arg == "out":
            continue                     # written into: NumPy takes no list there
        yield (lambda node, keyword=keyword: setattr(keyword, "value", node)), keyword.value
