"""LowerJumps: rewrite early `return`, `break` and `continue` as flags, so that every statement
either runs or is skipped by an `if` the backward pass can replay."""
import gast

from .. import build
from ..traversal import nodes_of


def _contains(node, kinds, into_loops):
    for child in gast.iter_child_nodes(node):
        if isinstance(child, kinds):
            return True
        if isinstance(child, (gast.For, gast.While)) and not into_loops:
            continue
        if isinstance(child, (gast.FunctionDef, gast.Lambda)):
            continue
        if _contains(child, kinds, into_loops):
            return True
    return False


def _not(*flags):
    test = build.name(flags[0]) if len(flags) == 1 else gast.BoolOp(
        op=gast.Or(), values=[build.name(f) for f in flags])
    return gast.UnaryOp(op=gast.Not(), operand=test)


class LowerJumps:
    """Early returns become `result = v; returned = True`; loop jumps become flags."""

    def __init__(self, namer):
        self.namer = namer

    def run(self, body):
        body = self.lower_returns(body)
        return self.lower_loops(body)

    # return ------------------------------------------------------------------------------
    def lower_returns(self, body):
        returns = nodes_of(body, [gast.Return])
        if not returns or (len(returns) == 1 and body and body[-1] is returns[0]):
            return body
        self.result = self.namer.fresh("result")
        self.returned = self.namer.fresh("returned")
        start = build.quote(f"{self.result} = None\n{self.returned} = False")
        return start + self._returns_block(body, in_loop=False) + build.quote(f"return {self.result}")

    def _returns_block(self, statements, in_loop):
        out = []
        for position, statement in enumerate(statements):
            if isinstance(statement, gast.Return):
                value = statement.value or gast.Constant(value=None, kind=None)
                out += [gast.copy_location(build.assign(self.result, value), statement),
                        build.assign(self.returned, gast.Constant(value=True, kind=None))]
                if in_loop:
                    out.append(gast.Break())
                return out
            if not _contains(statement, gast.Return, into_loops=True):
                out.append(statement)
                continue
            loop = isinstance(statement, (gast.For, gast.While))
            statement.body = self._returns_block(statement.body, in_loop or loop)
            statement.orelse = self._returns_block(statement.orelse, in_loop)
            out.append(statement)
            rest = statements[position + 1:]
            if in_loop:
                if loop:      # a return inside the nested loop ends this loop too
                    out.append(gast.If(test=build.name(self.returned), body=[gast.Break()], orelse=[]))
                out += self._returns_block(rest, in_loop)
            elif rest:
                out.append(gast.If(test=_not(self.returned),
                                   body=self._returns_block(rest, in_loop), orelse=[]))
            return out
        return out

    # break / continue ---------------------------------------------------------------------
    def lower_loops(self, statements):
        out = []
        for statement in statements:
            for block in ("body", "orelse"):
                if getattr(statement, block, None):
                    setattr(statement, block, self.lower_loops(getattr(statement, block)))
            if isinstance(statement, (gast.For, gast.While)) and \
                    _contains(statement, (gast.Break, gast.Continue), into_loops=False):
                if self._only_final_break(statement):
                    out.append(statement)
                    continue
                out += self._lower_loop(statement)
            else:
                out.append(statement)
        return out

    @staticmethod
    def _only_final_break(loop):
        """`if flag: break` as the last statement, and no other jump: already lowered."""
        *rest, last = loop.body
        return (isinstance(last, gast.If) and last.body and isinstance(last.body[-1], gast.Break)
                and len(last.body) == 1 and not last.orelse
                and not any(_contains(s, (gast.Break, gast.Continue), into_loops=False) or
                            isinstance(s, (gast.Break, gast.Continue)) for s in rest))

    def _lower_loop(self, loop):
        has_break = _contains(loop, gast.Break, into_loops=False)
        has_continue = _contains(loop, gast.Continue, into_loops=False)
        self.flags = {}
        before = []
        if has_break:
            self.flags[gast.Break] = self.namer.fresh("stop")
            before = build.quote(f"{self.flags[gast.Break]} = False")
        prefix = []
        if has_continue:
            self.flags[gast.Continue] = self.namer.fresh("skip")
            prefix = build.quote(f"{self.flags[gast.Continue]} = False")
        body = prefix + self._jumps_block(loop.body, dict(self.flags))
        if has_break:
            body.append(gast.If(test=build.name(self.flags[gast.Break]), body=[gast.Break()], orelse=[]))
        loop.body = body
        return before + [loop]

    def _jumps_block(self, statements, flags):
        out = []
        for position, statement in enumerate(statements):
            if isinstance(statement, (gast.Break, gast.Continue)):
                out.append(build.assign(flags[type(statement)], gast.Constant(value=True, kind=None)))
                return out
            if isinstance(statement, (gast.For, gast.While)) or \
                    not _contains(statement, (gast.Break, gast.Continue), into_loops=False):
                out.append(statement)
                continue
            raised = [flags[k] for k in (gast.Break, gast.Continue)
                      if k in flags and _contains(statement, k, into_loops=False)]
            statement.body = self._jumps_block(statement.body, flags)
            statement.orelse = self._jumps_block(statement.orelse, flags)
            out.append(statement)
            rest = statements[position + 1:]
            if rest:
                out.append(gast.If(test=_not(*raised), body=self._jumps_block(rest, flags), orelse=[]))
            return out
        return out
