"""Questions reverse mode's jobs ask of blocks of statements: which names they rebind or write
into, which names may be bound before a statement, and which statements push or pop a list."""
import gast

from ...analysis.activity import assigned_names, target_names
from ...traversal import walk_statements


def rebound_names(statements):
    """Names that `statements` rebind (in-place writes into them do not count)."""
    found = []
    for statement in walk_statements(statements):
        targets = statement.targets if isinstance(statement, gast.Assign) else \
            [statement.target] if isinstance(statement, (gast.AugAssign, gast.AnnAssign, gast.For)) else []
        for target in targets:
            if not isinstance(target, (gast.Subscript, gast.Attribute)):
                found += target_names(target)
    return found


def written_in_place(statements):
    """Names whose arrays `statements` (nested blocks included) write into: `x[i] = v`."""
    return {statement.targets[0].value.id for statement in walk_statements(statements)
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Subscript)
            and isinstance(statement.targets[0].value, gast.Name)}


def possibly_defined(statements, defined, questions):
    """Which (statement id, name) of `questions` ({statement id: names}) may already be bound
    when the statement runs."""
    answers = set()

    def ask(statement, defined):
        for name in questions.get(id(statement), ()):
            if name in defined:
                answers.add((id(statement), name))

    def visit(block, defined):         # updates `defined` as the block binds names
        for statement in block:
            ask(statement, defined)
            if isinstance(statement, (gast.For, gast.While)):
                defined.update(assigned_names([statement]))    # bound by an earlier iteration
                visit(statement.body, defined)
            elif isinstance(statement, gast.If):
                body, orelse = set(defined), set(defined)
                visit(statement.body, body)
                visit(statement.orelse, orelse)
                defined |= body | orelse
            else:
                defined.update(assigned_names([statement]))

    visit(statements, set(defined))
    return answers




def popped(statement):
    """The list name for a statement `v = xs.pop()` or `v = xs.pop(i)`, else None."""
    value = statement.value
    if isinstance(statement.targets[0], gast.Name) and isinstance(value, gast.Call) \
            and isinstance(value.func, gast.Attribute) and value.func.attr == "pop" \
            and isinstance(value.func.value, gast.Name) and len(value.args) <= 1 \
            and not value.keywords:
        return value.func.value.id
    return None


def inserted(statement):
    """(list name, index, value) for a statement `xs.insert(index, value)`, else None."""
    call = statement.value if isinstance(statement, gast.Expr) else None
    if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) \
            and call.func.attr == "insert" and isinstance(call.func.value, gast.Name) \
            and len(call.args) == 2 and not call.keywords:
        return call.func.value.id, call.args[0], call.args[1]
    return None


def appended(statement):
    """(list name, value) for a statement `xs.append(value)`, else None."""
    if not isinstance(statement, gast.Expr) or not isinstance(statement.value, gast.Call):
        return None
    call = statement.value
    if isinstance(call.func, gast.Attribute) and call.func.attr == "append" and \
            isinstance(call.func.value, gast.Name) and len(call.args) == 1 and not call.keywords:
        return call.func.value.id, call.args[0]
    return None
