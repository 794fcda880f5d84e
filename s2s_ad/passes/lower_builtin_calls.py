"""LowerBuiltinCalls: builtin calls spelled with what has rules.

    dict(w=a, b=c)      {'w': a, 'b': c}
    reversed(xs)        list(xs)[::-1]      (an array's rows, a list's entries, a dict's keys)
    reversed(range(n))  range(n)[::-1]
    max(xs, key=k)      list(xs)[position_by_key(xs, k, True)]   (and min; also max(a, b, key=k))
    copy.deepcopy(p)    deep_copy(p)        (a new object all through, with rules)
    zip(*xs)            zipped(xs)          (the tuples, as a list, with rules: xs's length
                                             need not be known when the code is made)

The position `max` picks is a constant (runtime.position_by_key, non-differentiable): the
derivative flows through the item picked, as through `xs[i]`. The sequence is read twice, so
only what reads the same twice is lowered (names, `x[0]`, `p.w`, and displays of those);
another `max(..., key=)` stays refused, with the hint to bind it to a name first.
"""
import builtins
import copy

import gast

from .. import build
from .. import runtime
from .call_lowering import CallLowering, located


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
        if self._is(call, copy.deepcopy) and len(call.args) == 1 and not call.keywords \
                and self.bind is not None:
            return located(gast.Call(func=build.name(self.bind("deep_copy", runtime.deep_copy)),
                                     args=call.args, keywords=[]), call)
        if self._is(call, builtins.zip) and len(call.args) == 1 and not call.keywords \
                and isinstance(call.args[0], gast.Starred) and self.bind is not None:
            return located(gast.Call(func=build.name(self.bind("zipped", runtime.zipped)),
                                     args=[call.args[0].value], keywords=[]), call)
        for builtin, largest in ((builtins.max, True), (builtins.min, False)):
            if self._is(call, builtin):
                return self._by_key(call, largest)
        return call

    def _by_key(self, call, largest):
        """`max(xs, key=k)` as the item at the position the keys pick."""
        if [k.arg for k in call.keywords] != ["key"] or not call.args or self.bind is None:
            return call
        if len(call.args) == 1 and isinstance(call.args[0], gast.Name):
            items, sequence = call.args[0], build.quote_expr("list({s})", s=call.args[0])
        elif len(call.args) > 1 and all(_a_read(a) for a in call.args):
            sequence = gast.List(elts=call.args, ctx=gast.Load())
            items = copy.deepcopy(sequence)
        elif len(call.args) == 1 and isinstance(call.args[0], (gast.List, gast.Tuple)) \
                and all(_a_read(a) for a in call.args[0].elts):
            sequence, items = call.args[0], copy.deepcopy(call.args[0])
        else:
            return call
        position = self.bind("position_by_key", runtime.position_by_key)
        return located(build.quote_expr(
            "{s}[{p}({i}, {k}, {largest})]", s=sequence, p=build.name(position), i=items,
            k=call.keywords[0].value, largest=gast.Constant(value=largest, kind=None)), call)

    def _is(self, node, builtin):
        """Is `node` a call of the builtin `builtin` (its name not rebound here)? (Or of
        `copy.deepcopy`, by any chain that names it.)"""
        return isinstance(node, gast.Call) and (isinstance(node.func, gast.Name) or
                                                builtin is copy.deepcopy) \
            and self.static(node.func) is builtin


def _a_read(node):
    """Is `node` read twice the same as read once: a name, a constant, or an entry or
    attribute of one at a constant (or named) index (`x[0]`, `p.w`, `xs[i]`)?"""
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        if isinstance(node, gast.Subscript) and not isinstance(node.slice, (gast.Constant, gast.Name)):
            return False
        node = node.value
    return isinstance(node, (gast.Name, gast.Constant))
