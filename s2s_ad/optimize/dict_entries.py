"""DictEntries: the adjoint of a container read at constant keys (`params["W1"]`,
`params["b1"]`; `pair[0]`, `pair[1]` of a tuple argument) is filled entry by entry.
Generated code accumulates it as it accumulates arrays, `dp = dp + scatter(p, "W1", g)`, which
makes a one-entry container and a merged copy at each key; where the keys are literals read
once each, nothing else reads `dp` and nothing rebinds `p` in between, the entry is stored,
`dp["W1"] = g`: what `dp` holds was made by `scatter` in this code, so no other name sees the
store. `p` must be a container argument of known kind (analysis.shapes): the adjoint of an
array's rows is an array, where a store would cast what np.add.at refuses (a complex adjoint
into a real array). An int key must not be negative (-1 and 2 may be one entry)."""
import gast

from .. import build, runtime
from ..traversal import rewrite_each_block, walk


def _accumulated(statement, scatter):
    """`dp = dp + scatter(p, "key", g)` -> (dp, p, "key", g), else None."""
    if not (isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)):
        return None
    target, value = statement.targets[0].id, statement.value
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add) and \
            isinstance(value.left, gast.Name) and value.left.id == target:
        found = _scattered(value.right, scatter)
        return None if found is None else (target,) + found
    return None


def _scattered(node, scatter):
    """`scatter(p, key, g)` with a name `p` and a literal key, a string or an int not below
    0 -> (p, key, g), else None."""
    if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
            node.func.id == scatter and len(node.args) == 3 and not node.keywords and \
            isinstance(node.args[0], gast.Name) and isinstance(node.args[1], gast.Constant) and \
            (type(node.args[1].value) is str or type(node.args[1].value) is int and
             node.args[1].value >= 0):
        return node.args[0].id, node.args[1].value, node.args[2]
    return None


def _rebinds(statement, name):
    return any(isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load)
               for n in walk(statement))


def _mentions(statement, name):
    return any(isinstance(n, gast.Name) and n.id == name for n in walk(statement))


class DictEntries:
    """Store the entries of container adjoints made by `scatter` at constant keys."""

    def __init__(self, names, is_container):
        self.names = names          # name -> runtime object, as bound in the generated code
        self.is_container = is_container    # name -> is it a dict, list or tuple of known kind?

    def run(self, function):
        scatter = next((k for k, v in self.names.items() if v is runtime.scatter), None)
        if scatter is not None:
            function.body = rewrite_each_block(function.body,
                                               lambda block: self.block(block, scatter))
        return function

    def block(self, statements, scatter):
        for position, statement in enumerate(statements):
            made = isinstance(statement, gast.Assign) and \
                isinstance(statement.targets[0], gast.Name) and \
                _scattered(statement.value, scatter)
            if made and self.is_container(made[0]):
                self._store_entries(statements, position, statement.targets[0].id, made, scatter)
        return statements

    def _store_entries(self, statements, first, target, made, scatter):
        """From the statement after `first`, which made `target` with one entry, rewrite the
        accumulations into it until a statement reads it otherwise."""
        keys = {made[1]}
        for position in range(first + 1, len(statements)):
            statement = statements[position]
            if _rebinds(statement, made[0]):
                return                    # another container: its entries may be others
            if not _mentions(statement, target):
                continue
            found = _accumulated(statement, scatter)
            if found is None or found[1] != made[0] or found[2] in keys or \
                    type(found[2]) is not type(made[1]) or _mentions(found[3], target):
                return
            keys.add(found[2])
            statements[position] = build.quote(f"{target}[{found[2]!r}] = {{g}}", g=found[3])[0]
