"""LowerNoGrad: `with s2s_ad.no_grad():` blocks become their body, every value a constant."""
import gast

from .. import build
from ..traversal import StatementTransformer


class LowerNoGrad(StatementTransformer):
    """Inline `with no_grad():` bodies, wrapping each assigned value in stop_gradient."""

    def __init__(self, is_no_grad, stop_gradient_name):
        self.is_no_grad = is_no_grad
        self.stop_gradient_name = stop_gradient_name
        self.depth = 0

    def visit_With(self, node):
        if not all(self.is_no_grad(item) for item in node.items):
            return node
        self.depth += 1
        body = [self.visit(s) for s in node.body]
        self.depth -= 1
        flat = []
        for s in body:
            flat += s if isinstance(s, list) else [s]
        return flat

    def visit_Assign(self, node):
        if self.depth:
            node.value = gast.Call(func=build.name(self.stop_gradient_name), args=[node.value], keywords=[])
        return node

    def visit_AugAssign(self, node):
        if self.depth:
            load = gast.Name(id=node.target.id, ctx=gast.Load(), annotation=None, type_comment=None) \
                if isinstance(node.target, gast.Name) else None
            if load is not None:
                value = gast.BinOp(left=load, op=node.op, right=node.value)
                return gast.copy_location(build.assign(node.target, gast.Call(
                    func=build.name(self.stop_gradient_name), args=[value], keywords=[])), node)
        return node
