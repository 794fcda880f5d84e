"""Statement order: every statement with the loops around it, the block that holds each, and
what a relation (`{name: names}`) reaches."""
import gast

from ..traversal import walk_statements
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


_LEAVES_THE_BLOCK = (gast.Return, gast.Raise, gast.Break, gast.Continue)


class _Everything:
    """What a block that never falls through binds: any name, as no path leaves it."""

    def __and__(self, other):
        return other

    __rand__ = __and__

    def __or__(self, other):
        return self

    __ror__ = __or__

    def __rsub__(self, other):
        return set()


def bound_before(body, statement, params=()):
    """The names bound on every path from the start of `body` to `statement` (None where
    `statement` is not in `body`): reading one of them there never raises NameError."""
    deleted = {n.id for s in walk_statements(body) if isinstance(s, gast.Delete)
               for t in s.targets for n in [t] if isinstance(n, gast.Name)}

    def search(statements, bound):
        for candidate in statements:
            if candidate is statement:
                return bound
            for field in ("body", "orelse"):
                inner = bound
                if field == "body" and isinstance(candidate, gast.For):
                    inner = bound | set(target_names(candidate.target))
                found = search(getattr(candidate, field, []) or [], inner)
                if found is not None:
                    return found
            bound = bound | binds_on_every_path([candidate])
        return None

    found = search(body, set(params))
    if found is None or isinstance(found, _Everything):      # absent, or never reached
        return None
    return set(found) - deleted


def binds_on_every_path(statements):
    """The names every path through `statements` that falls through binds."""
    # grown in place (`|=`), not copied per statement: that was quadratic in a long block;
    # `_Everything` has no in-place form, so `|=` with it gives `_Everything` as `|` did
    bound = set()
    for statement in statements:
        if isinstance(statement, _LEAVES_THE_BLOCK):
            return _Everything()
        if isinstance(statement, gast.If):
            bound |= binds_on_every_path(statement.body) & binds_on_every_path(statement.orelse)
        elif isinstance(statement, gast.With):
            bound |= binds_on_every_path(statement.body)
        elif isinstance(statement, gast.FunctionDef):
            bound |= {statement.name}
        elif not isinstance(statement, (gast.For, gast.While, gast.Try)):
            bound |= set(assigned_names([statement]))
    return bound


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


def reads_maybe_unbound(statements, params, local_names):
    """The ids of the reads of local names in `statements` that may run before the name is
    bound (a zero-trip loop's result read after it, a name bound in one branch only): there
    Python raises UnboundLocalError, so such a read is an effect generated code must keep."""
    found = set()
    _unbound_reads(statements, set(params), set(local_names), found)
    return found


def _unbound_reads(statements, bound, local, found):
    bound = set(bound)
    for statement in statements:
        if isinstance(statement, (gast.FunctionDef, gast.ClassDef)):
            bound.add(statement.name)
            continue
        if isinstance(statement, (gast.If, gast.While)):
            _flag_reads(statement.test, bound, local, found)
        elif isinstance(statement, gast.For):
            _flag_reads(statement.iter, bound, local, found)
        elif isinstance(statement, gast.With):
            for item in statement.items:
                _flag_reads(item.context_expr, bound, local, found)
        elif not isinstance(statement, gast.Try):
            _flag_reads(statement, bound, local, found)
        inner = bound | (set(target_names(statement.target))
                         if isinstance(statement, gast.For) else set())
        for field in ("body", "orelse", "finalbody"):
            _unbound_reads(getattr(statement, field, None) or [], inner, local, found)
        for handler in getattr(statement, "handlers", None) or []:
            _unbound_reads(handler.body, inner, local, found)
        after = binds_on_every_path([statement])
        if isinstance(after, _Everything):
            return
        bound |= after


def _flag_reads(node, bound, local, found):
    # names the statement binds itself, by `:=` or a comprehension, are not followed
    comprehended = {n.id for c in _nodes(node) if isinstance(c, gast.comprehension)
                    for n in _nodes(c.target) if isinstance(n, gast.Name)} | \
        {n.target.id for n in _nodes(node) if isinstance(n, gast.NamedExpr)}
    for n in _nodes(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in local and \
                n.id not in bound and n.id not in comprehended:
            found.add(id(n))


def _nodes(node):
    """Every node in `node`, not inside a nested function or lambda (another scope)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is not node and isinstance(current, (gast.Lambda, gast.FunctionDef)):
            continue
        stack.extend(gast.iter_child_nodes(current))
