"""Loop-local values cheaper to recompute in the backward loop than to save on the tape:
`_item = x[i]` and the like.

A value qualifies when its statement runs once per iteration, reads only names the loop
never assigns (or the loop index, or other such values), and is read nowhere outside the
loop. The backward loop recomputes it at the top of each iteration instead of popping it,
so the tape holds nothing for it.
"""
import gast

from ... import build
from ...analysis.activity import assigned_names, mutated_names
from ...traversal import loads, name_nodes, walk_statements
from ...analysis.flow import bound_names, in_order


def cheap(value):
    """Pure and about as cheap as popping a saved value: indexing, attributes, arithmetic."""
    if isinstance(value, (gast.Name, gast.Constant, gast.Subscript, gast.Attribute, gast.Compare)):
        return True
    if isinstance(value, gast.BinOp):
        return not isinstance(value.op, gast.MatMult)
    return isinstance(value, gast.UnaryOp)


class Recomputation:
    """Decides, loop by loop, which saves the backward loops recompute instead."""

    def __init__(self, forward, backward, reverse_loops):
        self.forward = forward
        self.reverse_loops = reverse_loops    # id of a forward loop -> its backward loop
        order = list(in_order(forward))
        self.assignments = {}                 # variable -> how many statements bind it
        self.writers = {}                     # variable -> [(position, enclosing loops)]
        for position, (statement, loops) in enumerate(order):
            names = bound_names(statement)
            for variable in names:
                self.assignments[variable] = self.assignments.get(variable, 0) + 1
            for variable in names + mutated_names(statement):
                self.writers.setdefault(variable, []).append((position, loops))
        self.positions = {id(s): (p, loops) for p, (s, loops) in enumerate(order)}
        # where each name is read, by node id, to tell reads inside a loop from reads outside
        self.read_at = ({}, {})               # in the forward pass, in the backward pass
        for where, code in zip(self.read_at, (forward, backward)):
            for node in name_nodes(code):
                where.setdefault(node.id, []).append(id(node))

    def plan(self, kept):
        """(the restores of `kept` no longer needed, [(backward loop, statements to put at
        the top of its body)])."""
        saves = {}                             # variable -> its saves that pop into a name
        for marker in kept.values():
            if isinstance(marker.target, gast.Name) and marker.undo is None:
                saves.setdefault(marker.variable, []).append(marker)
        dropped, recomputed = [], []
        for loop in walk_statements(self.forward):
            if isinstance(loop, (gast.For, gast.While)) and id(loop) in self.reverse_loops:
                statements, markers = self._in_loop(loop, saves)
                if statements:
                    recomputed.append((self.reverse_loops[id(loop)], statements))
                    dropped += markers
        return dropped, recomputed

    def _in_loop(self, loop, saves):
        """(statements the backward loop of `loop` recomputes, the saves they replace)."""
        assigned_in_loop = changed_in(loop.body)
        inside = ({id(n) for n in name_nodes(loop.body)},
                  {id(n) for n in name_nodes(self.reverse_loops[id(loop)])})
        index = loop.target.id if isinstance(loop, gast.For) and isinstance(loop.target, gast.Name) else None
        available = {index} if index else set()
        recompute, replaced = [], []
        for statement in loop.body:
            marker = self._only_save(statement, saves)
            if marker is None or not cheap(statement.value):
                continue
            if any(o not in available and (o in assigned_in_loop or not self._settled(o, loop))
                   for o in loads(statement.value)):
                continue
            if self._read_outside(marker.variable, inside):
                continue
            available.add(marker.variable)
            recompute.append(build.assign(marker.variable, build.clone(statement.value)))
            replaced.append(marker)
        for node in name_nodes(recompute):      # later loops see these reads
            self.read_at[1].setdefault(node.id, []).append(id(node))
        return recompute, replaced

    def _only_save(self, statement, saves):
        """The one save of the name `statement` alone binds, or None."""
        if not (isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)):
            return None
        variable = statement.targets[0].id
        markers = saves.get(variable, [])
        if len(markers) != 1 or markers[0].forward_statement is not statement \
                or self.assignments.get(variable) != 1:
            return None
        return markers[0]

    def _settled(self, operand, loop):
        """Holds the same value for the whole of `loop`, and again when it is walked back."""
        start, enclosing = self.positions[id(loop)]
        return all(position < start and not set(loops) & set(enclosing)
                   for position, loops in self.writers.get(operand, []))

    def _read_outside(self, variable, inside):
        return any(i not in loop_ids for where, loop_ids in zip(self.read_at, inside)
                   for i in where.get(variable, ()))


def changed_in(body):
    """Names `body` assigns, or changes with a method such as `xs.append(...)`."""
    return set(assigned_names(body)).union(*(mutated_names(s) for s, _ in in_order(body)))
