"""DeferLazyIterators: `m = map(f, xs)`, `z = zip(a, b)`, `g = (h(v) for v in xs)` compute
their items when they are read, not when they are made. The passes after this one make them
lists where they are bound, which is the same only where nothing they read changes before
they are read. Where something does (`xs.append(v)`, `xs[0] = v`, `y = 3 * x`, between the
binding and the read), the iterator is made where it is read instead:

    m = map(np.sin, xs)              xs.append(v)
    xs.append(v)             ->      s = sum(np.sum(w) for w in map(np.sin, xs))
    s = sum(np.sum(w) for w in m)

What Python evaluates when the iterator is made (a call's arguments; a generator expression's
first sequence) is held first, where it was made, if it reads a name bound again before the
read (`xs = [v]` after `m = map(f, xs)`: the map walks the old list). Where the items are read
in parts (`next(g)` twice) with a change between the parts, or where the read is in a loop
that makes the change, the derivative cannot follow Python's order: refused, with a hint."""
import builtins
import copy

import gast

from .. import build
from ..analysis.aliasing import IN_PLACE_METHODS
from ..traversal import root_name, walk

LAZY = (map, filter, zip, enumerate, reversed, iter)


class DeferLazyIterators:

    def __init__(self, parsed, namer, local_names, dicts=()):
        self.parsed = parsed
        self.namer = namer
        self.local_names = local_names
        self.dicts = dicts            # names that always hold a dict (container_kinds)

    def run(self, body):
        body = self._block(body)
        for statement in body:
            for field in ("body", "orelse"):
                block = getattr(statement, field, None)
                if isinstance(block, list) and block and isinstance(block[0], gast.stmt) \
                        and not isinstance(statement, gast.FunctionDef):
                    setattr(statement, field, self.run(block))
        return body

    def _lazy(self, value):
        if isinstance(value, gast.GeneratorExp):
            return True
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
                and value.func.id not in self.local_names and not value.keywords:
            called = self.parsed.namespace.get(value.func.id, getattr(builtins, value.func.id, None))
            return any(called is lazy for lazy in LAZY)
        return False

    def _block(self, block):
        k = 0
        while k < len(block):
            statement = block[k]
            if isinstance(statement, gast.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], gast.Name) and self._view(statement.value):
                replaced = self._view_read_where_read(block, k)
                if replaced is not None:
                    block = replaced
                    continue
            if isinstance(statement, gast.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], gast.Name) and self._lazy(statement.value):
                replaced = self._deferred(block, k)
                if replaced is not None:
                    block = replaced
                    continue           # the statement at k is new: look at it again
            k += 1
        return block

    def _view(self, value):
        """`d.items()`, `d.values()`, `d.keys()` of a name always holding a dict."""
        return isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
            and value.func.attr in ("items", "values", "keys") and not value.args \
            and not value.keywords and isinstance(value.func.value, gast.Name) \
            and value.func.value.id in self.dicts

    def _view_read_where_read(self, block, k):
        """A dict's view kept in a name shows the dict as it is when it is read: each read
        becomes the view itself, taken there (of the dict the name held when it was made);
        None where the view is read outside `block`, or not at all."""
        statement = block[k]
        name, value = statement.targets[0].id, statement.value
        uses = _uses(block, k, name)
        later = [n for s in block[k + 1:] for n in walk(s) if isinstance(n, gast.Name)
                 and n.id == name and isinstance(n.ctx, gast.Load)]
        in_uses = [n for j in uses for n in walk(block[j]) if isinstance(n, gast.Name)
                   and n.id == name and isinstance(n.ctx, gast.Load)]
        if not uses or len(later) != len(in_uses):
            return None
        owner = value.func.value.id
        held = []
        if owner in _changes(block[k + 1:uses[-1] + 1], {owner}) and any(
                isinstance(n, gast.Name) and n.id == owner and isinstance(n.ctx, gast.Store)
                for s in block[k + 1:uses[-1] + 1] for n in walk(s)):
            fresh = self.namer.fresh(f"{owner}_viewed")
            held = [gast.copy_location(build.assign(fresh, build.name(owner)), statement)]
            value.func.value = build.name(fresh)
        for j in uses:
            _substitute_every(block[j], name, value)
        return block[:k] + held + block[k + 1:]

    def _deferred(self, block, k):
        """`block` with the iterator bound at `k` made where it is read, or None where the
        binding may stay (nothing it reads changes before its items are read)."""
        statement = block[k]
        name, value = statement.targets[0].id, statement.value
        uses = _uses(block, k, name)
        if not uses:
            return None
        inputs = _free(value)
        first, last = uses[0], uses[-1]
        if not _changes(block[k + 1:last + 1], inputs):
            # a zip is differentiated where it is read (a loop's header, `list(...)`), not
            # kept in a name: made there, where nothing it reads changed in between
            if _is_zip(value) and len(uses) == 1 and _read_once_at_the_top(block[first], name):
                _substitute(block[first], name, value)
                return block[:k] + block[k + 1:]
            return None
        # one simple statement reads all the items at once: a change inside it comes first
        at_once = len(uses) == 1 and isinstance(block[first], _SIMPLE) \
            and _read_once_at_the_top(block[first], name)
        if not at_once and _changes(block[first:last + 1], inputs):
            raise self._refusal(statement, block[first], name, inputs)
        changed = _changes(block[k + 1:first], inputs)
        if isinstance(value, gast.Call) and value.func.id == "reversed":
            # its first position is fixed when it is made (`len(xs) - 1`), its items are read
            # when it is: neither where it is made nor where it is read gives both
            raise self._refusal(statement, block[first], name, inputs)
        held, value = self._held_parts(value, changed, statement)
        if len(uses) == 1 and _read_once_at_the_top(block[first], name):
            _substitute(block[first], name, value)
            made = []
        else:
            made = [gast.copy_location(build.assign(name, value), block[first])]
        return block[:k] + held + block[k + 1:first] + made + block[first:]

    def _held_parts(self, value, changed, statement):
        """(statements holding what Python evaluates when the iterator is made and that reads
        a name changed before the read, the iterator reading those instead)."""
        held = []

        def hold(part):
            if isinstance(part, (gast.Lambda, gast.Constant)) or not (_reads(part) & changed):
                return part
            fresh = self.namer.fresh("_made_from")
            held.append(gast.copy_location(build.assign(fresh, part), statement))
            return build.name(fresh)
        if isinstance(value, gast.GeneratorExp):
            value.generators[0].iter = hold(value.generators[0].iter)
        else:
            value.args = [hold(a) for a in value.args]
        return held, value

    def _refusal(self, statement, reader, name, inputs):
        return self.parsed.error(
            reader, f"`{name}` (line {self.parsed.location(statement)[0]}) computes its items "
            f"as they are read, and what it reads changes while they are read "
            f"({', '.join(f'`{n}`' for n in sorted(inputs))}); the derivative would see other "
            f"items than Python does",
            hint=f"make its items when you mean them to be computed: "
                 f"`{name} = list(...)` where it is made, or read them all at once")


def _is_zip(value):
    return isinstance(value, gast.Call) and value.func.id == "zip"


def _uses(block, k, name):
    """Positions in `block` after `k` of the statements that read `name`, up to the first
    one binding it again (which counts where it reads it too)."""
    found = []
    for j in range(k + 1, len(block)):
        nodes = list(walk(block[j]))
        if any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               for n in nodes):
            found.append(j)
        if any(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Store)
               for n in nodes):
            break
    return found


def _reads(node):
    return {n.id for n in walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _free(value):
    """The names `value` reads that it does not bind itself (a comprehension's targets, a
    lambda's parameters)."""
    own = {n.id for n in walk(value)
           if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param))}
    return _reads(value) - own


def _changes(statements, names):
    """The names of `names` that `statements` bind again or change in place."""
    found = set()
    for statement in statements:
        for node in walk(statement):
            if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
                found.add(node.id)
            elif isinstance(node, (gast.Subscript, gast.Attribute)) and \
                    isinstance(node.ctx, (gast.Store, gast.Del)):
                found |= _roots(node)
            elif isinstance(node, gast.AugAssign):
                found |= _roots(node.target)
            elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                    and node.func.attr in IN_PLACE_METHODS:
                found |= _roots(node.func.value)
    return found & names


def _roots(node):
    root = root_name(node)
    return {root.id} if root is not None else set()


_SIMPLE = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return)
_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def _read_once_at_the_top(statement, name):
    """Is `name` read once in `statement`, where it is evaluated once: not in a nested block,
    a loop's test, a lambda, nor a comprehension's part that runs per item (a comprehension's
    first sequence, and a `for` loop's, are evaluated once)?"""
    if isinstance(statement, gast.For):
        parts = [statement.iter]
    elif not isinstance(statement, _SIMPLE):
        return False
    else:
        parts = [statement]
    once = [n for p in parts for n in _evaluated_once(p) if n.id == name]
    total = [n for n in walk(statement) if isinstance(n, gast.Name) and n.id == name
             and isinstance(n.ctx, gast.Load)]
    return len(once) == 1 and len(total) == 1


def _evaluated_once(node):
    """The names read in `node` outside lambdas and the per-item parts of comprehensions."""
    if isinstance(node, gast.Name):
        return [node]
    if isinstance(node, gast.Lambda):
        return []
    if isinstance(node, _COMPREHENSIONS):
        return _evaluated_once(node.generators[0].iter)
    return [n for child in gast.iter_child_nodes(node) for n in _evaluated_once(child)]


def _substitute_every(statement, name, value):
    for node in list(walk(statement)):
        for field, child in gast.iter_fields(node):
            if isinstance(child, gast.Name) and child.id == name and isinstance(child.ctx, gast.Load):
                setattr(node, field, copy.deepcopy(value))
            elif isinstance(child, list):
                for i, item in enumerate(child):
                    if isinstance(item, gast.Name) and item.id == name \
                            and isinstance(item.ctx, gast.Load):
                        child[i] = copy.deepcopy(value)


def _substitute(statement, name, value):
    for node in walk(statement):
        for field, child in gast.iter_fields(node):
            if isinstance(child, gast.Name) and child.id == name and isinstance(child.ctx, gast.Load):
                setattr(node, field, value)
                return
            if isinstance(child, list):
                for i, item in enumerate(child):
                    if isinstance(item, gast.Name) and item.id == name \
                            and isinstance(item.ctx, gast.Load):
                        child[i] = value
                        return
