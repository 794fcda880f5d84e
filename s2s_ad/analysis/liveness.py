"""Which names are read later: after each statement, and at the head of each loop.

Computed once over normal-form code before any tangent is emitted; forward mode asks it where
to materialize a zero tangent and whether a view of an array written in place is still used.
"""
import gast

from ..traversal import loads, walk


def target_names(target):
    """The names a loop target (`i`, `(k, v)`) binds."""
    return [n.id for n in walk(target) if isinstance(n, gast.Name)]


class Liveness:
    """Names read later: `after[id(statement)]`, and `head[id(loop)]` at each loop's head."""

    def __init__(self):
        self.after = {}
        self.head = {}

    def block(self, statements, live, loop=None):
        for statement in reversed(statements):
            live = self.statement(statement, live, loop)
        return live

    def statement(self, statement, live, loop):
        """The names live before `statement`; `loop` is (live after the loop, live at its head)."""
        live = set(live)
        self.after[id(statement)] = live
        if isinstance(statement, gast.Assign):
            target = statement.targets[0]
            before = live - {target.id} if isinstance(target, gast.Name) else live
            return before | loads(statement)
        if isinstance(statement, gast.Return):
            return loads(statement)
        if isinstance(statement, gast.If):
            return (loads(statement.test) | self.block(statement.body, live, loop)
                    | self.block(statement.orelse, live, loop))
        if isinstance(statement, (gast.While, gast.For)):
            return self.loop(statement, live, loop)
        if isinstance(statement, gast.Break):
            return set(loop[0]) if loop else live
        if isinstance(statement, gast.Continue):
            return set(loop[1]) if loop else live
        return live | loads(statement)

    def loop(self, statement, live, loop):
        """Iterate the body until the head's live set stops growing."""
        exit_live = self.block(statement.orelse, live, loop) if statement.orelse else live
        is_for = isinstance(statement, gast.For)
        targets = set(target_names(statement.target)) if is_for else set()
        fixed = set() if is_for else loads(statement.test)
        head = exit_live | fixed
        while True:
            inner = self.block(statement.body, head, (live, head))
            new = exit_live | fixed | (inner - targets)
            if new <= head:
                break
            head = head | new
        self.head[id(statement)] = head
        return head | loads(statement.iter) if is_for else head
