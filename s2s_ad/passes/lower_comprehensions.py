"""LowerComprehensions: a list comprehension or generator expression becomes a loop that
appends to a list, which both modes differentiate (`hs = [np.tanh(W @ x) for x in xs]`,
`sum(np.sum(v ** 2) for v in vs)`); a dict comprehension a loop that stores its entries
(`{k: x * v for k, v in pairs}`). `map(f, xs)` is the comprehension `[f(v) for v in xs]`,
and `functools.reduce(f, xs)` the loop `acc = xs[0]; for v in xs[1:]: acc = f(acc, v)`; a
lambda given to either is applied by substituting its arguments into its body.

The list is built just before the statement that holds the comprehension, so only where that
keeps the order of evaluation: not in a `while` test (evaluated again each step), nor inside
a lambda, a conditional expression or `and` / `or` (which may not evaluate it). The names a
comprehension binds are its own: they are renamed, so that they cannot change the function's."""
import builtins
import functools

import gast

from .. import build
from ..traversal import StatementTransformer, walk

_NOT_ENTERED = (gast.Lambda, gast.IfExp, gast.BoolOp, gast.ListComp, gast.GeneratorExp,
                gast.SetComp, gast.DictComp)


class LowerComprehensions(StatementTransformer):

    def __init__(self, namer, namespace=None):
        self.namer = namer
        self.namespace = namespace or {}

    def run(self, body):
        module = self.visit(gast.Module(body=body, type_ignores=[]))
        return module.body

    def visit_While(self, node):
        return self.generic_visit(node)          # its test is evaluated at each step

    def visit_FunctionDef(self, node):
        return node                              # a nested function is hoisted on its own

    def visit(self, node):
        if not isinstance(node, gast.stmt) or isinstance(node, (gast.While, gast.FunctionDef)):
            return super().visit(node)
        built = self._built_in_place(node)
        if built is not None:
            return built
        before = []
        for field in node._fields:
            if field in ("body", "orelse"):
                continue
            setattr(node, field, self._lowered(getattr(node, field), before, node))
        node = self.generic_visit(node)
        return before + [node] if before else node

    def _built_in_place(self, statement):
        """`d = {k: v for ...}` (or a list) as the loop that fills `d` itself, where the
        comprehension does not read `d`: through a temporary, `d` would be one more name for
        the temporary's container, and a later `d[k] = w` a write through an alias."""
        value = statement.value if isinstance(statement, gast.Assign) else None
        if not (isinstance(value, (gast.ListComp, gast.DictComp)) and plain_comprehension(value)
                and len(statement.targets) == 1 and isinstance(statement.targets[0], gast.Name)
                and functional_call(value.generators[0].iter, self.namespace) is None):
            return None
        name = statement.targets[0].id
        if any(isinstance(n, gast.Name) and n.id == name for n in walk(value)):
            return None
        before = []
        value.generators[0].iter = self._lowered(value.generators[0].iter, before, statement)
        self.as_loop(value, before, statement, result=name)
        return [self.generic_visit(s) if not isinstance(s, gast.While) else s for s in before]

    def _lowered(self, value, before, statement):
        if isinstance(value, list):
            return [self._lowered(v, before, statement) for v in value]
        lowered = functional_call(value, self.namespace)
        if lowered is builtins.map:
            value = self._map_as_comprehension(value)
        elif lowered is builtins.filter:
            value = self._filter_as_comprehension(value)
        elif lowered is functools.reduce:
            return self._as_fold(value, before, statement)
        if isinstance(value, (gast.ListComp, gast.GeneratorExp, gast.DictComp)):
            # the first iterable is evaluated where the comprehension is, before its loop
            # (`for _, w in sorted([... for k, w in d.items()])`)
            first = value.generators[0]
            first.iter = self._lowered(first.iter, before, statement)
            if plain_comprehension(value):
                return self.as_loop(value, before, statement)
        if not isinstance(value, gast.expr) or isinstance(value, _NOT_ENTERED):
            return value
        for field in value._fields:
            setattr(value, field, self._lowered(getattr(value, field), before, statement))
        return value

    def _map_as_comprehension(self, call):
        """`map(f, xs, ys)` -> `[f(a, b) for a, b in zip(xs, ys)]`."""
        names = [self.namer.fresh("_item") for _ in call.args[1:]]
        target = build.name(names[0], store=True) if len(names) == 1 else gast.Tuple(
            elts=[build.name(n, store=True) for n in names], ctx=gast.Store())
        iterable = call.args[1] if len(names) == 1 else gast.Call(
            func=build.name("zip"), args=call.args[1:], keywords=[])
        element = _applied(call.args[0], [build.name(n) for n in names])
        return gast.copy_location(gast.ListComp(elt=element, generators=[gast.comprehension(
            target=target, iter=iterable, ifs=[], is_async=0)]), call)

    def _filter_as_comprehension(self, call):
        """`filter(f, xs)` -> `[v for v in xs if f(v)]`; `filter(None, xs)`: `if v`."""
        item = self.namer.fresh("_item")
        test = build.name(item) if _is_none(call.args[0]) else \
            _applied(call.args[0], [build.name(item)])
        return gast.copy_location(gast.ListComp(elt=build.name(item), generators=[
            gast.comprehension(target=build.name(item, store=True), iter=call.args[1],
                               ifs=[test], is_async=0)]), call)

    def _as_fold(self, call, before, statement):
        """`reduce(f, xs[, start])` -> `acc = xs[0] (or start); for v in xs[1:]: acc = f(acc, v)`."""
        items, acc, item = (self.namer.fresh(n) for n in ("_items", "_acc", "_item"))
        code = [build.assign(items, self._lowered(call.args[1], before, statement))]
        if len(call.args) == 3:
            code.append(build.assign(acc, self._lowered(call.args[2], before, statement)))
            rest = build.name(items)
        else:
            code.append(build.assign(acc, build.quote_expr(f"{items}[0]")))
            rest = build.quote_expr(f"{items}[1:]")
        step = build.assign(acc, _applied(call.args[0], [build.name(acc), build.name(item)]))
        code.append(gast.For(target=build.name(item, store=True), iter=rest, body=[step],
                             orelse=[], type_comment=None))
        _locate(code, statement)
        before += code
        return build.name(acc)

    def as_loop(self, comprehension, before, statement, result=None):
        """`[elt for t in xs if c]` -> `_list = []; for t' in xs: if c': _list.append(elt')`;
        `{k: v for t in xs}` -> `_dict = {}; for t' in xs: _dict[k'] = v'` (`result`: the
        name to fill instead of a new one)."""
        renamed = {}
        for generator in comprehension.generators:
            for node in walk(generator.target):
                if isinstance(node, gast.Name):
                    renamed[node.id] = self.namer.fresh(node.id)
        if isinstance(comprehension, gast.DictComp):
            result = result or self.namer.fresh("_dict")
            start = gast.Dict(keys=[], values=[])
            inner = self._stored(result, _renamed(comprehension.key, renamed),
                                 _renamed(comprehension.value, renamed))
        else:
            result = result or self.namer.fresh("_list")
            start = gast.List(elts=[], ctx=gast.Load())
            inner = build.quote(f"{result}.append({{e}})", e=_renamed(comprehension.elt, renamed))
        for k, generator in reversed(list(enumerate(comprehension.generators))):
            for condition in reversed(generator.ifs):
                inner = [gast.If(test=_renamed(condition, renamed), body=inner, orelse=[])]
            # the first iterable is evaluated outside the comprehension: its names are the
            # function's (`[v for v in v]`)
            iterable = build.clone(generator.iter) if k == 0 else _renamed(generator.iter, renamed)
            inner = [gast.For(target=_renamed(generator.target, renamed), iter=iterable,
                              body=inner, orelse=[], type_comment=None)]
        code = [build.assign(result, start)] + inner
        _locate(code, statement)
        before += code
        return build.name(result)

    def _stored(self, result, key, value):
        """`result[key] = value`, the key computed first as a dict comprehension does."""
        if isinstance(key, (gast.Name, gast.Constant)):
            return [build.assign(gast.Subscript(value=build.name(result), slice=key,
                                                ctx=gast.Store()), value)]
        held = self.namer.fresh("_key")
        return [build.assign(held, key), build.assign(gast.Subscript(
            value=build.name(result), slice=build.name(held), ctx=gast.Store()), value)]


def functional_call(value, namespace):
    """builtins.map, builtins.filter or functools.reduce where `value` calls one in a form
    lowered here (a function that can be applied in place, or filter's None; reduce with 2
    or 3 arguments), else None."""
    if not (isinstance(value, gast.Call) and value.args and not value.keywords
            and (_applicable(value.args[0]) or _is_none(value.args[0]))):
        return None
    func = value.func
    if isinstance(func, gast.Name):
        called = namespace.get(func.id, getattr(builtins, func.id, None))
    elif isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
        called = getattr(namespace.get(func.value.id), func.attr, None)
    else:
        return None
    if _is_none(value.args[0]):
        return called if called is builtins.filter and len(value.args) == 2 else None
    if called is builtins.map and len(value.args) >= 2:
        return called
    if called is builtins.filter and len(value.args) == 2:
        return called
    if called is functools.reduce and len(value.args) in (2, 3):
        return called
    return None


def _locate(code, statement):
    for s in code:
        for node in walk(s):
            if isinstance(node, (gast.stmt, gast.expr)):
                gast.copy_location(node, statement)


def _is_none(node):
    return isinstance(node, gast.Constant) and node.value is None


def _applicable(function):
    """A function given to map, filter or reduce that can be applied in place: a name or an
    attribute (called), or a lambda of plain positional parameters (its body, arguments
    substituted)."""
    if isinstance(function, gast.Lambda):
        args = function.args
        return not (args.vararg or args.kwarg or args.kwonlyargs or args.defaults
                    or args.posonlyargs)
    return isinstance(function, (gast.Name, gast.Attribute))


def _applied(function, arguments):
    if isinstance(function, gast.Lambda):
        return _renamed(function.body, {p.id: a.id for p, a in zip(function.args.args, arguments)})
    return gast.Call(func=build.clone(function), args=arguments, keywords=[])


def plain_comprehension(comprehension):
    """Only names (or tuples of names) bound, nothing asynchronous, nothing nested in it that
    would need its own scope."""
    return all(not generator.is_async and all(
        isinstance(n, (gast.Name, gast.Tuple, gast.List, gast.Store, gast.Load))
        for n in walk(generator.target)) for generator in comprehension.generators) and \
        not any(isinstance(n, (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.SetComp,
                               gast.DictComp))
                for part in _parts(comprehension) + comprehension.generators
                for n in walk(part) if n is not comprehension)


def _parts(comprehension):
    """What a comprehension computes for each step: its element, or a dict's key and value."""
    if isinstance(comprehension, gast.DictComp):
        return [comprehension.key, comprehension.value]
    return [comprehension.elt]


def _renamed(node, renamed):
    node = build.clone(node)
    for name in walk(node):
        if isinstance(name, gast.Name) and name.id in renamed:
            name.id = renamed[name.id]
    return node
