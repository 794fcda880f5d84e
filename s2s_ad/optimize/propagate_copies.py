"""PropagateCopies: `d_a = d_b; ...; y = f(d_a)` becomes `...; y = f(d_b)` when `d_a` is
bound once, read only in that block and `d_b` holds the same value at each read (the derivative of a sum hands the
same value to each operand under a name of its own); `x = x` left behind goes too."""
import gast

from ..traversal import walk


def _copy(statement):
    """`a = b` (two names) -> (a, b), else None."""
    if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
            isinstance(statement.targets[0], gast.Name) and isinstance(statement.value, gast.Name):
        return statement.targets[0].id, statement.value.id
    return None


def _names(node, context):
    return {n.id for n in walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, context)}


class _Rename(gast.NodeTransformer):
    def __init__(self, old, new):
        self.old, self.new = old, new

    def visit_Name(self, node):
        if node.id == self.old and isinstance(node.ctx, gast.Load):
            node.id = self.new
        return node


class PropagateCopies:
    """Propagate single-use copies within one block; `counts` are the function's NameCounts."""

    def run(self, function, counts):
        self.loads, self.stores = counts.loads, counts.stores
        function.body = self.block(function.body)
        return function

    def block(self, statements):
        for statement in statements:
            for field in ("body", "orelse"):
                if getattr(statement, field, None):
                    setattr(statement, field, self.block(getattr(statement, field)))
        out = list(statements)
        i = 0
        while i < len(out):
            if self._propagated(out, i):
                del out[i]
            else:
                i += 1
        return [s for s in out if not (_copy(s) and _copy(s)[0] == _copy(s)[1])]

    def _propagated(self, statements, i):
        """Read the source instead of the copy made at `statements[i]` everywhere, if that
        is the same value at each read; True when done."""
        copy = _copy(statements[i])
        if copy is None:
            return False
        alias, source = copy
        # only the names of temporaries (`_t`) and of their derivatives (`d_t`): the user's
        # names and their derivatives' (`dx = tangent`) stay, they are what a reader follows
        if not alias.startswith(("_", "d_")) or alias == source or self.stores[alias] != 1 \
                or not self.loads[alias]:
            return False
        readers, found = [], 0
        for later in statements[i + 1:]:
            if found == self.loads[alias]:
                break
            reads = sum(1 for n in walk(later) if isinstance(n, gast.Name) and n.id == alias
                        and isinstance(n.ctx, gast.Load))
            compound = any(getattr(later, f, None) for f in ("body", "orelse", "handlers"))
            rebinds = source in _names(later, (gast.Store, gast.Del)) and \
                _copy(later) != (source, alias)         # `source = alias` keeps them equal
            if compound and (reads or rebinds):
                return False
            if reads:
                readers.append(later)
                found += reads
            if rebinds and found != self.loads[alias]:
                return False
        if found != self.loads[alias]:
            return False
        for reader in readers:
            _Rename(alias, source).visit(reader)
        return True
