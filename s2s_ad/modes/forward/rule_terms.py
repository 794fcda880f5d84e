"""Tree surgery on an instantiated tangent rule: its signed terms, the terms that read a zero,
the rule parameters a call site leaves at their default, and template temporaries left unused.
"""
import gast

from ... import build
from ...instantiate import call_signature, literal
from ...traversal import loads, walk

# stands for the tangent of an input that has none: terms that read it are dropped
ZERO = "__s2s_zero_tangent__"


def mentions(node, names):
    return any(isinstance(n, gast.Name) and n.id in names for n in walk(node))


def contains_zero(node):
    return any(isinstance(n, gast.Name) and n.id.startswith(ZERO) for n in walk(node))


class FillZeros(gast.NodeTransformer):
    """Each ZERO marker replaced by the zero tangent of the operand it stands for."""

    def __init__(self, zeros, zero_of):
        self.zeros = zeros
        self.zero_of = zero_of

    def visit_Name(self, node):
        atom = self.zeros.get(node.id)
        return node if atom is None else self.zero_of(atom)


def split_terms(expression, sign=1):
    """Split a tangent rule's right-hand side into signed terms."""
    if isinstance(expression, gast.BinOp) and isinstance(expression.op, (gast.Add, gast.Sub)):
        right = -sign if isinstance(expression.op, gast.Sub) else sign
        return split_terms(expression.left, sign) + split_terms(expression.right, right)
    if isinstance(expression, gast.UnaryOp) and isinstance(expression.op, gast.USub) and \
            isinstance(expression.operand, gast.BinOp) and \
            isinstance(expression.operand.op, (gast.Add, gast.Sub)):
        return split_terms(expression.operand, -sign)
    return [(sign, expression)]


def sum_terms(terms):
    """The inverse of split_terms: `a - b + c` from [(1, a), (-1, b), (1, c)]."""
    total = None
    for sign, term in terms:
        if total is None:
            total = term if sign > 0 else gast.UnaryOp(op=gast.USub(), operand=term)
        else:
            total = gast.BinOp(left=total, op=gast.Add() if sign > 0 else gast.Sub(), right=term)
    return total


def defaulted_parameters(rule, args, keywords):
    """{parameter: default} for the rule's parameters this call site leaves at their default."""
    if not rule.defaults:
        return {}
    signature, _ = call_signature(rule)
    parameters = signature.parameters.values()
    try:
        passed = signature.bind(*range(len(args)), **dict.fromkeys(keywords, 0))
    except TypeError:
        return {}
    return {p.name: p.default for p in parameters if p.name not in passed.arguments
            and p.default is not p.empty and p.kind is not p.VAR_KEYWORD}


def default_marker(name):
    """The placeholder a defaulted parameter is instantiated as, for OmitDefaults to find."""
    return build.name(f"__default_{name}__")


class OmitDefaults(gast.NodeTransformer):
    """`np.sum(t, axis=None)` -> `np.sum(t)` where the call site left `axis` at its default."""

    def __init__(self, defaults):
        self.defaults = defaults

    def _marker(self, node):
        if isinstance(node, gast.Name) and node.id.startswith("__default_"):
            return node.id[len("__default_"):-2]
        return None

    def visit_Call(self, node):
        node.keywords = [k for k in node.keywords if self._marker(k.value) is None]
        return self.generic_visit(node)

    def visit_Name(self, node):
        name = self._marker(node)
        if name is None:
            return node
        return literal(self.defaults[name])


class RenameVariable(gast.NodeTransformer):
    def __init__(self, old, new):
        self.old, self.new = old, new

    def visit_Name(self, node):
        if node.id == self.old:
            return build.name(self.new, store=isinstance(node.ctx, gast.Store))
        return node


def drop_unused_locals(code):
    """Template temporaries whose every use was dropped with a zero term."""
    while True:
        used = set()
        for statement in code:
            used |= loads(statement)
        keep = [s for s in code if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                                        and s.targets[0].id.startswith("_")
                                        and s.targets[0].id not in used)]
        if len(keep) == len(code):
            return code
        code = keep
