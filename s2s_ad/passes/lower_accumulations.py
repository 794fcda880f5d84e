"""LowerAccumulations: the in-place accumulation generated code does, spelled as assignments
reverse mode differentiates (a derivative that is itself differentiated, to third order and up).

    add_at(d, i, g)     d = d + scatter(d, i, g)

`optimize.AccumulateInPlace` writes `add_at` only into an adjoint nobody else holds, so the
assignment computes the same value; forward mode keeps the in-place form (it has a rule for it).
"""
import gast

from .. import build, runtime
from ..traversal import rewrite_blocks
from .call_lowering import CallLowering


class LowerAccumulations(CallLowering):
    """A CallLowering of statements, not of calls: it uses `bind`."""

    def run(self, body):
        return rewrite_blocks(body, self._lowered)

    def _lowered(self, statement):
        call = statement.value if isinstance(statement, gast.Expr) else None
        if not (isinstance(call, gast.Call) and len(call.args) == 3 and not call.keywords
                and isinstance(call.args[0], gast.Name) and self.static(call.func) is runtime.add_at):
            return [statement]
        target, index, value = call.args
        scatter = self.bind("scatter", runtime.scatter)
        assign = build.assign(target.id, build.quote_expr(
            "{d} + {scatter}({d}, {i}, {g})", d=build.name(target.id), scatter=build.name(scatter),
            i=index, g=value))
        return [gast.copy_location(assign, statement)]
