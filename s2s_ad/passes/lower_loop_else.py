"""LowerLoopElse: a loop's `else:` block becomes an `if` after the loop, on a `broke` flag."""
import gast

from .. import build


class LowerLoopElse:
    """`while c: ... break ... else: E` runs E only when no `break` ended the loop."""

    def __init__(self, namer):
        self.namer = namer

    def run(self, statements):
        out = []
        for statement in statements:
            for field in ("body", "orelse"):
                if getattr(statement, field, None):
                    setattr(statement, field, self.run(getattr(statement, field)))
            if isinstance(statement, (gast.For, gast.While)) and statement.orelse:
                out += self.lower(statement)
            else:
                out.append(statement)
        return out

    def lower(self, loop):
        orelse, loop.orelse = loop.orelse, []
        if not _breaks(loop.body):
            return [loop] + orelse
        broke = self.namer.fresh("broke")
        loop.body = _flag_breaks(loop.body, broke)
        start = gast.copy_location(build.assign(broke, gast.Constant(value=False, kind=None)), loop)
        after = gast.copy_location(gast.If(
            test=gast.UnaryOp(op=gast.Not(), operand=build.name(broke)), body=orelse, orelse=[]),
            orelse[0])
        return [start, loop, after]


def _breaks(statements):
    """Does a `break` in `statements` end the loop they are the body of?"""
    for statement in statements:
        if isinstance(statement, gast.Break):
            return True
        blocks = ["orelse"] if isinstance(statement, (gast.For, gast.While)) else ["body", "orelse"]
        if any(_breaks(getattr(statement, b, []) or []) for b in blocks):
            return True
    return False


def _flag_breaks(statements, broke):
    out = []
    for statement in statements:
        if isinstance(statement, gast.Break):
            out += [gast.copy_location(build.assign(broke, gast.Constant(value=True, kind=None)),
                                       statement), statement]
            continue
        blocks = ["orelse"] if isinstance(statement, (gast.For, gast.While)) else ["body", "orelse"]
        for block in blocks:
            if getattr(statement, block, None):
                setattr(statement, block, _flag_breaks(getattr(statement, block), broke))
        out.append(statement)
    return out
