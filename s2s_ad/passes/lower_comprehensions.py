"""LowerComprehensions: a list comprehension or generator expression becomes a loop that
appends to a list, which both modes differentiate (`hs = [np.tanh(W @ x) for x in xs]`,
`sum(np.sum(v ** 2) for v in vs)`).

The list is built just before the statement that holds the comprehension, so only where that
keeps the order of evaluation: not in a `while` test (evaluated again each step), nor inside
a lambda, a conditional expression or `and` / `or` (which may not evaluate it). The names a
comprehension binds are its own: they are renamed, so that they cannot change the function's."""
import gast

from .. import build
from ..traversal import StatementTransformer, walk

_NOT_ENTERED = (gast.Lambda, gast.IfExp, gast.BoolOp, gast.ListComp, gast.GeneratorExp,
                gast.SetComp, gast.DictComp)


class LowerComprehensions(StatementTransformer):

    def __init__(self, namer):
        self.namer = namer

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
        before = []
        for field in node._fields:
            if field in ("body", "orelse"):
                continue
            setattr(node, field, self._lowered(getattr(node, field), before, node))
        node = self.generic_visit(node)
        return before + [node] if before else node

    def _lowered(self, value, before, statement):
        if isinstance(value, list):
            return [self._lowered(v, before, statement) for v in value]
        if isinstance(value, (gast.ListComp, gast.GeneratorExp)) and _plain(value):
            return self._as_loop(value, before, statement)
        if not isinstance(value, gast.expr) or isinstance(value, _NOT_ENTERED):
            return value
        for field in value._fields:
            setattr(value, field, self._lowered(getattr(value, field), before, statement))
        return value

    def _as_loop(self, comprehension, before, statement):
        """`[elt for t in xs if c]` -> `_list = []; for t' in xs: if c': _list.append(elt')`."""
        renamed = {}
        for generator in comprehension.generators:
            for node in walk(generator.target):
                if isinstance(node, gast.Name):
                    renamed[node.id] = self.namer.fresh(node.id)
        result = self.namer.fresh("_list")
        inner = build.quote(f"{result}.append({{e}})", e=_renamed(comprehension.elt, renamed))
        for generator in reversed(comprehension.generators):
            for condition in reversed(generator.ifs):
                inner = [gast.If(test=_renamed(condition, renamed), body=inner, orelse=[])]
            inner = [gast.For(target=_renamed(generator.target, renamed),
                              iter=_renamed(generator.iter, renamed), body=inner, orelse=[],
                              type_comment=None)]
        code = [build.assign(result, gast.List(elts=[], ctx=gast.Load()))] + inner
        for s in code:
            for node in walk(s):
                if isinstance(node, (gast.stmt, gast.expr)):
                    gast.copy_location(node, statement)
        before += code
        return build.name(result)


def _plain(comprehension):
    """Only names (or tuples of names) bound, nothing asynchronous, nothing nested in it that
    would need its own scope."""
    return all(not generator.is_async and all(
        isinstance(n, (gast.Name, gast.Tuple, gast.List, gast.Store, gast.Load))
        for n in walk(generator.target)) for generator in comprehension.generators) and \
        not any(isinstance(n, (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.SetComp,
                               gast.DictComp, gast.NamedExpr))
                for part in [comprehension.elt] + comprehension.generators
                for n in walk(part) if n is not comprehension)


def _renamed(node, renamed):
    node = build.clone(node)
    for name in walk(node):
        if isinstance(name, gast.Name) and name.id in renamed:
            name.id = renamed[name.id]
    return node
