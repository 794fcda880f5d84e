"""Statement order: every statement with the loops around it, the block that holds each, and
what a relation (`{name: names}`) reaches."""
import gast

from .activity import assigned_names, target_names


def in_order(statements, loops=()):
    """Every statement in source order, with the ids of the loops around it."""
    for statement in statements:
        yield statement, loops
        inner = loops + (id(statement),) if isinstance(statement, (gast.For, gast.While)) else loops
        for field in ("body", "orelse"):
            yield from in_order(getattr(statement, field, []) or [], inner)


def owners(statements, owner=None):
    """(statement, id of the compound statement whose block holds it, or None)."""
    for statement in statements:
        yield statement, owner
        for field in ("body", "orelse"):
            yield from owners(getattr(statement, field, []) or [], id(statement))


def bound_names(statement):
    """The names `statement` itself binds (a loop: its target; an `if`/`while`: none)."""
    if isinstance(statement, gast.For):
        return target_names(statement.target)
    if isinstance(statement, (gast.If, gast.While)):
        return []
    return assigned_names([statement])


def reachable(edges, start):
    """`start` and every name reachable from it along `edges` ({name: set of names})."""
    seen, pending = {start}, [start]
    while pending:
        for name in edges.get(pending.pop(), ()):
            if name not in seen:
                seen.add(name)
                pending.append(name)
    return seen


def insert_before(statements, extra):
    """`statements` with `extra(statement)` (a list) spliced in before each, at any depth."""
    out = []
    for statement in statements:
        out += extra(statement)
        for block in ("body", "orelse"):
            if getattr(statement, block, None):
                setattr(statement, block, insert_before(getattr(statement, block), extra))
        out.append(statement)
    return out




def insert_after(statements, extra):
    """`statements` with `extra[id(statement)]` spliced in after each it names, at any depth."""
    out = []
    for statement in statements:
        for field in ("body", "orelse"):
            if getattr(statement, field, None):
                setattr(statement, field, insert_after(getattr(statement, field), extra))
        out.append(statement)
        if id(statement) in extra:
            out.append(gast.copy_location(extra[id(statement)], statement))
    return out


def reaching(body, binds):
    """{id(statement): the statements for which `binds(s)` holds whose binding may still hold
    when `statement` runs}: reaching definitions of one variable, over structured code."""
    found = {}

    def block(statements, held):
        for statement in statements:
            found[id(statement)] = found.get(id(statement), frozenset()) | held
            if isinstance(statement, gast.If):
                held = block(statement.body, held) | block(statement.orelse, held)
            elif isinstance(statement, (gast.For, gast.While)):
                head = held
                while True:
                    inside = frozenset({statement}) if binds(statement) else head
                    grown = head | block(statement.body, inside)
                    if grown == head:
                        break
                    head = grown
                held = head
            elif binds(statement):
                held = frozenset({statement})
        return held

    block(body, frozenset())
    return found
