"""ReadSequencesAsArrays: a list or tuple given to a NumPy function that reads its operands as
arrays, spelled as the array NumPy makes of it, on the normal form.

    _t = [a]; _t2 = [b]; _add = np.add(_t, _t2)
        ->  _t = [a]; _t2 = [b]; _asarray = np.asarray(_t); _asarray2 = np.asarray(_t2)
            _add = np.add(_asarray, _asarray2)

A ufunc reads `[a]` as `np.asarray([a])`, and so do most NumPy functions their first argument
(`np.sort(a)`, `np.take(a, i)`, `np.trace(a)`: reads_first_as_an_array). Its rule does not: it is written on arrays, and a
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
import inspect

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
    return _is_numpy(function) and rules.is_elementwise(function)


# what NumPy names a first parameter that it reads as one array (`np.sort(a)`, `np.interp(x,
# ...)`), where others take a sequence of arrays (`np.stack(arrays)`, `np.hstack(tup)`)
_ONE_ARRAY = ("a", "x", "arr", "ar", "ary", "m", "p", "v", "x1")


def reads_first_as_an_array(function):
    """Does `function`, a NumPy function, read its first argument as `np.asarray` of it, and
    its rule not already so (the casts: np.array, np.asarray, ...)?"""
    if not _is_numpy(function) or rules.adjoint_rule(function) is None:
        return False
    try:
        first = next(iter(inspect.signature(function).parameters.values()), None)
    except (TypeError, ValueError):
        return False
    cast = rules.adjoint_rule(np.asarray)
    return first is not None and first.name in _ONE_ARRAY and \
        first.kind is not first.VAR_POSITIONAL and \
        rules.adjoint_rule(function).template is not cast.template


def _is_numpy(function):
    module = getattr(function, "__module__", None) or ""
    return module.split(".")[0] == "numpy"


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
        if not isinstance(statement, gast.Assign) or not isinstance(call, gast.Call):
            return []
        reads = self._reads_arrays(call.func)
        if reads is None:
            return []
        code, converted = [], {}
        for holder, operand in _operands(call)[:None if reads == "all" else 1]:
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
        """'all' where the function reads every operand as an array, 'first' where its first
        alone, else None."""
        try:
            function = self.resolve(func)
        except LookupError:
            return None
        if not rules.is_hashable(function):
            return None
        return "all" if reads_operands_as_arrays(function) else \
            "first" if reads_first_as_an_array(function) else None


def _operands(call):
    """[(a setter of the operand's place, the operand)] for each argument of `call`, the
    positional ones first."""
    found = [((lambda node, k=k: call.args.__setitem__(k, node)), arg)
             for k, arg in enumerate(call.args)]
    return found + [((lambda node, keyword=keyword: setattr(keyword, "value", node)),
                     keyword.value) for keyword in call.keywords
                    if keyword.arg != "out"]     # written into: NumPy takes no list there
