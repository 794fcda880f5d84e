"""Stacks and tapes: lists used only through `append` and `pop`, and among them the tapes of
generated reverse-mode code, whose every `v = tape.pop()` takes back the value an earlier
`tape.append(v)` saved under the same name. Knowing that pairing, an analysis of generated
code sees each entry on its own, not the whole tape, when it is itself differentiated."""
import gast

from .aliasing import LIST_METHODS_ON_TANGENTS
from ..traversal import walk, walk_statements


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


# calls that read a list's length and nothing else (the adjoint of a tape is made with
# `zeros_like(tape)` and indexed by `len(tape)` in generated code)
_LENGTH_READERS = ("len", "zeros_like")


def stacks(body):
    """Lists bound to `[]` and only ever appended to, popped from, or measured."""
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
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                and node.func.id in _LENGTH_READERS and len(node.args) == 1:
            allowed.add(id(node.args[0]))
    for node in walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(node, gast.Name) and node.id in candidates and id(node) not in allowed:
            candidates.discard(node.id)
    return candidates


def generated_tapes(parsed, body):
    """The tapes of generated reverse-mode code (none in a user's function)."""
    if not parsed.filename.startswith("<s2s_ad"):
        return set()
    return {s for s in stacks(body) if s.startswith("tape")}


class TapeTraffic:
    """What `body` pushes on and pops from each of `tapes`, and the entries a pop takes back."""

    def __init__(self, body, tapes):
        self.pushed = {tape: set() for tape in tapes}
        self.popped = {tape: set() for tape in tapes}
        for statement in walk_statements(body):
            mutation = list_mutation(statement)
            if mutation is None or mutation[0] not in tapes:
                continue
            tape, method, call = mutation
            if method == "append" and isinstance(call.args[0], gast.Name):
                self.pushed[tape].add(call.args[0].id)
            elif method == "pop" and isinstance(statement, gast.Assign):
                self.popped[tape].add(statement.targets[0].id)

    @staticmethod
    def entry(tape, name):
        """The name an analysis gives the entry of `tape` saved from `name`."""
        return f"{tape}.{name}"

    def entries(self):
        return {self.entry(tape, v) for tape, names in self.pushed.items() for v in names}

    def taken_back(self, tape, target):
        """The entries `target = tape.pop()` may take back: its own, when it pushed one,
        else every entry no name pops by its own name (a popped temporary)."""
        sources = [target] if target in self.pushed[tape] else \
            sorted(self.pushed[tape] - self.popped[tape])
        return [self.entry(tape, v) for v in sources]
