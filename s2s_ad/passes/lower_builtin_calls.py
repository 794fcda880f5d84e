"""LowerBuiltinCalls: builtin calls spelled with what has rules.

    dict(w=a, b=c)      {'w': a, 'b': c}
    reversed(xs)        list(xs)[::-1]      (an array's rows, a list's entries, a dict's keys)
    reversed(range(n))  range(n)[::-1]
"""
import builtins

import gast

from .. import build
from ..traversal import rewrite


class LowerBuiltinCalls:
    """`resolve(node)` is the object a global name stands for, or raises LookupError."""

    def __init__(self, resolve):
        self.resolve = resolve

    def run(self, body):
        return [rewrite(statement, {gast.Call: self._lowered}) for statement in body]

    def _lowered(self, call):
        if self._is(call, builtins.dict) and not call.args and call.keywords \
                and all(k.arg is not None for k in call.keywords):
            return gast.copy_location(gast.Dict(
                keys=[gast.Constant(value=k.arg, kind=None) for k in call.keywords],
                values=[k.value for k in call.keywords]), call)
        if self._is(call, builtins.reversed) and len(call.args) == 1 and not call.keywords:
            sequence = call.args[0]
            if not self._is(sequence, builtins.range):
                sequence = gast.Call(func=build.name("list"), args=[sequence], keywords=[])
            return gast.copy_location(build.quote_expr("{s}[::-1]", s=sequence), call)
        return call

    def _is(self, node, builtin):
        """Is `node` a call of the builtin `builtin` (its name not rebound here)?"""
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)):
            return False
        try:
            return self.resolve(node.func) is builtin
        except LookupError:
            return False
