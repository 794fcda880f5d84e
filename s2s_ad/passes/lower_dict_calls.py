"""LowerDictCalls: `dict(w=a, b=c)` is the display `{'w': a, 'b': c}`, which has rules."""
import builtins

import gast

from ..traversal import rewrite


class LowerDictCalls:
    """`resolve(node)` is the object a global name stands for, or raises LookupError."""

    def __init__(self, resolve):
        self.resolve = resolve

    def run(self, body):
        return [rewrite(statement, {gast.Call: self._display}) for statement in body]

    def _display(self, call):
        if call.args or not call.keywords or any(k.arg is None for k in call.keywords) \
                or not isinstance(call.func, gast.Name):
            return call
        try:
            if self.resolve(call.func) is not builtins.dict:
                return call
        except LookupError:
            return call
        return gast.copy_location(gast.Dict(
            keys=[gast.Constant(value=k.arg, kind=None) for k in call.keywords],
            values=[k.value for k in call.keywords]), call)
