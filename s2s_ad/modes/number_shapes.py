"""Leaving out the broadcasting helpers where every value involved is a real number: with
shape () everywhere nothing was stretched, so `unbroadcast(E, x)` and `broadcast_like(E, y)`
are `E` (analysis/shapes.py says which names hold numbers)."""
import ast
import math

import gast
import numpy as np

_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod)


class NumberNames:
    """The names of values that are real numbers (analysis.shapes.ShapeFacts) and of their
    derivatives (`owners`: a derivative's name -> its value's), as a container."""

    def __init__(self, shapes, owners):
        self.shapes = shapes
        self.owners = owners

    def __contains__(self, name):
        return self.shapes.is_number(name) or self.shapes.is_number(self.owners.get(name))


class NumberCode:
    """Simplifies derivative expressions; `numbers` holds the names (values and derivatives)
    known to be real numbers, `resolve(node)` gives the object a generated name stands for."""

    def __init__(self, numbers, resolve, helpers):
        self.numbers = numbers
        self.resolve = resolve
        self.helpers = helpers            # the broadcasting helpers that may be left out

    def simplified(self, expression, numbers=()):
        """`expression` without its outer broadcasting helper where the helper changes
        nothing; `numbers` names more number-valued names (an incoming derivative)."""
        if not (isinstance(expression, gast.Call) and len(expression.args) == 2
                and not expression.keywords and self._object(expression.func) in self.helpers):
            return expression
        partial, like = expression.args
        known = set(numbers)
        if isinstance(like, gast.Name) and self._is_number(like, known) and \
                self.is_number(partial, known):
            return partial
        return expression

    def is_number(self, node, more=frozenset()):
        """Is `node` made only of real numbers by arithmetic and elementwise math?"""
        if isinstance(node, gast.Constant):
            return type(node.value) in (int, float, bool)
        if isinstance(node, gast.Name):
            return self._is_number(node, more)
        if isinstance(node, gast.UnaryOp):
            return isinstance(node.op, (gast.USub, gast.UAdd)) and self.is_number(node.operand, more)
        if isinstance(node, gast.BinOp):
            if isinstance(node.op, gast.Pow) and _is_integer_constant(node.right):
                return self.is_number(node.left, more)
            return isinstance(node.op, _ARITHMETIC) and \
                self.is_number(node.left, more) and self.is_number(node.right, more)
        if isinstance(node, gast.Call) and not node.keywords and node.args:
            function = self._object(node.func)
            elementwise = function is abs or isinstance(function, np.ufunc) and function.nout == 1 \
                or getattr(function, "__self__", None) is math
            return elementwise and all(self.is_number(a, more) for a in node.args)
        return False

    def _is_number(self, name, more):
        return name.id in more or name.id in self.numbers

    def _object(self, node):
        try:
            return self.resolve(node)
        except (LookupError, AttributeError):
            return None



def _is_integer_constant(node):
    """Integer literals and arithmetic or comparisons on them: `y - (y != 0)` of the power
    rule instantiated for `x ** 2`."""
    allowed = (gast.Constant, gast.BinOp, gast.UnaryOp, gast.Compare, gast.operator,
               gast.unaryop, gast.cmpop, gast.expr_context)
    if not all(isinstance(n, allowed) for n in gast.walk(node)):
        return False
    try:
        expression = ast.fix_missing_locations(ast.Expression(gast.gast_to_ast(node)))
        value = eval(compile(expression, "<exponent>", "eval"),
                     {"__builtins__": {}})
    except Exception:               # noqa: BLE001 - a constant that does not evaluate
        return False
    return type(value) in (int, bool)
