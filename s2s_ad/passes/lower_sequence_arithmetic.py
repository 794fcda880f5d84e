"""LowerSequenceArithmetic: repetition and concatenation of list and tuple displays, spelled
as the display they make, on the normal form.

    _t = [a]; _m = _t * 3             _m = [a, a, a]
    _t = [a]; _u = [1.0, 2.0]; _s = _t + _u       _s = [a, 1.0, 2.0]

The elementwise rules of `*` and `+` read their operands as arrays: on lists the adjoint of
`[a] * 3` came out three times too large, and that of `[a] + [b, c]` summed every entry onto
`a`. A display's entries are atoms in normal form, so repeating them evaluates nothing twice.
What is left on values that carry a derivative is refused: at transform time where an operand
is known to be a list or tuple (passes/refuse_misread_operations.py), otherwise by the run-time
check of sequence arithmetic."""
import gast

from .. import build
from ..traversal import stores, walk, walk_statements

_DISPLAYS = (gast.List, gast.Tuple)


def displays_in(body, facts=None):
    """{name: its display} for names bound once, to a list or tuple display, and only ever read
    whole afterwards (never written into, updated or asked to change itself); `facts`:
    `_facts(body)` where known."""
    constant, _ = facts or _facts(body)
    return {name: value for name, value in constant.items()
            if isinstance(value, _DISPLAYS) and not any(isinstance(e, gast.Starred)
                                                        for e in value.elts)}


def _substitutable_displays(body, facts):
    """`displays_in`, where each entry holds one value for the whole call (a constant, or a
    name bound at most once and outside every loop): a display written out again where the
    name is read (`_m = [a, a, a]` for `_t = [a]; _m = _t * 3`) then reads what the display
    held, also where `a` was bound again in between (`t = [a]; a = a * 2.0; m = t * 3`)."""
    _, bindings = facts
    looped = stores(list(_outermost_loops(body)))

    def stable(entry):
        return isinstance(entry, gast.Constant) or isinstance(entry, gast.Name) and \
            bindings.get(entry.id, 0) <= 1 and entry.id not in looped

    return {name: value for name, value in displays_in(body, facts).items()
            if all(map(stable, value.elts))}


def _outermost_loops(body):
    for statement in body:
        if isinstance(statement, (gast.For, gast.While)):
            yield statement
        elif not isinstance(statement, gast.FunctionDef):
            for block in ("body", "orelse", "finalbody"):
                yield from _outermost_loops(getattr(statement, block, None) or [])
            for handler in getattr(statement, "handlers", None) or []:
                yield from _outermost_loops(handler.body)


def _facts(body):
    """({name: the value it is bound to} for names bound once, by an assignment, and only ever
    read whole afterwards; {name: how many times it is bound}), from one walk of `body`."""
    bindings, changed = {}, set()
    for node in walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            bindings[node.id] = bindings.get(node.id, 0) + 1
        elif isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(node.value, gast.Name):
            changed.add(node.value.id)         # `xs[0] = v`, `xs.append(v)`: not a constant display
        elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            changed.add(node.target.id)
    assigned = {statement.targets[0].id: statement.value for statement in walk_statements(body)
                if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)}
    return {name: value for name, value in assigned.items()
            if bindings.get(name) == 1 and name not in changed}, bindings


class LowerSequenceArithmetic:
    """`sequences`: names known to hold a list or a tuple (read_sequences_as_arrays.
    sequence_names); `joined()`: the name generated code calls runtime.joined by."""

    def __init__(self, sequences=(), joined=None):
        self.sequences, self.joined = sequences, joined

    def run(self, body):
        facts = _facts(body)
        constant = facts[0]
        self.displays = _substitutable_displays(body, facts)
        for statement in walk_statements(body):
            if isinstance(statement, gast.Assign) and isinstance(statement.value, gast.BinOp):
                lowered = self._lowered(statement.value)
                if lowered is not None:
                    name = statement.targets[0]
                    if isinstance(name, gast.Name) and constant.get(name.id) is statement.value:
                        self.displays[name.id] = lowered      # `[a] * 2 + [b]`, step by step
                    statement.value = gast.copy_location(lowered, statement.value)
        return body

    def _display(self, node):
        if isinstance(node, _DISPLAYS) and not any(isinstance(e, gast.Starred) for e in node.elts):
            return node
        return self.displays.get(node.id) if isinstance(node, gast.Name) else None

    def _lowered(self, operation):
        left, right = self._display(operation.left), self._display(operation.right)
        if isinstance(operation.op, gast.Add) and left is not None and right is not None \
                and type(left) is type(right):
            return type(left)(elts=list(left.elts) + list(right.elts), ctx=gast.Load())
        if isinstance(operation.op, gast.Mult):
            display, count = (left, operation.right) if left is not None else (right, operation.left)
            if display is not None and isinstance(count, gast.Constant) \
                    and type(count.value) is int:
                return type(display)(elts=list(display.elts) * max(count.value, 0), ctx=gast.Load())
        if isinstance(operation.op, gast.Add) and self.joined is not None and all(
                isinstance(o, gast.Name) and o.id in self.sequences
                for o in (operation.left, operation.right)):
            return gast.Call(func=build.name(self.joined()), keywords=[],
                             args=[operation.left, operation.right])
        return None
