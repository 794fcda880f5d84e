"""InlineFactories: `g = make(a)` with `make` returning a nested function, then `g(x)` calls.

A closure's captured values travel inside the function object, where a derivative cannot see
them. When `make` is one of the user's functions that ends with `return apply` (a function it
defines) and `g` is bound once at the top of the function and only called, `make`'s body is
copied in place of the binding, its names renamed so they cannot meet the caller's, and the
calls `g(x)` become `apply(x)`: a nested function of the caller, which HoistNestedFunctions
turns into a callee taking the captured values as arguments, so gradients flow through them.
The copied statements are located at the binding, the line the user wrote."""
import copy
import inspect

import gast

from .. import build
from ..analysis.call_results import is_user_function
from ..frontend.parse import parse_function
from ..errors import TransformError
from ..traversal import parameter_names, preorder, rewrite_blocks, walk


class InlineFactories:

    def __init__(self, parsed, namer):
        self.parsed = parsed
        self.namer = namer

    def run(self, body):
        self.whole = body
        return rewrite_blocks(body, self._rewritten)

    def _rewritten(self, statement):
        """`statement` with its factory calls named and inlined."""
        out = []
        for named in self._named_immediate_calls(statement):
            inlined = self._inlined(named, self.whole, fresh=True)
            out += inlined if inlined is not None else [named]
        inlined = self._inlined(statement, self.whole)
        return out + (inlined if inlined is not None else [statement])

    def _named_immediate_calls(self, statement):
        """`y = make(c)(v)`: the made function bound to a name of its own first (`_made =
        make(c)`, then `y = _made(v)`), so that it is inlined like `g = make(c)`."""
        if not isinstance(statement, (gast.Assign, gast.Return, gast.Expr)):
            return []
        named = []
        for node in _evaluated_with(statement):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Call) \
                    and is_user_function(_resolve(node.func.func, self.parsed.namespace)) \
                    and _factory_parts(_resolve(node.func.func, self.parsed.namespace)):
                made = self.namer.fresh("_made")
                named.append(gast.copy_location(build.assign(made, node.func), statement))
                node.func = build.name(made)
        return named

    def _inlined(self, statement, body, fresh=False):
        """The factory's body in place of `g = make(a)` (calls of `g` renamed), or None;
        `fresh`: `g` is a name of ours, called once."""
        if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], gast.Name)
                and isinstance(statement.value, gast.Call)):
            return None
        name = statement.targets[0].id
        factory = _resolve(statement.value.func, self.parsed.namespace)
        if not is_user_function(factory) or not (fresh or _only_called(name, body)):
            return None
        made = _factory_parts(factory)
        if made is None:
            return None
        parsed, returned, factory_body = made
        try:
            bound = inspect.signature(factory).bind(*statement.value.args, **{
                k.arg: k.value for k in statement.value.keywords})
        except TypeError:
            return None
        renamed = self._renaming(parsed, factory, factory_body)
        arguments = [_argument(bound, p, factory) for p in inspect.signature(factory).parameters]
        if renamed is None or None in arguments:
            return None
        code = [build.assign(renamed[p], argument)
                for p, argument in zip(inspect.signature(factory).parameters, arguments)]
        code += [_Rename(renamed).visit(s) for s in factory_body[:-1]]
        for s in code:
            for node in walk(s):
                if isinstance(node, (gast.stmt, gast.expr)):
                    gast.copy_location(node, statement)
        _call_instead(body, name, renamed[returned])
        self.parsed.inlined.append((None, factory))    # stale with its code and defaults
        return code

    def _renaming(self, parsed, factory, factory_body):
        """Every name the factory binds gets a fresh one; None where a global it reads means
        something else (or nothing) where the caller is (a factory from another module)."""
        own = set(inspect.signature(factory).parameters) | _bound(factory_body)
        for name in _free(factory_body) - own:
            value = parsed.namespace.get(name, _MISSING)
            if value is not _MISSING and self.parsed.namespace.get(name, _MISSING) is not value:
                return None
        return {n: self.namer.fresh(n) for n in sorted(own)}


_MISSING = object()
_LITERALS = (int, float, bool, str, type(None))


def _argument(bound, param, factory):
    """The expression the call gives `param`: its argument, or its default written as a
    literal; None for a default that cannot be written so."""
    if param in bound.arguments:
        return bound.arguments[param]
    default = inspect.signature(factory).parameters[param].default
    return gast.Constant(value=default, kind=None) if type(default) in _LITERALS else None


def _resolve(func, namespace):
    if isinstance(func, gast.Name):
        return namespace.get(func.id)
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
        return getattr(namespace.get(func.value.id), func.attr, None)
    return None


def _only_called(name, body):
    """`name` bound once, and read only as the function of a call."""
    stores = loads = called = 0
    for statement in body:
        for node in walk(statement):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                    and node.func.id == name:
                called += 1
            if isinstance(node, gast.Name) and node.id == name:
                stores += not isinstance(node.ctx, gast.Load)
                loads += isinstance(node.ctx, gast.Load)
    return stores == 1 and loads == called > 0


def _factory_parts(factory):
    """(parsed factory, the nested function it returns, a copy of its body) for a factory
    that ends with `return apply` (or `return lambda v: ...`, read as a def of its own),
    returns nowhere else and defines `apply` at its top; else None."""
    if not is_user_function(factory) or getattr(factory.__code__, "co_freevars", ()) or \
            factory.__code__.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        return None
    try:
        parsed = parse_function(factory)
    except TransformError:
        return None
    body = copy.deepcopy(parsed.node.body)
    if body and isinstance(body[-1], gast.Return) and isinstance(body[-1].value, gast.Lambda):
        body[-1:] = _lambda_as_def(body[-1])
    last = body[-1] if body else None
    if not (isinstance(last, gast.Return) and isinstance(last.value, gast.Name)):
        return None
    defined = {s.name for s in body if isinstance(s, gast.FunctionDef) and not s.decorator_list}
    if last.value.id not in defined:
        return None
    for statement in body[:-1]:
        if isinstance(statement, gast.FunctionDef):
            continue
        if any(isinstance(n, (gast.Return, gast.Yield, gast.YieldFrom, gast.Global,
                              gast.Nonlocal, gast.Lambda, gast.FunctionDef))
               for n in walk(statement)):
            return None
    return parsed, last.value.id, body


# expressions evaluated some times only, or in a scope of their own: a call inside them cannot
# be moved before the statement
_CONDITIONAL = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
                gast.IfExp, gast.BoolOp)


def _evaluated_with(statement):
    """The expressions of `statement` that run whenever it runs, once each."""
    return (node for node in preorder(statement, prune=_CONDITIONAL)
            if not isinstance(node, _CONDITIONAL))


def _lambda_as_def(returned):
    """`return lambda v: E` as `def _lambda(v): return E` and `return _lambda`."""
    lam = returned.value
    made = gast.FunctionDef(name="_lambda", args=lam.args, decorator_list=[], returns=None,
                            body=[gast.copy_location(gast.Return(value=lam.body), returned)],
                            type_comment=None, type_params=[])
    return [gast.copy_location(made, returned),
            gast.copy_location(gast.Return(value=build.name("_lambda")), returned)]


def _bound(body):
    """The names the statements bind at their own level (nested functions: their names only)."""
    found = set()
    for statement in body:
        if isinstance(statement, gast.FunctionDef):
            found.add(statement.name)
            continue
        found |= {n.id for n in walk(statement) if isinstance(n, gast.Name)
                  and not isinstance(n.ctx, gast.Load)}
    return found


def _free(body):
    """The names the statements read (inside nested functions: those they do not bind)."""
    found = set()
    for statement in body:
        if isinstance(statement, gast.FunctionDef):
            own = parameter_names(statement) | \
                _bound(statement.body)
            found |= _free(statement.body) - own
            continue
        found |= {n.id for n in walk(statement) if isinstance(n, gast.Name)
                  and isinstance(n.ctx, gast.Load)}
    return found


class _Rename(gast.NodeTransformer):
    """Renames the factory's names; a nested function's own parameters and locals stay."""

    def __init__(self, renamed):
        self.renamed = renamed

    def visit_Name(self, node):
        if node.id in self.renamed:
            node.id = self.renamed[node.id]
        return node

    def visit_FunctionDef(self, node):
        node.name = self.renamed.get(node.name, node.name)
        own = parameter_names(node) | _bound(node.body)
        inner = _Rename({k: v for k, v in self.renamed.items() if k not in own})
        node.body = [inner.visit(s) for s in node.body]
        node.args.defaults = [self.visit(d) for d in node.args.defaults]
        return node


def _call_instead(body, name, function):
    """`name(...)` -> `function(...)` everywhere in `body`; the binding of `name` is dropped
    by the caller."""
    for statement in body:
        for node in walk(statement):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                    and node.func.id == name:
                node.func = build.name(function)
