"""GuardStaleViews: a view of `y` read after `y` is written in place.

The view sees the write; a derivative that treats the view as a value of its own would not.
Both modes refuse that rather than differentiate something else. A loop's element is a view
of the array the loop walks (`for r in buf:` reads `buf[i]` as it goes). Where the view is
bound at the write, whether the write reaches it is decided when it runs:
`check_view_spared(v, y, i, ...)` before `y[i] = ...` refuses only a write into the view's
memory (a number, or another row, is fine). Elsewhere, where the view may be a number (`v =
y[i]` is a copy when `y` is 1-D), `check_not_view(v, 'y[i]', written_at, 'file:line:col')`
right after the view is bound refuses a view; other views are refused where they are read."""
import gast

from .. import build, runtime
from ..analysis.aliasing import IN_PLACE_METHODS, LIST_FILLING_METHODS
from ..analysis.flow import bound_before, bound_names, in_order, insert_after, reachable
from ..traversal import loads, rewrite_blocks
from .guard_aliased_updates import rebound_at


def _may_be_a_number(value):
    """`y[i]`, `y[i, j]`: a number when `y` has as many dimensions as indices, else a view."""
    if not isinstance(value, gast.Subscript):
        return False
    parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
    return all(isinstance(p, gast.Name) or (isinstance(p, gast.Constant) and isinstance(p.value, int))
               for p in parts)


class GuardStaleViews:
    """`views` is the function's memory model (analysis.memory.Views); `inserted_check` the
    name a run-time check has in generated code; `matters(view)` says whether a stale `view`
    would change the derivative (forward mode: only views with a tangent)."""

    def __init__(self, parsed, views, inserted_check, matters=lambda view: True):
        self.parsed = parsed
        self.views = views
        self.inserted_check = inserted_check
        self.matters = matters

    def run(self, body):
        """`body` with the run-time checks; raises where a stale view is certain."""
        if self.parsed.generated:
            # A derivative's backward pass reads each saved view after every later write into
            # its base has been undone, so it sees the value the forward pass saw; the user's
            # own reads were checked when that derivative was made.
            return body
        written = {_base_written(s) for s, _ in in_order(body)} - {None}
        if not written:
            return body
        self.bases = {}       # id of a binding `v = <view>` -> (v, the arrays v may view)
        for view, bases, definition in self._view_bindings(body):
            if bases & written and self.matters(view):
                self.bases[id(definition)] = (view, bases, definition)
        self.checks = {}      # id of a view's definition -> the check that follows it
        self.at_writes = self._self_assignments(body)   # id of a write -> {view: its check}
        self.tracked = {view for view, _, _ in self.bases.values()}
        self.body = body
        self.rebound = rebound_at(body)
        if self.bases:
            self._block(body, _State())
        body = insert_after(body, self.checks) if self.checks else body
        return rewrite_blocks(body, lambda s: list(self.at_writes.get(id(s), {}).values()) + [s]) \
            if self.at_writes else body

    # a forward walk over the code: which bindings of each view may hold here, and which of
    # those have seen a write into their base since (stale, with that write)
    def _block(self, statements, state):
        for statement in statements:
            if isinstance(statement, gast.If):
                self._reads(_header_loads(statement), statement, state)
                state = self._block(statement.body, state.copy()).join(
                    self._block(statement.orelse, state.copy()))
            elif isinstance(statement, (gast.For, gast.While)):
                state = self._loop(statement, state)
            else:
                self._reads(loads(statement), statement, state)
                self._write(statement, state)
                self._bind(bound_names(statement), statement, state)
        return state

    def _loop(self, loop, state):
        head = state
        while True:
            self._reads(_header_loads(loop), loop, head)
            inside = head.copy()
            if isinstance(loop, gast.For):
                self._bind(bound_names(loop), loop, inside)
            grown = head.join(self._block(loop.body, inside))
            if grown == head:
                return head
            head = grown

    def _reads(self, names, statement, state):
        for view in names & self.tracked:
            for definition, write in sorted(state.stale.get(view, ()), key=lambda p: p[0]):
                _, _, bound = self.bases[definition]
                self._check_or_refuse(view, _base_written(write), bound, write, statement,
                                      self.checks)

    def _write(self, statement, state):
        base = _base_written(statement)
        if base is None:
            return
        # a method changes a list or dict, not an array's memory: only a container holding
        # the object itself sees it (`outer = [inner]; inner.append(v)`)
        by_method = not _written_base(statement)
        # a name bound to the array after the write where it is that array, and checked to
        # share no memory with it otherwise (GuardAliasedUpdates), sees the write
        rebound = set(self.rebound.get(self.parsed.location(statement), ()))
        back = getattr(self.parsed, "written_back", {}).get(self.parsed.location(statement))
        if back is not None and back[0] == base and not by_method and \
                isinstance(statement.value, gast.Name) and statement.value.id == back[1]:
            # `x[1] = e8` writing `e8` back: e8 is current, and so are the views of x bound
            # again right after
            rebound |= {back[1], *back[2]}
        for view in self.tracked - rebound:
            for definition in state.live.get(view, ()):
                if base in self.bases[definition][1] and (not by_method or (
                        base in _holds(self.bases[definition][2])
                        and base not in state.moved.get(definition, ()))):
                    state.stale[view] = state.stale.get(view, frozenset()) | {(definition, statement)}

    def _bind(self, names, statement, state):
        for binding in state.moved:       # `row = []` after `rows.append(row)`
            state.moved[binding] = state.moved[binding] | (set(names) & _holds(
                self.bases[binding][2]))
        filled = _filled_list(statement)
        if filled in self.tracked and id(statement) in self.bases:
            # `xs.append(v)`: the list now holds v too, besides what it held
            state.live[filled] = state.live.get(filled, frozenset()) | {id(statement)}
            state.moved[id(statement)] = frozenset()
            return
        if id(statement) in self.bases:
            state.moved[id(statement)] = frozenset()
        for view in set(names) & self.tracked:
            state.live[view] = frozenset({id(statement)}) if id(statement) in self.bases else frozenset()
            state.stale[view] = frozenset()

    def _view_bindings(self, body):
        """(view name, the arrays it may view, the binding) for every binding of a name to
        what may be a view, directly or through other views."""
        bindings = []
        for statement, _ in in_order(body):
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name):
                bases = self.views.may_view(statement.value) or _held(statement.value) \
                    or _entries_of(statement.value, self.views.local_names)
                if bases:
                    bindings.append((statement.targets[0].id, set(bases), statement))
            if _walks_a_name(statement):
                bindings.append((statement.target.id, {statement.iter.id}, statement))
            filled = _filled_list(statement)
            if filled is not None:
                held = {a.id for a in statement.value.args if isinstance(a, gast.Name)}
                if held:
                    bindings.append((filled, held, statement))
        # a view of a view (`_item = x[2]; v = pick(_item)`) is a view of the first base too
        direct = {}
        for view, bases, _ in bindings:
            direct.setdefault(view, set()).update(bases)
        return [(view, set().union(*(reachable(direct, b) for b in bases)) - {view}, statement)
                for view, bases, statement in bindings]

    def _check_or_refuse(self, view, base, definition, write, statement, checks):
        if id(definition) in checks or self._checked_at_the_write(view, definition, write, statement):
            return
        if isinstance(definition, gast.Assign) and _may_be_a_number(definition.value):
            checks[id(definition)] = self._view_check(view, definition, write, statement)
            return
        raise self.parsed.error(statement, *self._stale_view(view, base, definition, write))

    def _self_assignments(self, body):
        """{id of `y[i] = v`: {v: a check before it}} where `v` may be a view of `y`, or `y`
        itself (`buf[1] = buf[:, 3]`): NumPy copies overlapping memory in an order of its own,
        which `check_copied_as_a_copy` compares, when it runs, with assigning a copy."""
        found = {}
        for write, _ in in_order(body):
            value = getattr(write, "value", None)
            if not (_written_base(write) and isinstance(value, gast.Name)):
                continue
            base = write.targets[0].value.id
            if value.id == base and self.matters(base) or any(
                    view == value.id and base in bases for view, bases, _ in self.bases.values()):
                line, col = self.parsed.location(write)
                check = build.quote(f"{self.inserted_check(runtime.check_copied_as_a_copy)}("
                                    f"{base}, None, {value.id}, {self._texts(write)!r}, "
                                    f"{self.parsed.filename + f':{line}:{col + 1}'!r})")[0]
                check.value.args[1] = build.to_index_value(write.targets[0].slice)
                found[id(write)] = {(value.id,): gast.copy_location(check, write)}
        return found

    def _texts(self, write):
        """(`y[i]`, `v`) for `y[i] = v`, as the user wrote them."""
        return (self.parsed.describe_expression(write.targets[0]),
                self.parsed.describe_expression(write.value))

    def _checked_at_the_write(self, view, definition, write, read):
        """Put a check before `write` that it spares `view`, where `view` is bound there and
        is a view (not a container holding arrays); False where it cannot go there."""
        if not _walks_a_name(definition) and not (
                isinstance(definition, gast.Assign) and not _held(definition.value)):
            return False
        if view not in (bound_before(self.body, write) or ()):
            return False
        checks = self.at_writes.setdefault(id(write), {})
        if view not in checks:
            checks[view] = self._spared_check(view, definition, write, read)
        return True

    def _spared_check(self, view, definition, write, read):
        base = write.targets[0].value.id
        shown, written = self.parsed.describe(view), self.parsed.describe(base)
        if _walks_a_name(definition):
            copy = f"`for {shown} in {self.parsed.describe(definition.iter.id)}.copy():`"
        else:
            copy = self._copy_text(view, definition)
            if view in self.parsed.temporaries:
                shown = self.parsed.describe_expression(definition.value)
        line, col = self.parsed.location(write)
        check = build.quote(
            f"{self.inserted_check(runtime.check_view_spared)}({view}, {base}, None, "
            f"{(shown, written, copy)!r}, {self.parsed.location(read)[0]}, "
            f"{self.parsed.filename + f':{line}:{col + 1}'!r})")[0]
        check.value.args[2] = build.to_index_value(write.targets[0].slice)
        return gast.copy_location(check, write)

    def _copy_text(self, view, definition):
        """The copy a hint offers (quoted) for `view`, bound by the assignment `definition`: of the
        expression it holds, or where it was unpacked (`r0, r1 = rows(a)`: a generator's items
        cannot be indexed) of the name, right after."""
        value = definition.value
        items = self._views_listed(value)
        if items is not None:        # a list of views: `.copy()` would copy the list only
            return f"`{view} = [v.copy() for v in {self.parsed.describe_expression(items)}]`"
        if view in self.parsed.temporaries:
            return f"`{self.parsed.describe_expression(value)}.copy()`"
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) \
                and value.value.id in self.parsed.unpacked:
            return f"`{view} = {view}.copy()` right after line {self.parsed.location(definition)[0]}"
        return f"`{view} = {self.parsed.describe_expression(value)}.copy()`"

    def _views_listed(self, value):
        """The expression whose items `value` holds, where it is a list or tuple of views
        (`np.split(y, 2)`, or a shallow copy of one), else None."""
        if self.views.is_list_of_views(value):
            return value
        owner = value.func.value if isinstance(value, gast.Call) and isinstance(
            value.func, gast.Attribute) and value.func.attr == "copy" else None
        if isinstance(owner, gast.Name) and owner.id in self.views.lists_of_views:
            return owner
        return None

    def _view_check(self, view, definition, write, statement):
        line, col = self.parsed.location(statement)
        return build.quote(
            f"{self.inserted_check(runtime.check_not_view)}({view}, "
            f"{self.parsed.describe_expression(definition.value)!r}, "
            f"{self.parsed.location(write)[0]}, "
            f"{self.parsed.filename + f':{line}:{col + 1}'!r})")[0]

    def _stale_view(self, view, base, definition, write):
        """(message, hint) for `view`, bound by `definition` to what may be a view of `base`,
        read after `write` changed `base` in place; named as the user wrote them."""
        base = self.parsed.describe(base)
        if _walks_a_name(definition):
            return (f"`{self.parsed.describe(view)}`, an element of `{base}` that the loop at line "
                    f"{self.parsed.location(definition)[0]} walks, may be a view of it (a row), "
                    f"which is written in place at line {self.parsed.location(write)[0]} before "
                    f"it is read here; the derivative would miss that write",
                    f"walk a copy (`for {self.parsed.describe(view)} in {base}.copy():`), or read "
                    f"it before writing into `{base}`")
        if _filled_list(definition) is not None or isinstance(
                definition.value, (gast.List, gast.Tuple, gast.Dict)):
            return (f"`{self.parsed.describe(view)}` holds `{base}` (line "
                    f"{self.parsed.location(definition)[0]}), which is written in place at line "
                    f"{self.parsed.location(write)[0]} before it is read here; the derivative "
                    f"would miss that write",
                    f"put a copy in the container (`{base}.copy()`), or write into `{base}` "
                    f"before putting it there")
        bound = self.parsed.describe_expression(definition.value)
        described = f"`{bound}` (line {self.parsed.location(definition)[0]})" \
            if view in self.parsed.temporaries else f"`{view}`"
        copy = self._copy_text(view, definition)
        return (f"{described} may be a view of `{base}`, which is written in place at line "
                f"{self.parsed.location(write)[0]} before it is read here; the derivative "
                f"would miss that write",
                f"take a copy ({copy}) or read it before writing into `{base}`")



class _State:
    """At one point: `live` maps a view to the bindings it may hold (ids), `stale` to the
    (binding id, write) pairs of those that a write into their base has changed since."""

    def __init__(self, live=None, stale=None, moved=None):
        self.live = dict(live or {})
        self.stale = dict(stale or {})
        # binding id of a container -> the names it holds that were bound to another object
        # since (on every path): a method changing that name no longer changes what it holds
        self.moved = dict(moved or {})

    def copy(self):
        return _State(self.live, self.stale, self.moved)

    def join(self, other):
        joined = self.copy()
        for table, theirs in ((joined.live, other.live), (joined.stale, other.stale)):
            for view, found in theirs.items():
                table[view] = table.get(view, frozenset()) | found
        for binding, names in other.moved.items():
            joined.moved[binding] = joined.moved[binding] & names \
                if binding in joined.moved else names
        return joined

    def __eq__(self, other):
        return self.live == other.live and self.stale == other.stale and \
            self.moved == other.moved


def _held(value):
    """The names a list, tuple or dict written out holds: the arrays themselves, which a write
    into one changes as seen through the container (not a view, but the same object)."""
    if not isinstance(value, (gast.List, gast.Tuple, gast.Dict)):
        return ()
    entries = value.values if isinstance(value, gast.Dict) else value.elts
    return tuple(dict.fromkeys(e.id for e in entries if isinstance(e, gast.Name)))


# builtins whose result holds the entries of what they are given: an array's rows, views of it
_ENTRY_HOLDERS = ("list", "tuple", "iter", "reversed")


def _entries_of(value, local_names):
    """`list(y)`, `tuple(y)`, `iter(y)`, `reversed(y)`: the name whose entries the result holds
    (rows of an array are views of it; a write that reaches one is refused when it runs)."""
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
            and value.func.id in _ENTRY_HOLDERS and value.func.id not in local_names \
            and len(value.args) == 1 and not value.keywords and isinstance(value.args[0], gast.Name):
        return (value.args[0].id,)
    return ()


def _walks_a_name(statement):
    """`for r in buf:` (a name walked, a name bound): `r` is `buf[i]` as the loop reaches it,
    a view of `buf` where that is a row."""
    return isinstance(statement, gast.For) and isinstance(statement.iter, gast.Name) \
        and isinstance(statement.target, gast.Name)


def _filled_list(statement):
    """`xs` for a statement `xs.append(v)` (or extend, insert): xs then holds v itself."""
    call = statement.value if isinstance(statement, gast.Expr) else None
    if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) \
            and isinstance(call.func.value, gast.Name) and call.func.attr in LIST_FILLING_METHODS:
        return call.func.value.id
    return None


def _holds(definition):
    """The names whose objects themselves the binding `definition` puts into a container
    (`outer = [inner]`, `outer.append(inner)`); not those whose entries it copies."""
    if _filled_list(definition) is not None:
        return {a.id for a in definition.value.args if isinstance(a, gast.Name)}
    return set(_held(definition.value)) if isinstance(definition, gast.Assign) else set()


def _base_written(statement):
    """The name `statement` writes into in place: `y[i] = v`, or a method that changes its
    object (`y.append(v)`, `v = y.pop()`); else None."""
    if _written_base(statement):
        return statement.targets[0].value.id
    call = statement.value if isinstance(statement, (gast.Expr, gast.Assign)) else None
    if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) \
            and isinstance(call.func.value, gast.Name) and call.func.attr in IN_PLACE_METHODS:
        return call.func.value.id
    return None


def _written_base(statement):
    return isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Subscript) \
        and isinstance(statement.targets[0].value, gast.Name)


def _header_loads(statement):
    header = statement.test if isinstance(statement, (gast.If, gast.While)) else statement.iter
    return loads(header)
