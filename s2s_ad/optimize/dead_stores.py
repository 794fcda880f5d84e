"""DeadStores: drop backward-pass assignments whose values are never read afterwards."""
import gast

from ..build import clone
from ..traversal import loads, nodes_of, stores


def _reads_and_effect(value):
    """The names `value` reads, and whether evaluating it does more than compute a result."""
    reads, effect = set(), False
    for node in nodes_of(value, (gast.Name, gast.Call)):
        if node.__class__ is gast.Name:
            if isinstance(node.ctx, gast.Load):
                reads.add(node.id)
        elif isinstance(node.func, gast.Attribute) and node.func.attr in ("pop", "append"):
            effect = True          # keeps the tape in step
    return reads, effect


class DeadStores:
    """Backward liveness over structured code; loops are iterated to a fixed point.

    After `run`, `read` holds the names the kept statements read (so the caller need not
    walk them again), and `live_in` those they read before binding them: what the code before
    them must leave bound."""

    def __init__(self, written_only=frozenset()):
        # names bound only to new containers or arrays (scatter, zeros_like, tangent_copy)
        # and read only to store into: where one is not read afterwards, nothing can see
        # what a store into it writes (no other name holds the object, no view was taken)
        self.written_only = written_only

    def run(self, statements, live_after):
        self.read = set()
        self.recording = True
        statements, self.live_in = self.block(statements, set(live_after))
        return statements

    def block(self, statements, live):
        kept = []
        for statement in reversed(statements):
            statement, live = self.statement(statement, live)
            if statement is not None:
                kept.append(statement)
        return list(reversed(kept)), live

    def statement(self, statement, live):
        if isinstance(statement, gast.If):
            body, live_body = self.block(statement.body, set(live))
            orelse, live_else = self.block(statement.orelse, set(live))
            statement.body = body or [gast.Pass()]
            statement.orelse = orelse
            return statement, live_body | live_else | self.record(loads(statement.test))
        if isinstance(statement, (gast.For, gast.While)):
            header = loads(statement.iter) if isinstance(statement, gast.For) else loads(statement.test)
            # a while loop's test runs after every step too: what it reads is live at the body's
            # end (else `n = n + 1` of `while n < 3` was dropped, and the loop never ended)
            entry = set(live) | (header if isinstance(statement, gast.While) else set())
            recording, self.recording = self.recording, False    # trial runs on copies
            while True:
                _, body_live = self.block(_copy_shallow(statement.body), set(entry))
                if body_live <= entry:
                    break
                entry |= body_live
            self.recording = recording
            statement.body, _ = self.block(statement.body, set(entry))
            statement.body = statement.body or [gast.Pass()]
            if isinstance(statement, gast.For):
                # each step binds the target before the body reads it: its reads need no
                # binding before the loop, unless it is read after a loop that may not run
                entry = set(live) | (entry - stores(statement.target))
            return statement, entry | self.record(header)
        # a plain statement updates `live` in place (block() hands every statement its own
        # set already): copying it per statement would cost O(n^2) on long functions
        if isinstance(statement, gast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], gast.Name):
            reads, effect = _reads_and_effect(statement.value)
            target = statement.targets[0].id
            if not effect:
                if target not in live:
                    return None, live
                live.discard(target)
            live |= self.record(reads)
            return statement, live
        if self._dead_entry_store(statement, live):
            return None, live
        live |= self.record(loads(statement))
        if isinstance(statement, gast.AugAssign) and isinstance(statement.target, gast.Name):
            live |= self.record({statement.target.id})         # `x += v` reads `x`
        return statement, live

    def _dead_entry_store(self, statement, live):
        """`c[k] = v` into a `written_only` name `c` not read afterwards, `k` and `v` with no
        effect."""
        if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1):
            return False
        target = statement.targets[0]
        if not (isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)
                and target.value.id in self.written_only and target.value.id not in live):
            return False
        return not _reads_and_effect(statement.value)[1] and \
            not _reads_and_effect(target.slice)[1]

    def record(self, reads):
        if self.recording:
            self.read |= reads
        return reads


def _copy_shallow(statements):
    return clone(statements)
