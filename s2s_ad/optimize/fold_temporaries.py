"""FoldTemporaries: `_t = expr; v = _t` becomes `v = expr` when `_t` is used nowhere else."""
from collections import Counter

import gast

from ..traversal import name_nodes


class NameCounts:
    """How many times each name is read and written."""

    def __init__(self, names=()):
        self.loads, self.stores = Counter(), Counter()
        for node in names:
            self.add(node)

    def add(self, node):
        """Count the Name `node`; returns it, so that it can serve as a rewrite."""
        if isinstance(node.ctx, gast.Load):
            self.loads[node.id] += 1
        elif isinstance(node.ctx, gast.Store):
            self.stores[node.id] += 1
        return node


def _is_push(statement):
    value = getattr(statement, "value", None)
    return (isinstance(statement, gast.Expr) and isinstance(value, gast.Call)
            and isinstance(value.func, gast.Attribute) and value.func.attr == "append")


class FoldTemporaries:
    """Undo the temporaries normal form introduced where nothing else reads them."""

    def run(self, function, counts=None):
        """Fold in `function`; `counts` are its NameCounts when the caller has them already."""
        counts = counts or NameCounts(name_nodes(function))
        self.uses, self.stores = counts.loads, counts.stores
        function.body = self.block(function.body)
        return function

    def block(self, statements):
        out = []
        i = 0
        while i < len(statements):
            statement = statements[i]
            for field in ("body", "orelse"):
                if getattr(statement, field, None):
                    setattr(statement, field, self.block(getattr(statement, field)))
            folded = self.try_fold(statements, i)
            if folded is not None:
                replacement, consumed = folded
                out += replacement
                i += consumed
                continue
            out.append(statement)
            i += 1
        return out

    def try_fold(self, statements, i):
        first = statements[i]
        if not (isinstance(first, gast.Assign) and isinstance(first.targets[0], gast.Name)):
            return None
        temp = first.targets[0].id
        if not temp.startswith("_") or self.uses[temp] != 1 or self.stores[temp] != 1:
            return None
        j = i + 1
        between = []
        while j < len(statements) and _is_push(statements[j]):
            between.append(statements[j])
            j += 1
        if j >= len(statements):
            return None
        second = statements[j]
        if not (isinstance(second, gast.Assign) and isinstance(second.targets[0], gast.Name)
                and isinstance(second.value, gast.Name) and second.value.id == temp):
            return None
        second.value = first.value
        return between + [second], j - i + 1
