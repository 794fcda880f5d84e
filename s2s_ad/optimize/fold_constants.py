"""FoldConstants: evaluate arithmetic on literals and drop multiplications by one."""
import operator

import gast

from ..traversal import rewrite

_FOLD = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
         gast.Pow: operator.pow}


_COMPARE = {gast.Eq: operator.eq, gast.NotEq: operator.ne}


def _number(node):
    # bool too: a folded comparison (`2 != 0`) takes part in arithmetic as Python's 1 or 0
    return isinstance(node, gast.Constant) and type(node.value) in (int, float, bool)


class FoldConstants:
    """`2 - 1` -> `1`, `x ** 1` -> `x`, `x * 1` -> `x`, `1 * x` -> `x`."""

    def run(self, function, also=None):
        """Fold `function` in place; `also` ({class: rewrite}) rides along on the same walk."""
        return rewrite(function, {**(also or {}), gast.BinOp: self.fold,
                                  gast.Compare: self.fold_compare})

    @staticmethod
    def fold_compare(node):
        """`2 != 0` -> `True` (rules write `y - (y != 0)` for an exponent `y`)."""
        if len(node.ops) == 1 and type(node.ops[0]) in _COMPARE and _number(node.left) \
                and _number(node.comparators[0]):
            value = _COMPARE[type(node.ops[0])](node.left.value, node.comparators[0].value)
            return gast.Constant(value=value, kind=None)
        return node

    @staticmethod
    def fold(node):
        left, right = node.left, node.right
        if _number(left) and _number(right) and type(node.op) in _FOLD:
            value = _FOLD[type(node.op)](left.value, right.value)
            if type(value) in (int, float) and abs(value) < 1e15:
                return gast.Constant(value=value, kind=None)
        if isinstance(node.op, (gast.Pow, gast.Mult, gast.Div)) and _number(right) \
                and right.value == 1 and type(right.value) is int:
            return left
        if isinstance(node.op, gast.Mult) and _number(left) and left.value == 1 \
                and type(left.value) is int:
            return right
        return node
