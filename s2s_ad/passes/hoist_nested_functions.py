"""HoistNestedFunctions: a nested `def` (or a lambda bound to a name) becomes a callee of its own,
with the variables it captures passed as leading arguments, so gradients flow through them."""
import ast
import copy

import gast

from .. import build
from ..frontend.parse import ParsedFunction, register_synthetic
from ..traversal import loads, walk


def _stores(node):
    return {n.id for n in walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, (gast.Store, gast.Param))}


def _called(node):
    return {n.func.id for n in walk(node) if isinstance(n, gast.Call) and isinstance(n.func, gast.Name)}


class HoistNestedFunctions:
    """Move nested functions out of `parsed`'s body; returns (body, names to bind)."""

    def __init__(self, parsed, namer):
        self.parsed = parsed
        self.namer = namer

    def run(self, body, params):
        nested = {}
        for statement in body:
            if isinstance(statement, gast.FunctionDef) and not statement.decorator_list:
                nested[statement.name] = statement
            elif isinstance(statement, gast.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], gast.Name) \
                    and isinstance(statement.value, gast.Lambda):
                lam = statement.value
                node = gast.FunctionDef(name=statement.targets[0].id, args=lam.args,
                                        body=[gast.copy_location(gast.Return(value=lam.body), lam.body)],
                                        decorator_list=[], returns=None, type_comment=None,
                                        type_params=[])
                nested[statement.targets[0].id] = gast.copy_location(node, statement)
                statement.hoisted = True
        if not nested:
            return body, {}
        for node in nested.values():
            for inner in walk(node):
                if isinstance(inner, (gast.Nonlocal, gast.Global)):
                    keyword = "nonlocal" if isinstance(inner, gast.Nonlocal) else "global"
                    raise self.parsed.error(
                        inner, f"`{keyword}` in a nested function is not supported: it changes "
                        f"a variable of the enclosing function behind the transformer's back",
                        hint="return the new value from the nested function and assign it")
        outer_names = set(params) | set(self.parsed.closure)
        for statement in body:
            outer_names |= _stores(statement) if not isinstance(statement, gast.FunctionDef) else {statement.name}
        hoistable = {name: node for name, node in nested.items() if self._only_called(name, body, nested)}
        for name, node in hoistable.items():
            self._refuse_defaults_reading(node, name, outer_names)
        # a nested function that calls another one needs that one's captured variables too
        calls = {name: _called(node) & set(hoistable) - {name} for name, node in hoistable.items()}
        captured, hoisted_names, bound = {}, {}, {}
        while True:
            ready = [n for n in hoistable if n not in hoisted_names and calls[n] <= set(captured)]
            if not ready:
                break                 # what is left calls itself round in a circle: refused later
            for name in ready:
                node = hoistable[name]
                inner = set(a.id for a in node.args.args + node.args.kwonlyargs) | _stores(
                    gast.Module(body=node.body, type_ignores=[]))
                captured[name] = sorted(((loads(node) & outer_names) - inner - set(nested)).union(
                    *(captured[c] for c in calls[name])))
                hoisted_names[name] = name if name not in self.parsed.namespace \
                    else self.namer.fresh(name + "_")
                node = copy.deepcopy(node)
                for callee in calls[name]:
                    node.body = [self._pass_captured(s, callee, hoisted_names[callee], captured[callee])
                                 for s in node.body]
                function = self._compile(node, hoisted_names[name], captured[name],
                                         {hoisted_names[c]: bound[hoisted_names[c]] for c in calls[name]})
                bound[hoisted_names[name]] = function
                self.parsed.namespace[hoisted_names[name]] = function
        for name, hoisted_name in hoisted_names.items():
            body = [s for s in body if s is not nested[name] and not (
                getattr(s, "hoisted", False) and s.targets[0].id == name)]
            body = [self._pass_captured(s, name, hoisted_name, captured[name]) for s in body]
        return body, bound

    def _refuse_defaults_reading(self, node, name, outer_names):
        """`def g(v, s=s)`: the default is the enclosing function's `s` when `g` is defined,
        which the hoisted function, compiled on its own, cannot read."""
        defaults = node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
        read = sorted(set().union(*(loads(d) for d in defaults)) & outer_names) if defaults else []
        if read:
            raise self.parsed.error(
                node, f"cannot differentiate `{name}`: a default value of its parameters reads "
                f"`{read[0]}`, a variable of the enclosing function",
                hint=f"pass `{read[0]}` at the call instead (`{name}(..., {read[0]})`)")

    def _only_called(self, name, body, nested):
        calls = set()
        for statement in body:
            if statement is nested.get(name):
                continue
            for node in walk(statement):
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == name:
                    calls.add(id(node.func))
            for node in walk(statement):
                if isinstance(node, gast.Name) and node.id == name and id(node) not in calls:
                    if not getattr(statement, "hoisted", False):
                        return False
        return True

    def _compile(self, node, name, captured, callees):
        """The hoisted function, compiled in the user's file; the nested functions it calls
        are closure variables of it, as they were of the original."""
        node = copy.deepcopy(node)
        node.name = name
        node.args.args = [build.name(c, store=False) for c in captured] + node.args.args
        for arg in node.args.args[:len(captured)]:
            arg.ctx = gast.Param()
        factory = gast.FunctionDef(
            name="__hoist", args=gast.arguments(
                args=[gast.Name(id=c, ctx=gast.Param(), annotation=None, type_comment=None)
                      for c in callees], posonlyargs=[], vararg=None, kwonlyargs=[],
                kw_defaults=[], kwarg=None, defaults=[]),
            body=[copy.deepcopy(node), gast.Return(value=build.name(name))], decorator_list=[],
            returns=None, type_comment=None, type_params=[])
        tree = gast.gast_to_ast(gast.Module(body=[factory], type_ignores=[]))
        ast.fix_missing_locations(tree)
        ast.increment_lineno(tree, self.parsed.first_line - 1)
        scope = {}
        exec(compile(tree, self.parsed.filename, "exec"), self.parsed.fn.__globals__, scope)
        function = scope["__hoist"](*callees.values())
        register_synthetic(function, ParsedFunction(
            fn=function, node=node, filename=self.parsed.filename, first_line=self.parsed.first_line,
            indent=self.parsed.indent, namespace=self.parsed.namespace, closure=dict(callees)))
        return function

    @staticmethod
    def _pass_captured(statement, name, hoisted_name, captured):
        class Rewrite(gast.NodeTransformer):
            def visit_Call(self, node):
                self.generic_visit(node)
                if isinstance(node.func, gast.Name) and node.func.id == name:
                    node.func = build.name(hoisted_name)
                    node.args = [build.name(c) for c in captured] + node.args
                return node

        return Rewrite().visit(statement)
