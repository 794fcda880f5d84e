"""ReadSequencesAsArrays: a list or tuple given to a NumPy function that reads its operands as
arrays, spelled as the array NumPy makes of it, on the normal form.

    _t = [a]; _t2 = [b]; _add = np.add(_t, _t2)
        ->  _t = [a]; _t2 = [b]; _asarray = np.asarray(_t); _asarray2 = np.asarray(_t2)
            _add = np.add(_asarray, _asarray2)

A ufunc reads `[a]` as `np.asarray([a])`, and so do most NumPy functions their first argument
(`np.sort(a)`, `np.take(a, i)`, `np.trace(a)`: reads_first_as_an_array) and NumPy's arithmetic
a list beside an array (`arr * xs`, where `arr` is known to be one: a ufunc's result, a cast's,
an array argument). Its rule does not: it is written on arrays, and a
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
from ..analysis.kinds import REALS, Array, Entries
from ..traversal import stores, walk_statements


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


def array_parameters(body, params, kinds=None):
    """The parameters an array was passed as (analysis.kinds) that `body` never binds again."""
    rebound = stores(body)
    return {name for name, kind in zip(params, kinds or ())
            if isinstance(kind, Array) and name not in rebound}


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

    def __init__(self, resolve, asarray, read_as_array, namer, sequences, maybe, arrays=()):
        self.resolve, self.asarray, self.read_as_array = resolve, asarray, read_as_array
        self.namer, self.sequences, self.maybe = namer, sequences, maybe
        self.arrays = set(arrays)         # parameters known to hold an array

    def run(self, body):
        self.arrays |= self._made_arrays(body) - set(self.sequences)
        return self._run(body)

    def _made_arrays(self, body):
        """The names every binding of which is a call making an array: a ufunc's, an
        elementwise NumPy function's, a cast's (np.array(xs))."""
        made, others = set(), set()
        for statement in walk_statements(body):
            value = getattr(statement, "value", None)
            targets = statement.targets if isinstance(statement, gast.Assign) else []
            if len(targets) == 1 and isinstance(targets[0], gast.Name) and \
                    isinstance(value, gast.Call) and self._makes_an_array(value.func):
                made.add(targets[0].id)
            elif isinstance(statement, gast.For):
                others |= stores(statement.target)
            elif not hasattr(statement, "body"):
                others |= stores(statement)
        return made - others

    def _makes_an_array(self, func):
        try:
            function = self.resolve(func)
        except LookupError:
            return False
        return rules.is_hashable(function) and (
            reads_operands_as_arrays(function) or _is_numpy(function) and
            rules.adjoint_rule(function) is not None and
            rules.adjoint_rule(function).template is rules.adjoint_rule(np.asarray).template)

    def _run(self, body):
        out = []
        for statement in body:
            for field in ("body", "orelse", "finalbody"):
                if getattr(statement, field, None):
                    setattr(statement, field, self._run(getattr(statement, field)))
            for handler in getattr(statement, "handlers", None) or []:
                handler.body = self._run(handler.body)
            out += self._conversions(statement) + [statement]
        return out

    def _conversions(self, statement):
        """The `_asarray = np.asarray(xs)` statements `statement`'s call needs, its operands
        replaced by them."""
        call = getattr(statement, "value", None)
        if not isinstance(statement, gast.Assign):
            return []
        if isinstance(call, gast.BinOp):
            operands = self._arithmetic_operands(call)
        elif isinstance(call, gast.Call):
            reads = self._reads_arrays(call.func)
            operands = [] if reads is None else _operands(call)[:None if reads == "all" else 1]
        else:
            return []
        code, converted = [], {}
        for holder, operand in operands:
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

    def _arithmetic_operands(self, operation):
        """`arr * xs`: NumPy's arithmetic reads a list or tuple beside an array as an array
        (where the other operand is known to be one: beside a number `*` repeats the list)."""
        sides = [(lambda node: setattr(operation, "left", node), operation.left),
                 (lambda node: setattr(operation, "right", node), operation.right)]
        names = [o.id if isinstance(o, gast.Name) else None for _, o in sides]
        if any(n in self.arrays for n in names) and any(n in self.sequences for n in names):
            return [side for side, name in zip(sides, names) if name in self.sequences]
        return []

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
