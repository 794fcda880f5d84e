"""Small constructors for gast nodes, so transformers read like the code they emit."""
import ast

import gast

from .standard_ast import to_ast


_LOAD, _STORE = gast.Load(), gast.Store()     # no fields, never changed: shared


def name(identifier, store=False):
    return gast.Name(id=identifier, ctx=_STORE if store else _LOAD, annotation=None,
                     type_comment=None)


def assign(target, value):
    if isinstance(target, str):
        target = name(target, store=True)
    return gast.Assign(targets=[target], value=value, type_comment=None)


def quote(source, **nodes):
    """Parse `source` (statements) with `{key}` holes filled by identifiers or gast expressions.

    Expressions are substituted after parsing, so any expression may fill a hole.
    """
    holes = {}
    text = source
    for key, value in nodes.items():
        if isinstance(value, str):
            text = text.replace("{" + key + "}", value)
        else:
            placeholder = f"__hole_{key}__"
            holes[placeholder] = value
            text = text.replace("{" + key + "}", placeholder)
    statements = gast.parse(text).body

    class Fill(gast.NodeTransformer):
        def visit_Name(self, node):
            if node.id in holes:
                return clone(holes[node.id])
            return node

    return [Fill().visit(s) for s in statements]


def quote_expr(source, **nodes):
    return quote(source, **nodes)[0].value


def to_index_value(node):
    """A subscript's slice as an ordinary expression (`a:b` -> `slice(a, b)`)."""
    if isinstance(node, gast.Slice):
        parts = [p if p is not None else gast.Constant(value=None, kind=None)
                 for p in (node.lower, node.upper, node.step)]
        if node.step is None:
            parts.pop()          # slice(a, b); never slice(a), which would mean :a
        return gast.Call(func=name("slice"), args=[clone(p) for p in parts], keywords=[])
    if isinstance(node, gast.Tuple):
        return gast.Tuple(elts=[to_index_value(e) for e in node.elts], ctx=gast.Load())
    return clone(node)


def comment(text):
    """A marker statement that emit.py turns into a `# text` comment line."""
    return gast.Expr(value=gast.Constant(value="\0comment\0" + text, kind=None))


def clone(node):
    """A copy of a gast tree (or list of trees); several times faster than copy.deepcopy.

    Contexts and operators (`Load`, `Mult`), which have no fields and are never changed in
    place, are shared rather than copied."""
    if isinstance(node, list):
        return [clone(n) for n in node]
    if not isinstance(node, gast.AST) or not node._fields:
        return node
    new = node.__class__.__new__(node.__class__)
    fields = new.__dict__
    for name, value in node.__dict__.items():
        fields[name] = clone(value) if isinstance(value, (list, gast.AST)) else value
    return new


def unparse(node):
    """Python source text of a gast expression."""
    return ast.unparse(to_ast(node))
