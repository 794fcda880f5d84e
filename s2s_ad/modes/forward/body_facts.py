"""Facts about the normal-form body that forward mode gathers before emitting anything: `add_at`
updates (in-place changes it mirrors on tangents), activity over a view where those read as
assignments, the reverse-mode tapes and what each carries, the `for` iterables to bind to a
name first, and the loops to walk by index."""
import copy

import gast

from ... import build, runtime
from ...analysis.activity import Activity
from ...analysis.liveness import target_names
from ...analysis.primitives import classify
from ...traversal import walk, walk_statements


class BodyFacts:
    """Part of ForwardMode: expects `parsed`, `wrt`, `namer` and `local_names`."""

    def accumulation(self, statement):
        """(d, index, g) for a statement `add_at(d, index, g)` (an in-place `d[index] += g`)."""
        value = statement.value if isinstance(statement, gast.Expr) else None
        if not (isinstance(value, gast.Call) and len(value.args) == 3 and not value.keywords
                and isinstance(value.args[0], gast.Name)):
            return None
        add_at = getattr(runtime, "add_at", None)
        primitive = classify(value, self.parsed, self.local_names)
        if add_at is None or primitive.key is not add_at:
            return None
        return value.args[0].id, value.args[1], value.args[2]

    def analyze(self, body, outputs):
        """Activity, on a view of the body where `add_at(d, i, g)` reads as
        `d = add_at(d, i, g)`; the tapes whose entries it pairs (analysis.tapes)."""
        activity = Activity(self._activity_view(body), self.parsed, self.local_names, self.wrt,
                            outputs)
        self.tapes = set(activity.tapes.pushed)
        self.tape_entries = activity.tapes.pushed
        return activity

    def _activity_view(self, statements):
        out = []
        for statement in statements:
            accumulated = self.accumulation(statement)
            if accumulated is not None:
                out.append(build.assign(accumulated[0], statement.value))
                continue
            statement = copy.copy(statement)
            for field in ("body", "orelse"):
                if getattr(statement, field, None):
                    setattr(statement, field, self._activity_view(getattr(statement, field)))
            out.append(statement)
        return out

    def hoist_iterables(self, body):
        """`for v in <expr>` with a differentiable `v`: bind `<expr>` to a name first."""
        changed = False
        for statement in list(walk_statements(body)):
            for field in ("body", "orelse"):
                block = getattr(statement, field, None)
                if block:
                    changed |= self._hoist_in(block)
        return self._hoist_in(body) or changed

    def _hoist_in(self, block):
        changed = False
        for position in range(len(block) - 1, -1, -1):
            statement = block[position]
            if not isinstance(statement, gast.For) or isinstance(statement.iter, gast.Name):
                continue
            if not set(target_names(statement.target)) & self.activity.active:
                continue
            sequence = self.namer.fresh("_seq")
            hold = gast.copy_location(build.assign(sequence, statement.iter), statement)
            statement.iter = build.name(sequence)
            block.insert(position, hold)
            changed = True
        return changed

    def walk_by_index(self, body):
        """`for r in buf:` whose body writes into `buf`, and whose `r` carries a tangent, as
        `for _i in range(len(buf)): r = buf[_i]`: NumPy reads each row as the loop reaches it,
        writes of earlier steps included, and so does the row's tangent, read from `buf`'s
        tangent as it then is (zip(buf, dbuf) would walk the tangent the loop started with,
        where a write makes it a copy). A dict walked so is refused when the loop runs
        (guard_key_loops). Returns whether anything changed."""
        changed = False
        for loop in list(walk_statements(body)):
            if not (isinstance(loop, gast.For) and isinstance(loop.iter, gast.Name)
                    and set(target_names(loop.target)) & self.activity.active
                    and _writes_into(loop.body, loop.iter.id)):
                continue
            index = self.namer.fresh("_i")
            row = gast.copy_location(build.assign(loop.target, build.quote_expr(
                f"{loop.iter.id}[{index}]")), loop)
            loop.body = [row] + loop.body
            loop.iter = build.quote_expr(f"range(len({loop.iter.id}))")
            loop.target = build.name(index, store=True)
            changed = True
        return changed


def _writes_into(statements, name):
    """Does a statement of `statements` (at any depth) write into `name[...]`?"""
    return any(isinstance(s, (gast.Assign, gast.AugAssign)) and any(
        isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name) and t.value.id == name
        for t in (s.targets if isinstance(s, gast.Assign) else [s.target]))
        for s in walk_statements(statements))
