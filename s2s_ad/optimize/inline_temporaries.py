"""InlineTemporaries: a temporary that normal form made and that one later statement of its
block reads is written into that read again.

    _sub = x - top
    _exp = np.exp(_sub)         ->      _exp = np.exp(x - top)

The code reads as the user wrote it, and the value lives only while the expression that reads
it runs: the 8 MB `x - top` of a 1000x1000 `x` is freed as soon as exp has read it, and the
next array of that size takes its memory instead of fresh pages (where `_sub` held it to the
end of the derivative, and the backward pass paid the page faults).

Only where the evaluation is the same: the read is evaluated once, not inside a lambda, a
comprehension, a conditional or the second operand of `and`/`or`; nothing evaluated before
it in the statement calls anything; and where the temporary's expression calls something
(which might change what it is given), what is read before it is a name or a constant, and
the read is in the next statement. Statements in between (forward mode's tangents:
`_sub = x - top; d_sub = dx - dtop; _exp = np.exp(_sub)`) bind names only, none that the
expression reads, and call nothing: what they compute is the same, but where both they and
the expression fail (a shape that does not broadcast), the other error is raised first.
"""
import types
from itertools import islice

import gast

from ..traversal import DEFERRED, DYNAMIC_LOCALS, nodes_in, preorder, walk
from .fold_temporaries import NameCounts

_SIMPLE = (gast.Assign, gast.Expr, gast.Return)
# where a read is evaluated later, or its order among the others differs (a dict's keys and
# values alternate)
_DEFERRED = DEFERRED + (gast.Dict,)
_EFFECTS = (gast.Call, gast.NamedExpr, gast.Await, gast.Yield, gast.YieldFrom)
_SCOPES = DEFERRED + (gast.ClassDef,)


class InlineTemporaries:
    """`resolve(name)`: the object a global name stands for (raises LookupError), or None."""

    def __init__(self, resolve=None):
        self.resolve = resolve

    def run(self, function):
        nodes = nodes_in(function, (gast.Name, gast.Global, gast.Nonlocal))
        names = [n for n in nodes if isinstance(n, gast.Name)]
        if any(n.id in DYNAMIC_LOCALS for n in names):
            return function             # code that reads locals without naming them
        self.counts = NameCounts(names)
        # names bound any other way, or shared with other scopes, stay as they are
        self.unsafe = {n.id for n in names if isinstance(n.ctx, gast.Del)} | {
            name for n in nodes if isinstance(n, (gast.Global, gast.Nonlocal)) for name in n.names}
        self.own = _own_locals(function) - self.unsafe
        self.block(function.body)
        return function

    def block(self, statements):
        for statement in statements:
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    self.block(inner)
        # a statement inlined is dropped; the list is rebuilt once, not shifted per deletion
        kept = [s for k, s in enumerate(statements[:-1]) if not self._inlined(statements, k)]
        statements[:] = kept + statements[-1:]

    def _inlined(self, statements, k):
        """Write the value of `statements[k]` into the one read of its temporary, in a later
        statement of the block; True if done. The statements passed over only bind names
        the temporary's expression does not read, and call nothing (nor does it)."""
        first = statements[k]
        if not (isinstance(first, gast.Assign) and len(first.targets) == 1
                and isinstance(first.targets[0], gast.Name)
                and first.targets[0].id.startswith("_")):
            return False
        temp = first.targets[0].id
        if self.counts.loads[temp] != 1 or self.counts.stores[temp] != 1 or temp not in self.own:
            return False
        calls = _calls(first.value)
        read = {n.id for n in walk(first.value) if isinstance(n, gast.Name)}
        for second in islice(statements, k + 1, None):      # no copy of the rest per statement
            if any(isinstance(n, gast.Name) and n.id == temp for n in walk(second)):
                break
            if calls or not _passed_over(second, read):
                return False
        else:
            return False
        if not (isinstance(second, _SIMPLE) and second.value is not None
                and (not isinstance(second, gast.Assign)
                     or all(isinstance(t, gast.Name) for t in second.targets))):
            return False
        place = self._read_place(second, temp, calls)
        if place is None:
            return False
        parent, field, position = place
        if position is None:
            setattr(parent, field, first.value)
        else:
            getattr(parent, field)[position] = first.value
        return True

    def _read_place(self, statement, temp, inlined_calls):
        """(parent, field, position in a list field or None) of the read of `temp` in the
        value of `statement`, where evaluating the temporary's expression there changes
        nothing; else None."""
        value = statement.value
        if isinstance(value, gast.Name):
            return (statement, "value", None) if value.id == temp else None
        path = _path_to(value, temp)
        if path is None or any(isinstance(node, _DEFERRED) or _conditional(node, child)
                               for node, child in zip(path, path[1:])):
            return None
        ancestors, skipped = {id(node) for node in path}, set()
        for node in preorder(value):
            if node is path[-1]:
                break
            if id(node) in ancestors or id(node) in skipped:
                continue
            if inlined_calls and self._module_attribute(node):
                skipped.add(id(node.value))
                continue
            if isinstance(node, _EFFECTS):
                return None         # runs before the read, and so before the expression did
            if inlined_calls and not (isinstance(node, gast.Constant) or
                                      isinstance(node, gast.Name) and node.id in self.own):
                return None         # read before the expression, which may change it (a
                #                     global, an attribute, a name a nested function rebinds)
        parent = path[-2]
        for field in parent._fields:
            current = getattr(parent, field, None)
            if current is path[-1]:
                return parent, field, None
            if isinstance(current, list):
                for position, item in enumerate(current):
                    if item is path[-1]:
                        return parent, field, position
        return None

    def _module_attribute(self, node):
        """`np.exp`: an attribute of a module's global name."""
        if not (isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name)
                and self.resolve is not None and node.value.id not in self.counts.stores
                and node.value.id not in self.unsafe):
            return False
        try:
            return isinstance(self.resolve(node.value.id), types.ModuleType)
        except LookupError:
            return False


def _own_locals(function):
    """The names `function` binds in its own scope (parameters of every kind, assignment
    targets; not those of functions, lambdas and comprehensions nested in it), less those a
    nested function declares nonlocal (a call of it may rebind them)."""
    arguments = function.args
    found = {a.id for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    found |= {a.id for a in (arguments.vararg, arguments.kwarg) if a is not None}
    for node in nodes_in(function.body, (gast.Name, gast.FunctionDef, gast.AsyncFunctionDef),
                         prune=_SCOPES):
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Store):
                found.add(node.id)
        else:
            found.add(node.name)
    return found


def _passed_over(statement, read):
    """Can an expression that reads the names `read` and calls nothing be evaluated after
    `statement` instead of before it: `statement` binds names only, none of those, and
    calls nothing?"""
    return isinstance(statement, gast.Assign) and \
        all(isinstance(t, gast.Name) and t.id not in read for t in statement.targets) and \
        not any(isinstance(n, _EFFECTS + _DEFERRED) for n in walk(statement.value))


def _calls(node):
    return any(isinstance(n, _EFFECTS) for n in walk(node))


def _path_to(value, temp):
    """The nodes from `value` down to its Name read of `temp` (found once), or None."""
    stack = [(value, [value])]
    while stack:
        node, path = stack.pop()
        if isinstance(node, gast.Name) and node.id == temp and isinstance(node.ctx, gast.Load):
            return path
        for child in gast.iter_child_nodes(node):
            stack.append((child, path + [child]))
    return None


def _conditional(node, child):
    """Is `child` evaluated only sometimes (or more than once) when `node` is?"""
    if isinstance(node, gast.IfExp):
        return child is not node.test
    if isinstance(node, gast.BoolOp):
        return child is not node.values[0]
    if isinstance(node, gast.Compare):      # `a < b < c` reads c only where a < b
        return any(child is c for c in node.comparators[1:])
    return False
