"""Forward assignments whose values nothing reads: the user's dead code, and in a gradient
alone (modes/reverse/assemble.py) what only computed the returned value."""
import gast

from ...traversal import loads, name_nodes, stores, walk_statements

_BLOCKS = ("body", "orelse")


def drop_unread_values(forward, read_later, pure, is_range=lambda node: False):
    """`forward` without the assignments `name = value` whose name nothing else reads, where
    computing `value` has no effect of its own (`pure`); `read_later`: the names the backward
    pass and the return read. A name read only to compute itself or other such names
    (`cost = cost + c` in a loop, when the value is not returned) is not read either. A loop
    over a range (`is_range(call)`) left with nothing to do goes too, where nothing reads
    its target."""
    droppable, live = [], set(read_later)
    _sort(forward, pure, droppable, live)
    grown = True
    while grown:                # a name is read where a kept assignment reads it
        grown = False
        for statement in droppable:
            if statement.targets[0].id in live:
                new = loads(statement.value) - live
                live |= new
                grown = grown or bool(new)
    dropped = {id(s) for s in droppable if s.targets[0].id not in live}
    if not dropped:
        return forward
    bindings = [s for s in walk_statements(forward) if isinstance(s, gast.Assign)]
    ranges = {n for s in bindings if is_range(s.value) for n in stores(s.targets)} - {
        n for s in bindings if not is_range(s.value) for n in stores(s.targets)}
    return _without(forward, dropped, lambda loop: _idle_range_loop(loop, ranges, live, is_range))


def _idle_range_loop(loop, ranges, live, is_range):
    """A `for` over a range (or a name bound to ranges only) whose body is left empty, and
    whose target nothing reads."""
    return isinstance(loop, gast.For) and not loop.orelse and \
        all(isinstance(s, gast.Pass) for s in loop.body) and \
        isinstance(loop.target, gast.Name) and loop.target.id not in live and \
        (is_range(loop.iter) or isinstance(loop.iter, gast.Name) and loop.iter.id in ranges)


def _sort(statements, pure, droppable, live):
    """Put the assignments that may go into `droppable`, and what the rest read into `live`."""
    for statement in statements:
        if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], gast.Name) and pure(statement.value):
            droppable.append(statement)
        elif isinstance(statement, (gast.FunctionDef, gast.ClassDef)):
            live |= loads(statement)
        elif isinstance(statement, (gast.Global, gast.Nonlocal, gast.Delete)):
            # an assignment to a global is an effect; `del x` needs `x` bound
            live |= set(getattr(statement, "names", ())) | {
                n.id for n in name_nodes(statement)}
        else:
            blocks = [getattr(statement, f, None) or [] for f in _BLOCKS]
            for field, value in gast.iter_fields(statement):
                if field not in _BLOCKS and isinstance(value, (gast.AST, list)):
                    live |= loads(value)
            for block in blocks:
                _sort(block, pure, droppable, live)


def _without(statements, dropped, idle):
    out = []
    for statement in statements:
        if id(statement) in dropped:
            continue
        if not isinstance(statement, (gast.FunctionDef, gast.ClassDef)):
            for field in _BLOCKS:
                block = getattr(statement, field, None)
                if block:
                    setattr(statement, field, _without(block, dropped, idle) or [gast.Pass()])
        if not idle(statement):
            out.append(statement)
    return out
