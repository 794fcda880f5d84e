"""Activity: a value is active when it depends on a `wrt` argument and reaches the output."""
import gast

from .. import rules
from .aliasing import IN_PLACE_METHODS
from .primitives import classify, passes_no_derivative
from .tapes import TapeTraffic, generated_tapes, list_mutation
from ..traversal import name_nodes, walk, walk_statements


def target_names(target):
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, (gast.Tuple, gast.List)):
        return [n for e in target.elts for n in target_names(e)]
    if isinstance(target, (gast.Subscript, gast.Attribute, gast.Starred)):
        return target_names(target.value)
    return []


def assigned_names(statements):
    """Local names that `statements` (nested blocks included) bind or write into."""
    if len(statements) == 1 and statements[0].__class__ is gast.Assign \
            and statements[0].targets[0].__class__ is gast.Name and len(statements[0].targets) == 1:
        return [statements[0].targets[0].id]          # the common case, asked very often
    found = []
    for statement in walk_statements(statements):
        if isinstance(statement, gast.Assign):
            for target in statement.targets:
                found += target_names(target)
        elif isinstance(statement, (gast.AugAssign, gast.AnnAssign, gast.For)):
            found += target_names(statement.target)
    return list(dict.fromkeys(found))




def mutated_names(statement):
    """Names whose object `statement` itself (not the blocks it holds) changes through an
    in-place method: `xs` for `xs.append(v)` and for `v = xs.pop()`."""
    own = [statement.test] if isinstance(statement, (gast.If, gast.While)) else \
        [statement.iter] if isinstance(statement, gast.For) else [statement]
    return [node.func.value.id for part in own for node in walk(part)
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)
            and node.func.attr in IN_PLACE_METHODS and isinstance(node.func.value, gast.Name)]


def _names(nodes):
    found = []
    for node in nodes:
        if node is None:
            continue
        found += [n.id for n in name_nodes(node)]
    return found


def _carrying(primitive):
    """The operands a derivative flows from: an index picks entries and carries none."""
    if primitive.key is rules.SUBSCRIPT:
        return primitive.args[:1]
    position = rules.index_position(primitive.key) if primitive.key is not None else None
    if position is None or position >= len(primitive.args):
        return primitive.operands
    return primitive.args[:position] + primitive.args[position + 1:] + \
        list(primitive.keywords.values())


class Activity:
    """Which local names are varied (depend on wrt), useful (reach the output), active (both)."""

    def __init__(self, body, parsed, local_names, wrt, outputs):
        self.parsed = parsed
        self.local_names = local_names
        self.tapes = TapeTraffic(body, generated_tapes(parsed, body))
        self.flows = []          # (target, sources): the target's value depends on the sources
        for statement in walk_statements(body):
            if self._record_tape_traffic(statement):
                continue
            if isinstance(statement, gast.Assign):
                self._record(statement)
            elif isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Call) \
                    and isinstance(statement.value.func, gast.Attribute) \
                    and isinstance(statement.value.func.value, gast.Name) \
                    and statement.value.func.value.id in local_names:
                # xs.append(v) and friends: the container now holds v
                self.flows.append((statement.value.func.value.id, _names(statement.value.args)))
            elif isinstance(statement, gast.For):
                primitive = classify(statement.iter, parsed, local_names)
                sources = [] if passes_no_derivative(primitive) else _names([statement.iter])
                for target in walk(statement.target):
                    if isinstance(target, gast.Name):
                        self.flows.append((target.id, sources))
        self.varied = self._closure(set(wrt), forward=True)
        self.useful = self._closure(set(outputs), forward=False)
        entries = self.tapes.entries()
        for tape, names in self.tapes.pushed.items():
            if any(self.tapes.entry(tape, v) in self.varied & self.useful for v in names):
                self.useful.add(tape)          # it carries an active entry
        self.varied -= entries
        self.useful -= entries
        self.active = self.varied & self.useful

    def _record_tape_traffic(self, statement):
        """`tape.append(v)` saves the entry `tape.v`; `v = tape.pop()` takes it back."""
        mutation = list_mutation(statement)
        if mutation is None or mutation[0] not in self.tapes.pushed:
            return False
        tape, method, call = mutation
        if method == "append" and isinstance(call.args[0], gast.Name):
            entry = self.tapes.entry(tape, call.args[0].id)
            self.flows += [(entry, [call.args[0].id]), (tape, [entry])]
        elif method == "pop" and isinstance(statement, gast.Assign):
            target = statement.targets[0].id
            self.flows.append((target, self.tapes.taken_back(tape, target)))
        else:
            return False
        return True

    def _record(self, statement):
        target = statement.targets[0]
        if isinstance(target, gast.Name):
            primitive = classify(statement.value, self.parsed, self.local_names)
            sources = [] if passes_no_derivative(primitive) else _names(_carrying(primitive))
            self.flows.append((target.id, sources))
        elif isinstance(target, gast.Subscript):
            # x[i] = v: the new x depends on v and on the rest of the old x
            self.flows.append((target.value.id, _names([statement.value])))

    def _closure(self, seeds, forward):
        """The names reachable from `seeds` along the flows: downstream (what depends on a
        seed), or upstream through local names (what a seed depends on)."""
        edges = {}
        for target, sources in self.flows:
            for source in sources:
                if forward:
                    edges.setdefault(source, []).append(target)
                elif source in self.local_names or "." in source:    # a tape's entry
                    edges.setdefault(target, []).append(source)
        found, pending = set(seeds), list(seeds)
        while pending:
            for reached in edges.get(pending.pop(), ()):
                if reached not in found:
                    found.add(reached)
                    pending.append(reached)
        return found

    def add_flow(self, target, sources):
        """A value defined after the analysis ran (the packed return value)."""
        self.flows.append((target, list(sources)))
        if self.varied.intersection(sources):
            self.varied.add(target)
        self.useful.add(target)
        self.useful |= set(sources) & self.local_names
        self.active = self.varied & self.useful

    def is_active(self, name):
        return name in self.active
