"""WriteBackViews: a write through a view, recorded on its base (issue 15).

    e7, e8 = x                  e7, e8 = x
    e8[0] = v                   e8[0] = v
    (before the write: _w = written_through(e8, x, 1, ...))     if _w == 1: x[1] = e8; e8 = x[1]
                                                                elif _w == 2: x = with_entry(x, 1, e8)

NumPy's write into `e8` is a write into `x`'s memory, which later reads of `x` see; the
derivative follows values, so it is told: `x[1] = e8` copies that memory onto itself (nothing
changes) while the derivative now has `x` hold the written row. `written_through` decides when
it runs: 1 where `e8` is a view of the array `x` (or the very entry of a list), 2 where `x` is
a tuple holding it (a new tuple holding the same arrays is bound to `x`), 0 where `e8` is not
an array (`e8 += 1` on a number rebinds it: nothing to write back).

Only a view bound in the same block, earlier, as `v = b[k]` (`k` made of constants) or by
unpacking `a, v = b`, with neither name bound again before the write, which is a statement of
that block, and a base read again afterwards. Other views of the same base bound so (`e3, e4 =
x` beside `e7, e8 = x`) and read later are bound again from the base after the write back
(`e4 = x[1]`): where one shares memory with `e8` it sees the write, as in NumPy. The writes back
are listed on the parsed function (`written_back`: the location of the write -> (base, view,
the other views bound again)); `seeing_the_write` gives the names that see a write so, which
the refusals and checks of views leave alone.
"""
import gast

from .. import build, runtime
from ..analysis.activity import assigned_names
from ..analysis.aliasing import live_after
from ..traversal import walk


class WriteBackViews:

    def __init__(self, parsed, check_name, tuple_name, namer):
        self.parsed, self.namer = parsed, namer
        self.check_name = check_name       # runtime.written_through in generated code
        self.tuple_name = tuple_name       # and runtime.with_entry
        parsed.written_back = getattr(parsed, "written_back", {})

    def run(self, body):
        if self.parsed.generated:
            return body                    # a derivative's writes restore its own arrays
        self.body = body
        return self.block(body)

    def block(self, statements):
        out, views = [], {}                # view -> (base, index)
        # views an augmented assignment went through since bound: `v op= x` rebinds a number,
        # so what `v` is to the base then is known only when it runs, and a write back through
        # another view does not bind it again (one still sharing the memory is refused where
        # it is read stale: GuardStaleViews)
        augmented = set()
        for statement in statements:
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    setattr(statement, field, self.block(inner))
            written = _view_written(statement)
            if written in views and self._seen_again(statement, written, views):
                # (a base no one reads again, nor another view of it, needs nothing back)
                base, index = views[written]
                later = live_after(self.body, statement)
                others = {v: k for v, (b, k) in views.items()
                          if b == base and v != written and v in later and v not in augmented}
                before, after = self.write_back(statement, written, base, index, others)
                out += before + [statement] + after
            else:
                out.append(statement)
            bound = set(assigned_names([statement])) - {written}
            views = {v: (b, k) for v, (b, k) in views.items() if not {v, b} & bound}
            fresh = _views_bound(statement)
            augmented = (augmented | ({written} if isinstance(statement, gast.AugAssign)
                                      else set())) - set(fresh) - bound
            views.update(fresh)
        return out

    def _seen_again(self, statement, view, views):
        """Is the base of `view`, or another view bound from it here, read after the write?"""
        base = views[view][0]
        later = live_after(self.body, statement)
        return base in later or any(b == base and v != view and v in later
                                    for v, (b, _) in views.items())

    def write_back(self, statement, view, base, index, others):
        """(the statements before the write, those after it): whether to write back is asked
        before it, while `view` is still what it was bound to (the derivative spells `v op=
        x` as `v = v op x`, a new array), and the write back follows it, then the binding of
        the base's `others` views ({name: index}) again."""
        line, col = self.parsed.location(statement)
        where = f"{self.parsed.filename}:{line}:{col + 1}"
        self.parsed.written_back[(line, col)] = (base, view, tuple(sorted(others)))
        flag = self.namer.fresh(f"{view}_written_through")
        updated = _entry_updated(statement)
        ask = build.assign(flag, gast.Call(func=build.name(self.check_name), keywords=[], args=[
            build.name(view), build.name(base), build.to_index_value(build.clone(index)),
            gast.Constant(value=where, kind=None), gast.Tuple(elts=[
                gast.Constant(value=view, kind=None), gast.Constant(value=base, kind=None)],
                ctx=gast.Load())] + updated))
        store = gast.Subscript(value=build.name(base), slice=build.clone(index), ctx=gast.Store())
        # and `view` bound to the view again: the derivative's `v op= x` made it a new array,
        # where NumPy's is still the view a later write goes through
        again = build.assign(view, gast.Subscript(value=build.name(base), slice=build.clone(index),
                                                  ctx=gast.Load()))
        tupled = build.assign(base, gast.Call(func=build.name(self.tuple_name), keywords=[],
                                              args=[build.name(base),
                                                    build.to_index_value(build.clone(index)),
                                                    build.name(view)]))
        rebind = [build.assign(v, gast.Subscript(value=build.name(base), slice=build.clone(k),
                                                 ctx=gast.Load())) for v, k in sorted(others.items())]
        # an entry of a list copy updated in place, read by an index free of calls (not the
        # `...` of _entry_updated): the base's entry at position flag - 3 is that array too
        known = updated and not isinstance(updated[0], gast.Constant)
        entry = [gast.If(test=build.quote_expr(f"{flag} > 2"), orelse=[], body=[build.assign(
            gast.Subscript(value=build.name(base), slice=build.quote_expr(f"{flag} - 3"),
                           ctx=gast.Store()), build.clone(updated[0]))])] if known else []
        back = gast.If(test=_equals(flag, 1),
                       body=[build.assign(store, build.name(view)), again] + rebind,
                       orelse=[gast.If(test=_equals(flag, 2), body=[tupled] + [
                           build.clone(r) for r in rebind], orelse=entry)])
        for part in list(walk(ask)) + list(walk(back)):
            if isinstance(part, (gast.expr, gast.stmt)):
                gast.copy_location(part, statement)
        return [ask], [back]


def seeing_the_write(parsed, statement):
    """The names that see `statement`'s write through a view because it is written back
    into the base (the base, the view, the base's other views bound again); () for any other
    statement."""
    back = getattr(parsed, "written_back", {}).get(parsed.location(statement))
    return () if back is None else (back[0], back[1]) + back[2]


def _entry_updated(statement):
    """[the entry `v[k]`] for an update `v[k] op= x`, read before it (an array there may be
    shared with the base's list: runtime.written_through), or [...] where reading `k` twice
    could give another entry (`v[idx.pop()] += 1`: any array shared is refused then); [] for
    another write."""
    if not (isinstance(statement, gast.AugAssign) and isinstance(statement.target, gast.Subscript)):
        return []
    if any(isinstance(n, _EFFECTS) for n in walk(statement.target.slice)):
        return [gast.Constant(value=Ellipsis, kind=None)]
    entry = build.clone(statement.target)
    entry.ctx = gast.Load()
    return [entry]


# what may give another entry when an index is read again (arithmetic and attributes do not)
_EFFECTS = (gast.Call, gast.NamedExpr, gast.Await, gast.Yield, gast.YieldFrom)


def _equals(name, number):
    return gast.Compare(left=build.name(name), ops=[gast.Eq()],
                        comparators=[gast.Constant(value=number, kind=None)])


def _view_written(statement):
    """`v` for `v[i] = x`, `v[i] op= x` or `v op= x`; None otherwise."""
    if isinstance(statement, gast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, gast.AugAssign):
        target = statement.target
        if isinstance(target, gast.Name):
            return target.id
    else:
        return None
    if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
        return target.value.id
    return None


def _views_bound(statement):
    """{v: (base, index)} for `v = b[k]` (k constants) or `a, v = b`."""
    if not isinstance(statement, gast.Assign) or len(statement.targets) != 1:
        return {}
    target, value = statement.targets[0], statement.value
    if isinstance(target, gast.Name) and isinstance(value, gast.Subscript) \
            and isinstance(value.value, gast.Name) and _constant_index(value.slice) \
            and value.value.id != target.id:
        return {target.id: (value.value.id, value.slice)}
    if isinstance(target, (gast.Tuple, gast.List)) and isinstance(value, gast.Name) and all(
            isinstance(e, gast.Name) for e in target.elts):
        names = [e.id for e in target.elts]
        if value.id in names or len(set(names)) != len(names):
            return {}
        return {n: (value.id, gast.Constant(value=k, kind=None)) for k, n in enumerate(names)}
    return {}


def _constant_index(index):
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    for part in parts:
        if isinstance(part, gast.Slice):
            if not all(b is None or _integer(b) for b in (part.lower, part.upper, part.step)):
                return False
        elif not _integer(part):
            return False
    return True


def _integer(node):
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        node = node.operand
    return isinstance(node, gast.Constant) and type(node.value) is int
