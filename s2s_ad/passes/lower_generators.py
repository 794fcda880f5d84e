"""Generator functions of yours (issue 15): `def pieces(v): ... yield v[a:b].reshape(shape)`.

LowerGenerators: a generator function, differentiated as a callee, collects what it yields in a
list and returns it (`yield v` -> `_yielded.append(v)`, `yield from g` ->
`_yielded.extend(g)`, `return` -> `return _yielded`); list updates and list adjoints then do
the rest. It runs to its end when it is called, where Python runs it a step at a time as its
items are taken: the same items wherever nothing changes what it reads before it is done.

GuardGeneratorCalls makes sure of that at each call, in the caller: the items are taken all at
once (unpacked, `list(...)`, `tuple(...)`, `sum(...)`, `min`, `max`, `sorted`; not `any` or
`all`, which stop early),
or by a `for` loop (over the call, or its `enumerate` / `zip`) whose body writes into none of
the names the call reads, nor any name bound from them (`b = a`, `v = a[1:]`: it may be a view;
a name bound from them by arithmetic counts too, which is cautious); any other call is refused with a hint that works (`list(gen(v))`
first: NumPy makes an object array of a generator itself). A generator whose loop never ends by its test
(`while True:`) is refused too: running it to its end would not stop.
"""
import builtins
import inspect

import gast

from .. import build
from ..analysis.primitives import static_value
from ..traversal import rewrite_blocks, walk

# not any/all: they stop at the first item that decides, where the lowered generator has made
# them all (and a later one may raise)
_AT_ONCE = (builtins.list, builtins.tuple, builtins.sum, builtins.min, builtins.max,
            builtins.sorted)


class LowerGenerators:

    def __init__(self, parsed, namer):
        self.parsed = parsed
        self.namer = namer

    def run(self, body):
        if not inspect.isgeneratorfunction(self.parsed.fn):
            return body
        for node in walk(gast.Module(body=body, type_ignores=[])):
            if isinstance(node, gast.While) and isinstance(node.test, gast.Constant) \
                    and node.test.value:
                raise self.parsed.error(
                    node, "a generator with a loop that its test never ends (`while True:`) "
                          "cannot be differentiated: s2s_ad runs a generator to its end when it "
                          "is called", hint="loop over a range, or return a list of the items")
        self.items = self.namer.fresh("_yielded")
        body = rewrite_blocks(body, self.statement)
        start = build.assign(self.items, gast.List(elts=[], ctx=gast.Load()))
        return [start] + body + [gast.Return(value=build.name(self.items))]

    def statement(self, node):
        if isinstance(node, gast.Expr) and isinstance(node.value, (gast.Yield, gast.YieldFrom)):
            value = node.value.value or gast.Constant(value=None, kind=None)
            method = "append" if isinstance(node.value, gast.Yield) else "extend"
            call = gast.Call(func=gast.Attribute(value=build.name(self.items), attr=method,
                                                 ctx=gast.Load()), args=[value], keywords=[])
            return [gast.copy_location(gast.Expr(value=call), node)]
        if isinstance(node, gast.Return):
            # a generator's `return v` ends it; v is StopIteration's, not an item
            return [gast.copy_location(gast.Return(value=build.name(self.items)), node)]
        return [node]


class GuardGeneratorCalls:
    """Refuse a call of a generator function of yours whose items are not taken at once."""

    def __init__(self, parsed, params):
        self.parsed = parsed
        self.params = set(params)

    def check(self, body):
        if self.parsed.generated:
            return             # a derivative s2s_ad wrote calls a generator as its source did
        nodes = list(walk(gast.Module(body=body, type_ignores=[])))     # one walk, read 4 times
        self.bindings = [(_names(n.value), set().union(*map(_names, n.targets)))
                         for n in nodes if isinstance(n, gast.Assign)] + [
            (_names(n.iter), _names(n.target)) for n in nodes if isinstance(n, gast.For)]
        accepted = set()
        for node in nodes:
            accepted |= self._taken_at_once(node)
        for node in nodes:
            if isinstance(node, gast.Call) and id(node) not in accepted and self._generator(node):
                raise self.parsed.error(
                    node, f"`{self.parsed.describe_expression(node.func)}(...)` is a generator: "
                          f"s2s_ad runs it to its end when it is called, which is what Python "
                          f"does only where its items are taken at once",
                    hint="unpack it (`a, b = gen(v)`) or take `list(gen(v))` first; a `for` "
                         "loop over it is fine where its body writes into none of the names "
                         "the call reads")

    def _taken_at_once(self, node):
        """ids of the calls `node` takes every item of at once."""
        if isinstance(node, gast.Assign) and isinstance(node.value, gast.Call) \
                and all(isinstance(t, (gast.Tuple, gast.List)) for t in node.targets):
            return {id(node.value)}
        if isinstance(node, gast.Call) and len(node.args) >= 1 and self._consumes(node.func):
            return {id(node.args[0])}
        if isinstance(node, gast.YieldFrom):       # taken when the generator runs: at once
            return {id(node.value)}
        if isinstance(node, gast.For) and isinstance(node.iter, gast.Call) \
                and not self._writes_into(node.body, self._bound_from(_names(node.iter))):
            walked = [node.iter] + (node.iter.args if _one_of(self._value(node.iter.func), (
                builtins.enumerate, builtins.zip)) else [])
            return {id(call) for call in walked}
        return set()

    def _bound_from(self, names):
        """`names` and every name bound from one of them, at any remove."""
        names = set(names)
        while True:
            more = {t for read, targets in self.bindings if read & names for t in targets}
            if more <= names:
                return names
            names |= more

    def _consumes(self, func):
        return _one_of(self._value(func), _AT_ONCE)

    def _generator(self, call):
        return inspect.isgeneratorfunction(self._value(call.func))

    def _value(self, func):
        try:
            return static_value(func, self.parsed, self.params)
        except (LookupError, AttributeError):
            return None

    @staticmethod
    def _writes_into(body, names):
        """Does `body` write in place into one of `names` (`a[i] = `, `a += `, `a.attr = `,
        `a.append(...)`)?"""
        for node in walk(gast.Module(body=body, type_ignores=[])):
            targets = []
            if isinstance(node, gast.Assign):
                targets = [t for t in node.targets if not isinstance(t, gast.Name)]
            elif isinstance(node, gast.AugAssign):
                targets = [node.target]
            elif isinstance(node, gast.Expr) and isinstance(node.value, gast.Call) \
                    and isinstance(node.value.func, gast.Attribute):
                targets = [node.value.func.value]
            if any(_names(t) & names for t in targets):
                return True
        return False


def _one_of(value, functions):
    """Is `value` one of `functions`? By identity: a value may be unhashable or compare
    elementwise (a ctypes function, an array)."""
    return any(value is f for f in functions)


def _names(node):
    return {n.id for n in walk(node) if isinstance(n, gast.Name)}
