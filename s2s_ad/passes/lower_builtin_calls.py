"""LowerBuiltinCalls: builtin calls spelled with what has rules.

    dict(w=a, b=c)      {'w': a, 'b': c}
    reversed(xs)        list(xs)[::-1]      (an array's rows, a list's entries, a dict's keys)
    reversed(range(n))  range(n)[::-1]
"""
import builtins

import gast

from .. import build
from .call_lowering import CallLowering


class LowerBuiltinCalls(CallLowering):
    """A CallLowering."""

    def lowered(self, call):
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
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
            and self.static(node.func) is builtin
