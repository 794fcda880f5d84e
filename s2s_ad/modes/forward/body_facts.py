"""Facts about the normal-form body that forward mode gathers before emitting anything: list
methods and `add_at` updates (in-place changes it mirrors on tangents), the reverse-mode tape
lists and what each carries, activity over a view where those updates read as assignments, and
the `for` iterables to bind to a name first."""
import copy

import gast

from ... import build, runtime
from ...analysis.activity import Activity
from ...analysis.aliasing import LIST_METHODS_ON_TANGENTS
from ...analysis.liveness import target_names
from ...analysis.primitives import classify
from ...traversal import walk, walk_statements


def list_mutation(statement):
    """(owner, method, call) for a statement `xs.method(...)` on a local name, else None."""
    value = statement.value if isinstance(statement, (gast.Expr, gast.Assign)) else None
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) and \
            isinstance(value.func.value, gast.Name) and value.func.attr in LIST_METHODS_ON_TANGENTS:
        return value.func.value.id, value.func.attr, value
    return None


def _is_empty_list_binding(statement):
    return isinstance(statement, gast.Assign) and isinstance(statement.value, gast.List) \
        and not statement.value.elts


class BodyFacts:
    """Part of ForwardMode: expects `parsed`, `wrt`, `namer`, `local_names` and `stacks`."""

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

    def find_stacks(self, body):
        """Lists bound to `[]` and only ever appended to or popped from (the reverse-mode tape)."""
        candidates = {s.targets[0].id for s in walk_statements(body)
                      if _is_empty_list_binding(s) and isinstance(s.targets[0], gast.Name)}
        allowed = set()
        for statement in walk_statements(body):
            mutation = list_mutation(statement)
            if mutation is not None and mutation[1] in ("append", "pop"):
                allowed.add(id(mutation[2].func.value))
            if _is_empty_list_binding(statement):
                allowed.add(id(statement.targets[0]))
        for node in walk(gast.Module(body=body, type_ignores=[])):
            if isinstance(node, gast.Name) and node.id in candidates and id(node) not in allowed:
                candidates.discard(node.id)
        return candidates

    def analyze(self, body, outputs):
        """Activity, on a view of the body where in-place updates read as assignments.

        `add_at(d, i, g)` reads as `d = add_at(d, i, g)`. On reverse-mode code each tape entry
        pairs with the variable it restores: `tape.append(v)` reads as `tape.v = v` and
        `v = tape.pop()` as `v = tape.v` (a popped temporary, which restores an array element,
        reads every entry no variable pops).
        """
        self.tapes = set()
        if self.parsed.filename.startswith("<s2s_ad"):
            self.tapes = {s for s in self.stacks if s.startswith("tape")}
        pushed, popped = self._tape_traffic(body)
        self.tape_entries = pushed
        fake = {f"{s}.{v}" for s in self.tapes for v in pushed[s]}
        view = self._activity_view(body, pushed, popped)
        return Activity(view, self.parsed, self.local_names | fake, self.wrt, outputs)

    def _tape_traffic(self, body):
        """({tape: the names pushed on it}, {tape: the names popped from it})."""
        pushed = {s: set() for s in self.tapes}
        popped = {s: set() for s in self.tapes}
        for statement in walk_statements(body):
            mutation = list_mutation(statement)
            if mutation is None or mutation[0] not in self.tapes:
                continue
            if mutation[1] == "append" and isinstance(mutation[2].args[0], gast.Name):
                pushed[mutation[0]].add(mutation[2].args[0].id)
            elif mutation[1] == "pop" and isinstance(statement, gast.Assign):
                popped[mutation[0]].add(statement.targets[0].id)
        return pushed, popped

    def _activity_view(self, statements, pushed, popped):
        out = []
        for statement in statements:
            mutation = list_mutation(statement)
            if mutation is not None and mutation[0] in self.tapes:
                out += self._tape_as_assignment(statement, mutation, pushed, popped)
                continue
            accumulated = self.accumulation(statement)
            if accumulated is not None:
                out.append(build.assign(accumulated[0], statement.value))
                continue
            statement = copy.copy(statement)
            for field in ("body", "orelse"):
                if getattr(statement, field, None):
                    setattr(statement, field, self._activity_view(getattr(statement, field),
                                                                  pushed, popped))
            out.append(statement)
        return out

    @staticmethod
    def _tape_as_assignment(statement, mutation, pushed, popped):
        tape, method, call = mutation
        if method == "append" and isinstance(call.args[0], gast.Name):
            entry = call.args[0].id
            return [build.assign(f"{tape}.{entry}", build.name(entry))]
        if method == "pop" and isinstance(statement, gast.Assign):
            target = statement.targets[0].id
            sources = [target] if target in pushed[tape] else sorted(pushed[tape] - popped[tape])
            return [build.assign(target, gast.Tuple(
                elts=[build.name(f"{tape}.{v}") for v in sources], ctx=gast.Load()))]
        return []

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
