"""GuardStaleViews: a view of `y` read after `y` is written in place.

The view sees the write; a derivative that treats the view as a value of its own would not.
Both modes refuse that rather than differentiate something else. Where the view may be a
number (`v = y[i]` is a copy when `y` is 1-D), the check runs with the derivative instead:
`check_not_view(v, 'y[i]', written_at, 'file:line:col')` right after the view is bound."""
import gast

from .. import build
from ..analysis.flow import in_order, insert_after, owners, reachable
from ..traversal import loads


def _may_be_a_number(value):
    """`y[i]`, `y[i, j]`: a number when `y` has as many dimensions as indices, else a view."""
    if not isinstance(value, gast.Subscript):
        return False
    parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
    return all(isinstance(p, gast.Name) or (isinstance(p, gast.Constant) and isinstance(p.value, int))
               for p in parts)


class GuardStaleViews:
    """`views` is the function's memory model (analysis.memory.Views); `check_name` the name
    `runtime.check_not_view` has in generated code; `matters(view)` says whether a stale
    `view` would change the derivative (forward mode: only views with a tangent)."""

    def __init__(self, parsed, views, check_name, matters=lambda view: True):
        self.parsed = parsed
        self.views = views
        self.check_name = check_name
        self.matters = matters

    def run(self, body):
        """`body` with the run-time checks; raises where a stale view is certain."""
        order = list(in_order(body))
        writes = [(statement.targets[0].value.id, position, loops, statement)     # (base, ...)
                  for position, (statement, loops) in enumerate(order)
                  if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Subscript)]
        if not writes:
            return body
        owner = {id(s): o for s, o in owners(body)}
        checks = {}           # id of a view's definition -> the check that follows it
        for view, (base, defined, view_loops, definition) in self._view_bindings(order):
            if not self.matters(view):
                continue
            # a view bound directly in a loop body is bound afresh before each read that follows
            fresh_each_iteration = bool(view_loops) and owner[id(definition)] == view_loops[-1]
            for written, position, loops, write in writes:
                if written != base or position < defined:
                    continue
                for statement in _reads_after_write(order, view, (position, loops),
                                                    (defined, view_loops), fresh_each_iteration):
                    self._check_or_refuse(view, base, definition, write, statement, checks)
        return insert_after(body, checks) if checks else body

    def _view_bindings(self, order):
        """(view name, (base, position, loops, defining statement)) for every array a name
        may view, directly or through other views."""
        views = {}            # view name -> [(base, position, loops, statement)]
        for position, (statement, loops) in enumerate(order):
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name):
                for base in self.views.may_view(statement.value):
                    views.setdefault(statement.targets[0].id, []).append((base, position, loops, statement))
        # a view of a view (`_item = x[2]; v = pick(_item)`) is a view of the first base too
        direct = {view: {b[0] for b in bindings} for view, bindings in views.items()}
        for view, bindings in views.items():
            for base, defined, view_loops, definition in list(bindings):
                for further in reachable(direct, base) - {base, view}:
                    bindings.append((further, defined, view_loops, definition))
        return [(view, binding) for view, bindings in views.items() for binding in bindings]

    def _check_or_refuse(self, view, base, definition, write, statement, checks):
        if id(definition) in checks:
            return
        if _may_be_a_number(definition.value):
            checks[id(definition)] = self._view_check(view, definition, write, statement)
            return
        raise self.parsed.error(statement, *self._stale_view(view, base, definition, write))

    def _view_check(self, view, definition, write, statement):
        line, col = self.parsed.location(statement)
        return build.quote(
            f"{self.check_name}({view}, "
            f"{self.parsed.describe_expression(definition.value)!r}, "
            f"{self.parsed.location(write)[0]}, "
            f"{self.parsed.filename + f':{line}:{col + 1}'!r})")[0]

    def _stale_view(self, view, base, definition, write):
        """(message, hint) for `view`, bound by `definition` to what may be a view of `base`,
        read after `write` changed `base` in place; named as the user wrote them."""
        bound = self.parsed.describe_expression(definition.value)
        base = self.parsed.describe(base)
        temporary = view in self.parsed.temporaries
        described = f"`{bound}` (line {self.parsed.location(definition)[0]})" if temporary \
            else f"`{view}`"
        copy = f"{bound}.copy()" if temporary else f"{view} = {bound}.copy()"
        return (f"{described} may be a view of `{base}`, which is written in place at line "
                f"{self.parsed.location(write)[0]} before it is read here; the derivative "
                f"would miss that write",
                f"take a copy (`{copy}`) or read it before writing into `{base}`")


def _reads_after_write(order, view, write_at, view_at, fresh_each_iteration):
    """The statements of `order` that read `view` after the write at `write_at` (position,
    loops), in the same run or in a later iteration of a loop around both."""
    position, loops = write_at
    defined, view_loops = view_at
    shared_loops = set(loops) & set(view_loops)
    for later, (statement, use_loops) in enumerate(order):
        if later == position or isinstance(statement, (gast.If, gast.While, gast.For)) \
                or view not in loads(statement):
            continue
        in_next_iteration = shared_loops and set(use_loops) & shared_loops and not (
            fresh_each_iteration and defined < later)
        if later > position or in_next_iteration:
            yield statement
