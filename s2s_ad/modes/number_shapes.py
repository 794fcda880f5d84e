"""Leaving out the broadcasting helpers where the shapes are known to agree: `unbroadcast(E,
x)` and `broadcast_like(E, y)` are `E` where E has the shape of x (or y) already, because both
are numbers or arrays of one argument's shape (analysis/shapes.py says which names are)."""
import math

import gast
import numpy as np

from .. import build, runtime
from ..analysis.dims import NUMBER, OTHER_THAN_1, broadcast, matmul
from ..optimize.fold_constants import FoldConstants
from ..traversal import rewrite

_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod)


class DerivativeShapes:
    """The shape token of a value or of a derivative: `owner(name)` gives the value a
    derivative's name belongs to (None for a value's own name)."""

    def __init__(self, shapes, owner):
        self.shapes = shapes
        self.owner = owner

    def __call__(self, name):
        owner = self.owner(name)
        return self.shapes.token(name if owner is None else owner)


class KnownShapes:
    """Simplifies derivative expressions; `token_of(name)` is a name's shape token (None:
    not known), `resolve(node)` the object a generated name stands for."""

    def __init__(self, token_of, resolve, helpers, helper=None, distinct=None, range_part=None):
        self.token_of = token_of
        self.resolve = resolve
        self.helpers = helpers            # the broadcasting helpers that may be left out
        self.helper = helper              # a run-time helper's name in the generated code
        self.distinct = distinct          # index -> does it pick no position twice?
        self.range_part = range_part      # index -> the position of its np.arange part, or None

    def simplified(self, expression, known=None):
        """`expression` without its outer broadcasting helper where the helper changes
        nothing; `known` gives more names' tokens (an incoming derivative)."""
        known = known or {}
        if isinstance(expression, gast.UnaryOp) and isinstance(expression.op, gast.USub):
            operand = self.simplified(expression.operand, known)     # `-unbroadcast(E, x)`
            return expression if operand is expression.operand else \
                gast.UnaryOp(op=gast.USub(), operand=operand)
        if isinstance(expression, gast.Call) and len(expression.args) == 3 and \
                not expression.keywords:
            if self._object(expression.func) is runtime.scatter:
                return self._scatter(expression, known)
            return self._matrix_product(expression, known)
        if not (isinstance(expression, gast.Call) and len(expression.args) == 2
                and not expression.keywords and
                any(self._object(expression.func) is h for h in self.helpers)):
            return expression
        partial, like = expression.args
        token = self.token(partial, known)
        if token is None or not isinstance(like, gast.Name):
            return expression
        like_token = self._name(like, known)
        if token == like_token:
            return partial
        if self._object(expression.func) is runtime.unbroadcast:
            return summed(partial, token, like_token) or expression
        return expression

    def _matrix_product(self, expression, known):
        """`matmul_grad_a(g, a, b)` is `g @ b.T`, and `matmul_grad_b(g, a, b)` is `a.T @ g`,
        where `a` and `b` are known matrices (2-D) and `g` has the shape of `a @ b`: then the
        product has the operand's shape, and the helper's cases and its unbroadcast are
        nothing but cost."""
        function = self._object(expression.func)
        if not any(function is f for f in (runtime.matmul_grad_a, runtime.matmul_grad_b)) or \
                not all(isinstance(a, gast.Name) for a in expression.args):
            return expression
        g, a, b = expression.args
        a_token, b_token = self._name(a, known), self._name(b, known)
        if not (isinstance(a_token, tuple) and len(a_token) == 2 and isinstance(b_token, tuple)
                and len(b_token) == 2 and self._name(g, known) == matmul(a_token, b_token)):
            return expression
        if function is runtime.matmul_grad_a:
            return build.quote_expr(f"{g.id} @ {b.id}.T")
        return build.quote_expr(f"{a.id}.T @ {g.id}")

    def _scatter(self, expression, known):
        """`scatter(x, index, g)` at positions that never repeat (`x[np.arange(n), y]`) is a
        store into zeros, not np.add.at's accumulation, where `x` is an array (scatter_distinct
        asks that at run time where its shape is not known here: a value a callee returned)."""
        x, index, g = expression.args
        if self.distinct is None or self.helper is None or not isinstance(x, gast.Name):
            return expression
        if self.distinct(index):
            return gast.Call(func=build.name(self.helper(runtime.scatter_distinct)),
                             args=list(expression.args), keywords=[])
        part = self.range_part(index) if self.range_part is not None else None
        if part is None:
            return expression
        return gast.Call(func=build.name(self.helper(runtime.scatter_by_range)), keywords=[],
                         args=list(expression.args) + [gast.Constant(value=part, kind=None)])

    def token(self, node, known):
        """The shape token of an expression made by arithmetic and elementwise math."""
        if isinstance(node, gast.Constant):
            return NUMBER if type(node.value) in (int, float, bool) else None
        if isinstance(node, gast.Name):
            return self._name(node, known)
        if isinstance(node, gast.UnaryOp):
            return self.token(node.operand, known) \
                if isinstance(node.op, (gast.USub, gast.UAdd)) else None
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Pow):
            base = self.token(node.left, known)
            if _is_integer_constant(node.right):
                return base
            # a real power of a number may be complex: its helper keeps the check
            return broadcast([base, self.token(node.right, known)], numbers=False)
        if isinstance(node, gast.BinOp) and isinstance(node.op, _ARITHMETIC):
            return broadcast([self.token(node.left, known), self.token(node.right, known)])
        if isinstance(node, gast.Call) and not node.keywords and node.args:
            function = self._object(node.func)
            tokens = [self.token(a, known) for a in node.args]
            if isinstance(function, np.ufunc) and function.nout == 1 and function.signature is None:
                return broadcast(tokens)            # elementwise (not a gufunc like matmul)
            if function is abs or getattr(function, "__self__", None) is math:
                return NUMBER if all(t == NUMBER for t in tokens) else None
        return None

    def _name(self, name, known):
        return known[name.id] if name.id in known else self.token_of(name.id)

    def _object(self, node):
        try:
            return self.resolve(node)
        except (LookupError, AttributeError):
            return None


def summed(partial, token, like):
    """`unbroadcast(partial, x)` as the sums it comes to, where `partial` (of `token`) was
    broadcast from `x` (of `like`) and both shapes are known to the axis: the helper's cases
    and its reading of shapes are cost in the small programs where a call's fixed cost counts.
    None where the shapes do not say (an axis of `like` that `partial` lacks or that differs)."""
    if not isinstance(token, tuple) or not _known(token) or \
            not (like == NUMBER or isinstance(like, tuple) and _known(like)):
        return None
    like = () if like == NUMBER else like
    extra = len(token) - len(like)
    # (an axis known only not to be 1 is the size of the other operand's that it met)
    if extra < 0 or any(n != 1 and n != m and OTHER_THAN_1 not in (n, m)
                        for n, m in zip(like, token[extra:])):
        return None
    stretched = tuple(extra + k for k, n in enumerate(like) if n == 1 and token[extra + k] != 1)
    if stretched:
        partial = _sum(partial, stretched, keepdims=True)
    return _sum(partial, tuple(range(extra))) if extra else partial


def _known(token):
    return all(n == 1 or type(n) is str for n in token)


def _sum(value, axes, keepdims=False):
    """`value.sum(axis=axes)`; `value.sum()` over all of them (a number, as np.sum gives)."""
    keywords = [gast.keyword(arg="axis", value=gast.Constant(value=axes[0], kind=None)
                             if len(axes) == 1 else build.quote_expr(repr(axes)))]
    if keepdims:
        keywords.append(gast.keyword(arg="keepdims", value=gast.Constant(value=True, kind=None)))
    return gast.Call(func=gast.Attribute(value=value, attr="sum", ctx=gast.Load()), args=[],
                     keywords=keywords)


def _is_integer_constant(node):
    """Integer literals and arithmetic or comparisons on them: `y - (y != 0)` of the power
    rule instantiated for `x ** 2`, folded as the optimizer folds it."""
    folded = rewrite(build.clone(node), {gast.BinOp: FoldConstants.fold,
                                         gast.Compare: FoldConstants.fold_compare})
    if isinstance(folded, gast.UnaryOp) and isinstance(folded.op, gast.USub):
        folded = folded.operand
    return isinstance(folded, gast.Constant) and type(folded.value) in (int, bool)
