"""LowerLiveListLoops: a `for` loop over a list that its own body grows or shrinks walks the
list as it is at each step, as Python does, not as it was when the loop began.

`for v in xs: ... xs.append(w) ...` becomes

    _at = 0
    while _at < len(xs):
        v = xs[_at]
        _at = _at + 1
        ...

which is what Python's list iterator does (it reads `len(xs)` again before each step), so an
entry appended during the walk is walked too, and a shrunk list ends the walk early. The other
passes see a plain while loop over positions: the backward pass counts its steps and finds
each step's entry by its position. `for i, v in enumerate(xs)` is lowered the same way."""
import gast

from .. import build
from ..traversal import StatementTransformer, walk

# what changes the length of a list in place (a dict's pop/clear raise at the next step)
GROWS = {"append", "extend", "insert", "remove"}
GROWS_OR_EMPTIES = GROWS | {"pop", "clear"}


def changes_length(statements, name, kinds):
    """Does `statements` (nested blocks included) change the length of the list `name` in
    place: a method that grows or shrinks it, or where `name` always holds a list (`kinds`,
    analysis.container_kinds; on an array these keep the length) `del name[...]`,
    `name += ...`, a slice write?"""
    methods = GROWS if kinds.get(name) == "dict" else GROWS_OR_EMPTIES
    for statement in statements:
        for node in walk(statement):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                    and _is(node.func.value, name) and node.func.attr in methods:
                return True
    return kinds.get(name) == "list" and _list_resized(statements, name)


def _list_resized(statements, name):
    for statement in statements:
        for node in walk(statement):
            if isinstance(node, gast.Delete) and any(
                    isinstance(t, gast.Subscript) and _is(t.value, name) for t in node.targets):
                return True
            if isinstance(node, gast.AugAssign) and _is(node.target, name):
                return True
            if isinstance(node, gast.Assign) and any(
                    isinstance(t, gast.Subscript) and _is(t.value, name)
                    and isinstance(t.slice, gast.Slice) for t in node.targets):
                return True
    return False


def _is(node, name):
    return isinstance(node, gast.Name) and node.id == name


class LowerLiveListLoops(StatementTransformer):
    """Rewrite loops over a list their body grows or shrinks into while loops over positions."""

    def __init__(self, parsed, namer, local_names, kinds):
        self.parsed = parsed
        self.namer = namer
        self.local_names = local_names
        self.kinds = kinds                # analysis.container_kinds: name -> 'list', 'dict'...

    def run(self, body):
        self.copies = [(s.targets[0].id, s.value.id) for statement in body
                       for s in walk(statement) if isinstance(s, gast.Assign)
                       and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
                       and isinstance(s.value, gast.Name)]
        return [s for statement in body for s in _as_list(self.visit(statement))]

    def visit_For(self, node):
        self.generic_visit(node)
        walked, index = self._walked(node)
        if walked is None or self.kinds.get(walked) == "dict" or not any(
                changes_length(node.body, name, self.kinds) for name in self._names_of(walked)):
            return node
        if walked in _rebound(node.body):
            raise self.parsed.error(
                node.iter, f"the loop walks `{walked}` while its body both rebinds `{walked}` "
                f"and grows or shrinks a list named so; which list the loop walks is unclear",
                hint=f"walk by position: `k = 0`, then `while k < len({walked}):` with "
                     f"`v = {walked}[k]` and `k += 1` first in the body")
        return self._lowered(node, walked, index)

    def _names_of(self, walked):
        """`walked` and the names bound to it by plain copies (`ys = xs`), anywhere: a change
        through one is a change of the list walked. More than there are is harmless: the while
        loop walks a list as the `for` loop does."""
        names, grown = {walked}, True
        while grown:
            grown = False
            for a, b in self.copies:
                if (a in names) != (b in names):
                    names |= {a, b}
                    grown = True
        return names

    def _walked(self, node):
        """(the name of the list the loop walks, the enumerate index target or None)."""
        iterable = node.iter
        if isinstance(iterable, gast.Name):
            return iterable.id, None
        if isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Name) \
                and iterable.func.id == "enumerate" and "enumerate" not in self.local_names \
                and len(iterable.args) == 1 and not iterable.keywords \
                and isinstance(iterable.args[0], gast.Name) \
                and isinstance(node.target, gast.Tuple) and len(node.target.elts) == 2:
            return iterable.args[0].id, node.target.elts[0]
        return None, None

    def _lowered(self, node, walked, index):
        at = self.namer.fresh("_at")
        target = node.target if index is None else node.target.elts[1]
        head = [build.assign(target, build.quote_expr(f"{walked}[{at}]"))]
        if index is not None:
            head.insert(0, build.assign(index, build.name(at)))
        head.append(build.quote(f"{at} = {at} + 1")[0])
        loop = gast.While(test=build.quote_expr(f"{at} < len({walked})"),
                          body=head + node.body, orelse=node.orelse)
        start = build.assign(at, gast.Constant(value=0, kind=None))
        return [gast.fix_missing_locations(gast.copy_location(s, node)) for s in (start, loop)]


def _rebound(statements):
    """Names `statements` bind to another object (`xs += [v]` on a list extends it: not one)."""
    updated = {id(n.target) for s in statements for n in walk(s) if isinstance(n, gast.AugAssign)}
    return {n.id for s in statements for n in walk(s) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Store) and id(n) not in updated}


def _as_list(result):
    return result if isinstance(result, list) else [result]
