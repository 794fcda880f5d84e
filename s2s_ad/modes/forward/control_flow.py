"""Control flow kept as written: `if` joins the tangents of its two paths, loops iterate their
body's tangent facts to a fixpoint, `break` / `continue` hand their state to the loop."""
import gast

from ... import build
from ...analysis.activity import assigned_names
from ...analysis.liveness import target_names
from ...traversal import walk
from .state import LoopContext, TangentState, merge_aliases


class ControlFlowEmitter:
    """Part of ForwardMode: expects `loops` (the LoopContexts being emitted, innermost last)."""

    def branch(self, statement, state):
        body, after_body = self.block(statement.body, state.copy())
        orelse, after_orelse = self.block(statement.orelse, state.copy())
        if after_body is None or after_orelse is None:
            joined = after_orelse if after_body is None else after_body
        else:
            nonzero = after_body.nonzero | after_orelse.nonzero
            live = self.liveness.after[id(statement)]
            body += self.materialize((nonzero - after_body.nonzero) & live, after_body)
            orelse += self.materialize((nonzero - after_orelse.nonzero) & live, after_orelse)
            joined = TangentState(nonzero, after_body.maybe | after_orelse.maybe,
                                  after_body.definite & after_orelse.definite,
                                  after_body.owned & after_orelse.owned,
                                  merge_aliases([after_body, after_orelse]))
        new = gast.copy_location(gast.If(test=statement.test, body=body or [gast.Pass()],
                                         orelse=orelse), statement)
        return [new], joined

    def jump(self, statement, state):
        if not self.loops:
            raise self.parsed.error(statement, f"`{type(statement).__name__.lower()}` outside a loop")
        loop = self.loops[-1]
        live = loop.exit_live if isinstance(statement, gast.Break) else loop.head_live
        code = self.materialize((loop.entry.nonzero - state.nonzero) & live, state)
        loop.jumps.append((state, isinstance(statement, gast.Break)))
        return code + [statement], None

    # loops --------------------------------------------------------------------------------
    def loop(self, statement, state):
        if statement.orelse:
            return self._loop_with_else(statement, state)
        before = state
        targets = target_names(statement.target) if isinstance(statement, gast.For) else []
        zipped = isinstance(statement, gast.For) and bool(set(targets) & self.activity.active) and \
            self.tangent_of_atom(statement.iter, before) is not None
        context = LoopContext(self.liveness.head[id(statement)], self.liveness.after[id(statement)])
        self.loops.append(context)
        if zipped:
            before.owned.discard(statement.iter.id)     # its rows are viewed while iterating
            for name in targets:
                before.alias(statement.iter.id, name)
        entry, body, end = self._loop_fixpoint(statement, before, context, targets, zipped)
        self.loops.pop()
        if end is not None:
            body += self.materialize((entry.nonzero - end.nonzero) & context.head_live, end)
        head = self.materialize((entry.nonzero - before.nonzero) & context.head_live, before)
        new = gast.copy_location(self._loop_node(statement, body, before, zipped), statement)
        return head + [new], self._loop_exit(entry, before, context)

    def _loop_with_else(self, statement, state):
        """A loop whose `else:` lowering left it as written: only inactive ones get here."""
        assigned = set(assigned_names([statement]))
        if assigned & self.activity.active:
            raise self.parsed.error(statement, "`else:` on a loop is not supported here",
                                    hint="move the else block after the loop")
        state.nonzero -= assigned
        state.maybe |= assigned
        return [statement], state

    def _loop_fixpoint(self, statement, before, context, targets, zipped):
        """(the head state, the body's code, its end state): the body is emitted from a head
        state until the states it reaches add nothing to it; each pass but the last is rolled
        back, names and globals included, so the code reads as if emitted once."""
        entry = before.copy()
        saved = self.tables()
        while True:
            context.entry = entry
            context.jumps = []
            inside = self._loop_body_state(statement, entry, targets, zipped)
            body, end = self.block(statement.body, inside)
            grown = self._grown_head(entry, before, end, context)
            if grown is None:
                return entry, body, end
            entry = grown
            self.restore_tables(saved)

    def _loop_body_state(self, statement, entry, targets, zipped):
        """The state at the top of the body: a `for` binds its targets afresh."""
        inside = entry.copy()
        if isinstance(statement, gast.For):
            inside.nonzero -= set(targets)
            inside.owned -= set(targets)
            if zipped:
                inside.nonzero |= set(targets) & self.activity.active
            inside.maybe |= set(targets)
            inside.definite |= set(targets)
        return inside

    @staticmethod
    def _grown_head(entry, before, end, context):
        """The head state joined with the states that go back to it, or None when it holds."""
        reached = [s for s in [end] + [j for j, _ in context.jumps] if s is not None]
        nonzero = set(entry.nonzero).union(*(s.nonzero for s in reached))
        maybe = set(entry.maybe).union(*(s.maybe for s in reached))
        # a tangent is its own array at the head when it is so before the loop and at the
        # end of every pass (where it is materialized, it is fresh)
        owned = before.owned | (nonzero - before.nonzero)
        for back in [end] + [j for j, is_break in context.jumps if not is_break]:
            if back is not None:
                owned &= back.owned | (nonzero - back.nonzero)
        aliases = merge_aliases([entry] + reached)
        grew = not (nonzero <= entry.nonzero and maybe <= entry.maybe) or \
            any(not holders <= entry.aliases.get(k, set()) for k, holders in aliases.items())
        if not grew:
            owned &= entry.owned
            if owned == entry.owned:
                return None
        return TangentState(nonzero, maybe, before.definite, owned, aliases)

    def _loop_node(self, statement, body, before, zipped):
        """The loop as emitted: `for x, dx in zip(xs, dxs)` where the rows carry tangents."""
        if not isinstance(statement, gast.For):
            return gast.While(test=statement.test, body=body or [gast.Pass()], orelse=[])
        target, iterable = build.clone(statement.target), statement.iter
        if zipped:
            d_target = build.clone(statement.target)
            for node in walk(d_target):
                if isinstance(node, gast.Name):
                    node.id = self.tangent_name(node.id)
            target = gast.Tuple(elts=[target, d_target], ctx=gast.Store())
            iterable = gast.Call(func=build.name("zip"), keywords=[], args=[
                build.clone(statement.iter), self.tangent_of_atom(statement.iter, before)])
        return gast.For(target=target, iter=iterable, body=body or [gast.Pass()], orelse=[],
                        type_comment=None)

    @staticmethod
    def _loop_exit(entry, before, context):
        """The state after the loop: the head's (the test fails there) joined with each break's."""
        owned = set(entry.owned)
        exits = [entry]
        for exit_state, is_break in context.jumps:
            if is_break:
                owned &= exit_state.owned
                exits.append(exit_state)
        return TangentState(entry.nonzero, entry.maybe, before.definite, owned,
                            merge_aliases(exits))
