"""LowerUnpackedIterables: iterables that are not sequences, spelled as lists.

- `[*s, v]` and `(*s, v)` in a statement: a list built by `extend` and `append` first
  (`_items = []; _items.extend(s); _items.append(v)`), which list adjoints differentiate (a
  starred display left to normal form made a statement `_t = *s`: a SyntaxError).
- `k1, k2 = d` (a dict: its keys), `p, q = d.values()`, `(k, v), _ = d.items()`, and the
  unpacking of `map`, `zip`, `reversed`, `enumerate`, `filter`, `iter` or a generator
  expression: the value is `list(...)` of it, which can be read by position.
- `next(reversed(e))` and `next(iter(e))`: the first item of `list(...)` of it."""
import builtins

import gast

from .. import build
from ..traversal import child_nodes, rewrite_blocks, walk

_ITERATORS = frozenset({"map", "zip", "reversed", "enumerate", "filter", "iter"})
_VIEWS = frozenset({"keys", "values", "items"})
_PER_ITEM = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


class LowerUnpackedIterables:

    def __init__(self, parsed, namer, local_names, kinds):
        self.parsed = parsed
        self.namer = namer
        self.local_names = local_names
        self.kinds = kinds                # analysis.container_kinds: name -> 'dict', ...

    def _builtin(self, node, names):
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
            and node.func.id in names and node.func.id not in self.local_names \
            and self.parsed.namespace.get(node.func.id, getattr(builtins, node.func.id)) \
            is getattr(builtins, node.func.id)

    def run(self, body):
        return rewrite_blocks(body, self._lowered)

    def _lowered(self, statement):
        if not isinstance(statement, (gast.Assign, gast.Expr, gast.Return, gast.AugAssign)):
            return [statement]
        self._unpacked_as_lists(statement)
        self._firsts(statement)
        return self._starred_displays(statement) + [statement]

    def _unpacked_as_lists(self, statement):
        if not (isinstance(statement, gast.Assign) and any(
                isinstance(t, (gast.Tuple, gast.List)) for t in statement.targets)):
            return
        value = statement.value
        if self._is_dict(value) or isinstance(value, gast.GeneratorExp) \
                or self._builtin(value, _ITERATORS) or (
                    isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
                    and value.func.attr in _VIEWS and not value.args and not value.keywords):
            statement.value = gast.copy_location(self._list(value), value)

    def _is_dict(self, value):
        return isinstance(value, gast.Dict) or (
            isinstance(value, gast.Name) and self.kinds.get(value.id) == "dict")

    def _list(self, value):
        return gast.Call(func=build.name("list"), args=[value], keywords=[])

    def _firsts(self, statement):
        """`next(reversed(e))`, `next(iter(e))` (one argument: no default) as `list(...)[0]`."""
        for node in _evaluated_once(statement):
            for put, child in _children(node):
                if self._builtin(child, {"next"}) and len(child.args) == 1 \
                        and not child.keywords and self._builtin(child.args[0], {"reversed", "iter"}):
                    inner = child.args[0]
                    items = inner if inner.func.id == "reversed" else inner.args[0]
                    put(gast.copy_location(gast.Subscript(
                        value=self._list(items), slice=gast.Constant(value=0, kind=None),
                        ctx=gast.Load()), child))

    def _starred_displays(self, statement):
        """The statements building each starred display of `statement` (outside lambdas and
        comprehensions), which it then reads by name."""
        before = []
        for node in _evaluated_once(statement):
            for put, child in _children(node):
                if isinstance(child, (gast.List, gast.Tuple)) and isinstance(child.ctx, gast.Load) \
                        and any(isinstance(e, gast.Starred) for e in child.elts):
                    items = self.namer.fresh("_items")
                    before.append(build.assign(items, gast.List(elts=[], ctx=gast.Load())))
                    for e in child.elts:
                        method = "extend" if isinstance(e, gast.Starred) else "append"
                        part = e.value if isinstance(e, gast.Starred) else e
                        before += build.quote(f"{items}.{method}({{p}})", p=part)
                    built = build.name(items) if isinstance(child, gast.List) else \
                        gast.Call(func=build.name("tuple"), args=[build.name(items)], keywords=[])
                    put(built)
        return [gast.copy_location(s, statement) for s in before]


def _children(node):
    """(a function putting a new node in its place, the child) for each child of `node`."""
    for field, value in list(gast.iter_fields(node)):
        if isinstance(value, gast.AST):
            yield (lambda new, f=field: setattr(node, f, new)), value
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, gast.AST):
                    yield (lambda new, v=value, k=i: v.__setitem__(k, new)), item


def _evaluated_once(statement):
    """The nodes of `statement` outside lambdas and comprehensions, parents first."""
    found, stack = [], [statement]
    while stack:
        node = stack.pop()
        found.append(node)
        stack += [c for c in child_nodes(node) if not isinstance(c, _PER_ITEM)]
    return found
