"""HoistNestedFunctions: a nested `def` (or a lambda bound to a name) becomes a callee of its own,
with the variables it captures passed as leading arguments, so gradients flow through them."""
import ast
import copy

import gast

from .. import build
from ..frontend.parse import ParsedFunction, register_synthetic


def _loads(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _stores(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, (gast.Store, gast.Param))}


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
        outer_names = set(params) | set(self.parsed.closure)
        for statement in body:
            outer_names |= _stores(statement) if not isinstance(statement, gast.FunctionDef) else {statement.name}
        bound = {}
        for name, node in nested.items():
            if not self._only_called(name, body, nested):
                continue           # passed around or rebound: RefuseUnsupported explains
            inner = set(a.id for a in node.args.args + node.args.kwonlyargs) | _stores(
                gast.Module(body=node.body, type_ignores=[]))
            captured = sorted((_loads(node) & outer_names) - inner - set(nested))
            hoisted_name = name if name not in self.parsed.namespace else self.namer.fresh(name + "_")
            function = self._compile(node, hoisted_name, captured)
            bound[hoisted_name] = function
            self.parsed.namespace[hoisted_name] = function
            body = [s for s in body if s is not node and not (getattr(s, "hoisted", False)
                                                              and s.targets[0].id == name)]
            body = [self._pass_captured(s, name, hoisted_name, captured) for s in body]
        return body, bound

    def _only_called(self, name, body, nested):
        calls = set()
        for statement in body:
            if statement is nested.get(name):
                continue
            for node in gast.walk(statement):
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == name:
                    calls.add(id(node.func))
            for node in gast.walk(statement):
                if isinstance(node, gast.Name) and node.id == name and id(node) not in calls:
                    if not getattr(statement, "hoisted", False):
                        return False
        return True

    def _compile(self, node, name, captured):
        node = copy.deepcopy(node)
        node.name = name
        node.args.args = [build.name(c, store=False) for c in captured] + node.args.args
        for arg in node.args.args[:len(captured)]:
            arg.ctx = gast.Param()
        tree = gast.gast_to_ast(gast.Module(body=[copy.deepcopy(node)], type_ignores=[]))
        ast.fix_missing_locations(tree)
        ast.increment_lineno(tree, self.parsed.first_line - 1)
        scope = {}
        exec(compile(tree, self.parsed.filename, "exec"), self.parsed.fn.__globals__, scope)
        function = scope[name]
        register_synthetic(function, ParsedFunction(
            fn=function, node=node, filename=self.parsed.filename, first_line=self.parsed.first_line,
            indent=self.parsed.indent, namespace=self.parsed.namespace, closure={}))
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
