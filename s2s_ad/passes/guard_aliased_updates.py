"""GuardAliasedUpdates: `y += v` where `y` may share memory with a name read later."""
import gast

from .. import build, runtime
from ..analysis import call_results
from ..analysis.activity import assigned_names
from ..analysis.container_kinds import container_kinds
from ..analysis.aliasing import MayAlias, MayBeSame, is_read, live_after
from ..analysis.flow import bound_before
from ..traversal import walk, walk_statements
from .write_back_views import seeing_the_write


class GuardAliasedUpdates:
    """`z = y; z *= 2` changes `y` too when `y` is an array: check for that where it matters.

    The transformer differentiates `z *= 2` as `z = z * 2`, which is exact for numbers and for
    an array no other name holds. Where another name that may share `z`'s memory is read
    afterwards, the generated code first calls `check_rebinds(z, ('y',), 'file:line:col', y)`,
    which refuses (SharedUpdate) when `z` is an array that shares memory with `y` as it runs.
    Where `y` may not be bound yet at the update, the check cannot read it and refuses any array
    (`check_rebinds(z, ('y',), 'file:line:col')`).

    A slot of a list or dict is the same: `xs[0] += v` on `xs = [y]` adds into the array `y`
    in Python, while it is differentiated as `xs[0] = xs[0] + v`; the check reads the slot
    (`check_rebinds(xs[0], ('y',), ...)`), where its index is a name or a constant.

    Where `y` may be the very array `z` (`z = y`, `z = ident(y)`, on some paths or all), NumPy
    gives the update one meaning: both names see it. The check lets that case through and the
    update is followed by `if same: y = z`, `same` asked of `runtime.same_array` before it.
    """

    def __init__(self, parsed, params, check_name, same_name, namer):
        self.parsed = parsed
        self.params = params
        self.check_name = check_name      # the name `runtime.check_rebinds` has in generated code
        self.same_name = same_name        # and `runtime.same_array`
        self.namer = namer
        self.same = {}                    # id(update) -> the names that may be its very array
        self.others = {}                  # id(update) -> _other_entries_read
        self.other_entries_name = None    # the name `runtime.other_entries` has, once used

    def run(self, body):
        guards = {}
        calls = call_results.hook(self.parsed, set(self.params) | set(assigned_names(body)))
        containers = container_kinds(body, self.params, self.parsed.namespace)
        self.same = {id(s): aliases
                     for s, _, aliases in MayBeSame(self.params, calls).run(body).updates}
        for statement, name, aliases in MayAlias(self.params, calls).run(body).updates:
            if _writes_an_entry(statement) and name is not None \
                    and containers.get(name) not in ("list", "dict"):
                # (a derivative's own writes, restoring what its tape saved, were checked
                # when it was made, as passes/refuse_writes_through_views.py says)
                guard = None if self.parsed.generated else \
                    self.guard_entry_write(body, statement, name, aliases, containers)
                if guard is not None:
                    guards[id(statement)] = guard
                continue
            if not isinstance(statement, gast.AugAssign) or not (
                    isinstance(statement.target, gast.Name)
                    or containers.get(name) in ("list", "dict") and _plain_slot(statement.target)):
                continue
            later = live_after(body, statement)
            walked, rebound = _walked_around(body, statement)
            walked &= {name} | aliases
            seen = sorted(a for a in aliases if not a.startswith("<") and is_read(a, later)
                          and a not in seeing_the_write(self.parsed, statement))
            self.others[id(statement)] = _other_entries_read(statement, name, aliases, later)
            seen += [text for text, _, _ in self.others[id(statement)]]
            seen += _other_arguments_read(name, aliases, self.params, later, seen)
            if walked & rebound:
                # a loop around the update walks this array, and the name it was read from is
                # bound again inside: nothing names what the loop walks, to check as it runs
                guards[id(statement)] = self.guard(statement, name, sorted(walked), set(), walked)
            elif seen or walked:
                # the loop's later steps read the array it walks: a name read later too
                bound = bound_before(body, statement, self.params) or set()
                guards[id(statement)] = self.guard(statement, name,
                                                   sorted(set(seen) | walked), bound, walked)
        return _insert(body, guards) if guards else body

    def guard(self, statement, name, aliases, bound, walked=frozenset()):
        """(the statements before `statement`, those after it): the check, given the values of
        `aliases` where all are bound there (an entry `p['W']` is checked through its
        container `p`), those in `walked` named as the loops walking them; and for each plain
        name that may be the very array updated, its rebinding to the result."""
        check = self.check(statement, name, aliases, bound, walked)
        if not check.value.args[3:] or not isinstance(statement.target, gast.Name):
            return [check], []          # no values to compare: any array is refused
        same = self.same.get(id(statement), ())
        rebound = [a for a in aliases if a in same and a not in walked and a != name]
        if not rebound:
            return [check], []
        check.value.keywords.append(gast.keyword(arg="rebound", value=_constants(rebound)))
        before, after = [check], []
        for alias in rebound:
            same = self.namer.fresh(f"same_{alias}")
            before.append(build.assign(same, gast.Call(
                func=build.name(self.same_name), args=[build.name(name), build.name(alias)],
                keywords=[])))
            after.append(gast.If(test=build.name(same), body=[build.assign(alias, build.name(name))],
                                 orelse=[]))
        return [gast.copy_location(s, statement) for s in before], \
            [gast.copy_location(s, statement) for s in after]

    def guard_entry_write(self, body, statement, name, aliases, containers):
        """`y[i] = v` (or `y[i] += v`) where every other name read later that may share `y`'s
        memory may be the very array `y` (`z = y`): NumPy's one meaning, both names see the
        write, is followed by binding those names to `y` after it where they are that array
        (`check_rebinds` refuses one that shares memory otherwise). None where another alias
        (a view, a container) is read later: left to the refusals of views."""
        later = live_after(body, statement)
        seen = sorted(a for a in aliases if a != name and not a.startswith("<")
                      and is_read(a, later) and a not in seeing_the_write(self.parsed, statement))
        same = self.same.get(id(statement), ())
        copies = _bound_to_names(body)
        if not seen or any(a not in same or not {a, name} & copies or containers.get(a)
                           for a in seen) or \
                _walked_around(body, statement)[0] & ({name} | set(aliases)):
            return None
        bound = bound_before(body, statement, self.params) or set()
        if not set(seen) <= bound:
            return None
        line, col = self.parsed.location(statement)
        check = gast.Expr(value=gast.Call(func=build.name(self.check_name), args=[
            build.name(name), _constants(seen),
            gast.Constant(value=f"{self.parsed.filename}:{line}:{col + 1}", kind=None)] +
            [build.name(a) for a in seen], keywords=[gast.keyword(
                arg="rebound", value=_constants(seen))]))
        before, after = [check], []
        for alias in seen:
            flag = self.namer.fresh(f"same_{alias}")
            before.append(build.assign(flag, gast.Call(
                func=build.name(self.same_name), args=[build.name(name), build.name(alias)],
                keywords=[])))
            after.append(gast.If(test=build.name(flag), body=[
                build.assign(alias, build.name(name))], orelse=[]))
        return [gast.copy_location(s, statement) for s in before], \
            [gast.copy_location(s, statement) for s in after]

    def check(self, statement, name, aliases, bound, walked):
        """The call of `runtime.check_rebinds` before `statement` (see `guard`)."""
        line, col = self.parsed.location(statement)
        where = f"{self.parsed.filename}:{line}:{col + 1}"
        others = {text: (holder, key) for text, holder, key in self.others.get(id(statement), ())}
        first = {}                                 # holder -> the first alias read through it
        for alias in aliases:
            text = f"for ... in {alias}" if alias in walked else alias
            first.setdefault(alias if alias in others else _container(alias), text)
        unbound = [a for h, a in first.items() if h not in bound and h not in others]
        shown = unbound[:1] if unbound else list(first.values())
        updated = build.clone(statement.target) if isinstance(statement.target, gast.Subscript) \
            else build.name(name)
        _loaded(updated)
        args = [updated, _constants(shown), gast.Constant(value=where, kind=None)]
        if not unbound:
            args += [self.other_entries(*others[h]) if h in others else build.name(h)
                     for h in first]
        check = gast.Call(func=build.name(self.check_name), keywords=[], args=args)
        return gast.copy_location(gast.Expr(value=check), statement)

    def other_entries(self, holder, key):
        """`other_entries(holder, key)`: what the check compares with for `another entry of`."""
        if self.other_entries_name is None:
            self.other_entries_name = self.namer.fresh("other_entries")
            self.parsed.namespace[self.other_entries_name] = runtime.other_entries
        return gast.Call(func=build.name(self.other_entries_name),
                         args=[build.name(holder), build.clone(key)], keywords=[])


def _other_entries_read(statement, name, aliases, later):
    """[(text, container, key)] for the entries of a list or dict, under keys other than that
    of an entry the updated array may be, read later: one container may hold one array under
    two keys (`d['a'] = y; d['b'] = y; d['a'] += x`, then `d['b']`), which the aliases of
    names do not tell apart from entries that never share memory."""
    slots = [(a, a[:a.index("[")], gast.Constant(value=_entry_key(a), kind=None))
             for a in aliases if "[" in a and not a.startswith("<")]
    if _plain_slot(statement.target):
        slot = statement.target
        slots.append((f"{name}[{build.unparse(slot.slice)}]", name, build.clone(slot.slice)))
    found = []
    for slot, holder, key in slots:
        if any(r == holder or r.startswith(holder + "[") and r != slot for r in later):
            found.append((f"another entry of {holder}", holder, key))
    return found


def _other_arguments_read(name, aliases, params, later, seen):
    """The parameters read later, other than those the updated array may be part of, where it
    may be part of one: the caller may pass one array twice (`f(x, W, W)`, `f(x, p, p.W)`),
    which nothing here can tell; the check compares their memory as it runs."""
    mine = {_container(a) for a in {name} | aliases}
    if not mine & set(params):
        return []
    return [p for p in params if p not in mine and p not in seen and is_read(p, later)]


def _entry_key(entry):
    """'W' of the entry `p['W']` (aliasing names entries by constant string keys)."""
    import ast
    return ast.literal_eval(entry[entry.index("[") + 1:-1])


def _walked_around(statements, statement):
    """(names whose memory the `for` loops around `statement` walk, names bound again inside
    those loops), or None where `statement` is not in `statements`."""
    for candidate in statements:
        if candidate is statement:
            return set(), set()
        for field in ("body", "orelse"):
            inner = getattr(candidate, field, None) or []
            found = _walked_around(inner, statement) if inner else None
            if found is not None:
                walked, rebound = found
                if isinstance(candidate, gast.For) and field == "body":
                    walked = walked | MayAlias().sources(candidate.iter)  # `range(len(y))`: none
                    rebound = rebound | set(assigned_names(
                        [s for s in candidate.body if not isinstance(s, gast.AugAssign)]))
                return walked, rebound
    return None


def _bound_to_names(body):
    """Names some binding of which is another name (`z = y`, `u, v = v, u`): those that may
    hold the very array another holds without a call deciding it (a helper, a generator may
    return a view, which the refusals of views name better)."""
    found = set()
    for statement in walk_statements(body):
        if not isinstance(statement, gast.Assign):
            continue
        for target in statement.targets:
            pairs = zip(target.elts, statement.value.elts) if isinstance(
                target, (gast.Tuple, gast.List)) and isinstance(
                statement.value, (gast.Tuple, gast.List)) else [(target, statement.value)]
            found |= {t.id for t, v in pairs
                      if isinstance(t, gast.Name) and isinstance(v, gast.Name)}
    return found


def _writes_an_entry(statement):
    """`y[i] = v` or `y[i] += v`: a write into part of the array a name holds."""
    target = statement.targets[0] if isinstance(statement, gast.Assign) and \
        len(statement.targets) == 1 else getattr(statement, "target", None)
    return isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name)


def _plain_slot(target):
    """Is `target` a slot `xs[k]` of a name, `k` safe to read twice (`_pure`)?"""
    return isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) and \
        _pure(target.slice)


def _pure(index):
    """A name, a constant, or arithmetic of them (`i + 1`): the same value when read again."""
    if isinstance(index, gast.BinOp):
        return _pure(index.left) and _pure(index.right)
    if isinstance(index, gast.UnaryOp):
        return _pure(index.operand)
    return isinstance(index, (gast.Name, gast.Constant))


def _loaded(node):
    for part in walk(node):
        if hasattr(part, "ctx"):
            part.ctx = gast.Load()


def _container(alias):
    """The local name an alias is read through: `p` for the entry `p['W']`."""
    return alias.split("[", 1)[0]


def _constants(texts):
    return gast.Tuple(elts=[gast.Constant(value=t, kind=None) for t in texts], ctx=gast.Load())


def _insert(statements, guards):
    out = []
    for statement in statements:
        before, after = guards.get(id(statement), ([], []))
        for field in ("body", "orelse"):
            if getattr(statement, field, None):
                setattr(statement, field, _insert(getattr(statement, field), guards))
        out += before + [statement] + after
    return out


def rebound_at(body):
    """{(line, column) of an update: the names bound to its array after it where they are that
    array}, read from the `check_rebinds(..., 'file:line:col', ..., rebound=(...))` calls
    GuardAliasedUpdates put before it (normal form holds the tuple in a name of its own)."""
    tuples = {s.targets[0].id: s.value for s in walk_statements(body)
              if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
              and isinstance(s.value, gast.Tuple)}
    found = {}
    for statement in walk_statements(body):
        call = statement.value if isinstance(statement, gast.Expr) else None
        rebound = next((k.value for k in getattr(call, "keywords", ()) if k.arg == "rebound"),
                       None) if isinstance(call, gast.Call) else None
        rebound = tuples.get(rebound.id) if isinstance(rebound, gast.Name) else rebound
        where = call.args[2] if rebound is not None and len(call.args) > 2 else None
        if not isinstance(where, gast.Constant) or not isinstance(rebound, gast.Tuple):
            continue
        line, col = where.value.rsplit(":", 2)[1:]
        found[(int(line), int(col) - 1)] = {e.value for e in rebound.elts
                                            if isinstance(e, gast.Constant)}
    return found
