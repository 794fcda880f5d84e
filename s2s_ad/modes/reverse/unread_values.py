"""Forward assignments whose values nothing reads: the user's dead code, and in a gradient
alone (modes/reverse/assemble.py) what only computed the returned value."""
import gast
import numpy as np

from ... import rules
from ...analysis.kinds import Array
from ...analysis.flow import reachable
from ...analysis.primitives import classify
from ...traversal import loads, name_nodes, nodes_in, rewrite_blocks, stores, walk_statements

_BLOCKS = ("body", "orelse")
_ROOTS = object()                       # where the marking starts: what the rest reads


def drop_unread_values(forward, read_later, pure, is_range=lambda node: False, value=None,
                       cannot_raise=lambda node: False):
    """`forward` without the assignments `name = value` whose name nothing else reads, where
    computing `value` has no effect of its own (`pure`); `read_later`: the names the backward
    pass and the return read. A name read only to compute itself or other such names
    (`cost = cost + c` in a loop, when the value is not returned) is not read either. A loop
    over a range bound to a name (`is_range(call)`) left with nothing to do goes too, where
    nothing reads its target.

    `value`: the function's value, where `read_later` leaves it out (a gradient alone). What
    only it reads goes only where computing it `cannot_raise`: a gradient is not returned
    where the function raises (`y[10]` of a short `y`, `1.0 / k` of `k = 0.0`)."""
    droppable, roots = [], set(read_later)
    _sort(forward, pure, droppable, roots)
    live = _marked(droppable, roots)
    if value is not None:
        only_the_value = _marked(droppable, roots | {value}) - live
        forced = _raising(droppable, only_the_value, cannot_raise)
        while forced:                   # kept: what they read is read
            droppable = [s for s in droppable if id(s) not in forced]
            roots |= {n for s in forced.values() for n in loads(s.value)}
            live = _marked(droppable, roots)
            forced = _raising(droppable, only_the_value - live, cannot_raise)
    dropped = {id(s) for s in droppable if s.targets[0].id not in live}
    if not dropped:
        return forward
    bindings = [s for s in walk_statements(forward) if isinstance(s, gast.Assign)]
    ranges = {n for s in bindings if is_range(s.value) for n in stores(s.targets)} - {
        n for s in bindings if not is_range(s.value) for n in stores(s.targets)}
    return rewrite_blocks(forward, lambda statement: [] if id(statement) in dropped or
                          _idle_range_loop(statement, ranges, live) else [statement])


def _marked(droppable, roots):
    """The names read by the rest (`roots`) and, from them, by the assignments they read."""
    reads = {_ROOTS: roots}
    for statement in droppable:
        reads.setdefault(statement.targets[0].id, set()).update(loads(statement.value))
    return reachable(reads, _ROOTS) - {_ROOTS}


def _raising(droppable, names, cannot_raise):
    """{id: statement} of the assignments to `names` whose value may raise."""
    return {id(s): s for s in droppable
            if s.targets[0].id in names and not cannot_raise(s.value)}


def _idle_range_loop(loop, ranges, live):
    """A `for` over a name bound to ranges only (made before it: `range(2.5)` has raised
    there) whose body is left empty, and whose target nothing reads."""
    return isinstance(loop, gast.For) and not loop.orelse and \
        all(isinstance(s, gast.Pass) for s in loop.body) and \
        isinstance(loop.target, gast.Name) and loop.target.id not in live and \
        isinstance(loop.iter, gast.Name) and loop.iter.id in ranges


def _sort(statements, pure, droppable, live):
    """Put the assignments that may go into `droppable`, and what the rest read into `live`."""
    for statement in statements:
        if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], gast.Name) and pure(statement.value):
            droppable.append(statement)
        elif isinstance(statement, (gast.FunctionDef, gast.ClassDef)):
            live |= loads(statement)
        elif isinstance(statement, (gast.Global, gast.Nonlocal, gast.Delete)):
            # an assignment to a global is an effect; `del x` needs `x` bound
            live |= set(getattr(statement, "names", ())) | {
                n.id for n in name_nodes(statement)}
        else:
            blocks = [getattr(statement, f, None) or [] for f in _BLOCKS]
            for field, value in gast.iter_fields(statement):
                if field not in _BLOCKS and isinstance(value, (gast.AST, list)):
                    live |= loads(value)
            for block in blocks:
                _sort(block, pure, droppable, live)

class CannotRaise:
    """`cannot_raise(value)` for drop_unread_values, from the shape facts of the function
    (analysis.shapes) and its `backward` pass."""

    def __init__(self, parsed, local_names, shapes, backward, maybe_unbound=frozenset()):
        self.parsed, self.local_names, self.shapes = parsed, local_names, shapes
        self.evaluated_again = _what_may_raise_in(backward)
        self.maybe_unbound = maybe_unbound      # ids of reads that may find a name unbound

    def __call__(self, value):
        """Computing `value` raises nothing, whatever the numbers (NumPy warns instead): a
        name or a literal; negation, `+`, `-`, `*`, a power by a literal int >= 0 and
        comparisons of numbers and arrays whose shapes are known to broadcast; a division
        where an operand is an array (a Python number divided by zero raises); a ufunc, a
        sum or a mean of such operands. Not an entry (an index may be out of range), nor a
        max (of an empty array); but an entry the backward pass reads too, and a division by
        what it divides by too, raise there where they would (`heating[t]`, `cost / n`)."""
        if isinstance(value, gast.Name):
            return id(value) not in self.maybe_unbound
        if isinstance(value, gast.Constant):
            return True
        if isinstance(value, gast.Subscript) and gast.dump(value) in self.evaluated_again:
            return True
        if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Div) and \
                ("/", gast.dump(value.right)) in self.evaluated_again:
            return self(value.left)
        if self.shapes.of(value) is None:
            return False                # operands not known, or shapes that cannot broadcast
        if isinstance(value, gast.UnaryOp):
            return self(value.operand)
        if isinstance(value, gast.Compare):
            return all(map(self, [value.left] + value.comparators))
        if isinstance(value, gast.BinOp):
            operands = (value.left, value.right)
            if isinstance(value.op, (gast.Div, gast.FloorDiv, gast.Mod)):
                safe = any(isinstance(self.shapes.of(o), Array) for o in operands)
            elif isinstance(value.op, gast.Pow):
                safe = isinstance(value.right, gast.Constant) and \
                    type(value.right.value) is int and value.right.value >= 0
            else:
                safe = isinstance(value.op, (gast.Add, gast.Sub, gast.Mult))
            return safe and all(map(self, operands))
        if isinstance(value, gast.Call):
            key = classify(value, self.parsed, self.local_names).key
            summed = key is np.sum or key is np.mean or isinstance(key, rules.method) and \
                key.name in ("sum", "mean")
            return (isinstance(key, np.ufunc) or summed) and \
                all(map(self, value.args))
        return False


def _what_may_raise_in(backward):
    """The entries the backward pass reads and what it divides by (as dumps): where the
    forward pass's copy would raise, these raise too."""
    found = set()
    for node in nodes_in(backward, (gast.Subscript, gast.BinOp)):     # a set: any order
        if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load):
            found.add(gast.dump(node))
        elif isinstance(node, gast.BinOp) and isinstance(node.op, gast.Div):
            found.add(("/", gast.dump(node.right)))
    return found
