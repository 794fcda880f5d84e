"""gast trees as standard-library `ast` trees, for `ast.unparse`.

`gast.gast_to_ast` does this through a generic visitor and copies locations node by node; the
generated code of a 2,000-line function has 200,000 nodes, and the emitted text needs no
locations (only a line number on statements), so this converts field by field, with the
class pairs looked up once.
"""
import ast
import math

import gast

# contexts and operators carry no state: one instance serves every use, as in `ast.parse`
_STATELESS = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
_SHARED = {cls: getattr(ast, cls.__name__)() for cls in vars(gast).values()
           if isinstance(cls, type) and issubclass(getattr(ast, cls.__name__, type), _STATELESS)}
_classes = {}


def _class_of(cls):
    """The `ast` class for a gast class, the fields both have, and whether it is a statement."""
    target = getattr(ast, cls.__name__)
    fields = tuple(f for f in cls._fields if f in target._fields)
    known = _classes[cls] = (target, fields, issubclass(target, ast.stmt))
    return known


def to_ast(node):
    """The `ast` tree (or list of trees) for a gast tree, without source locations."""
    if node.__class__ is list:
        return [to_ast(item) if isinstance(item, gast.AST) else item for item in node]
    cls = node.__class__
    if cls is gast.Name:
        if node.ctx.__class__ is gast.Param:
            return ast.arg(arg=node.id, type_comment=node.type_comment,
                           annotation=None if node.annotation is None else to_ast(node.annotation))
        return ast.Name(id=node.id, ctx=_SHARED[node.ctx.__class__])
    if cls is gast.Constant:
        return ast.Constant(value=node.value, kind=node.kind)
    shared = _SHARED.get(cls)
    if shared is not None:
        return shared
    target, fields, statement = _classes.get(cls) or _class_of(cls)
    converted = {}
    for field in fields:
        value = getattr(node, field)
        kind = value.__class__
        if kind is list:
            converted[field] = [to_ast(item) if isinstance(item, gast.AST) else item for item in value]
        elif kind is gast.Name and value.ctx.__class__ is not gast.Param:
            converted[field] = ast.Name(id=value.id, ctx=_SHARED[value.ctx.__class__])   # inlined
        elif isinstance(value, gast.AST):
            converted[field] = to_ast(value)
        else:
            converted[field] = value         # str, number, None: a field's plain value
    new = target(**converted)
    if statement:
        new.lineno = 1                       # `ast.unparse` looks up type comments by line
    if cls is gast.ExceptHandler and new.name is not None:
        new.name = new.name.id
    elif cls is gast.BinOp and new.op.__class__ is ast.Pow and _is_negative(new.left):
        # folding may leave a negative number as the base of `**`, which `ast.unparse` writes
        # without the parentheses `(-0.5) ** 2` needs
        new.left = ast.UnaryOp(op=ast.USub(), operand=ast.Constant(-new.left.value))
    return new


def _is_negative(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
        and not isinstance(node.value, bool) and math.copysign(1.0, node.value) < 0
