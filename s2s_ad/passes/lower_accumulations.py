"""LowerAccumulations: the in-place accumulation generated code does, spelled as assignments
reverse mode differentiates (a derivative that is itself differentiated, to third order and up).

    add_at(d, i, g)                                 d = d + scatter(d, i, g)
    d = add_extremum_share(d, g, x, y, a, k)        d = d + extremum_share(g, x, y, a, k)

`optimize.AccumulateInPlace` writes `add_at`, and `optimize.AddIntoOwned`
`add_extremum_share`, only into an adjoint nobody else holds, so the assignment computes the
same value; forward mode keeps the in-place forms (it has rules for them).
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
        call = statement.value if isinstance(statement, (gast.Expr, gast.Assign)) else None
        if not isinstance(call, gast.Call) or call.keywords or \
                any(isinstance(a, gast.Starred) for a in call.args):
            return [statement]
        helper = self.static(call.func)
        if helper is runtime.add_at and isinstance(statement, gast.Expr) and len(call.args) == 3 \
                and isinstance(call.args[0], gast.Name):
            target, index, value = call.args
            scatter = self.bind("scatter", runtime.scatter)
            assign = build.assign(target.id, build.quote_expr(
                "{d} + {scatter}({d}, {i}, {g})", d=build.name(target.id),
                scatter=build.name(scatter), i=index, g=value))
            return [gast.copy_location(assign, statement)]
        if helper is runtime.add_extremum_share and isinstance(statement, gast.Assign) and call.args:
            share = self.bind("extremum_share", runtime.extremum_share)
            statement.value = gast.BinOp(left=call.args[0], op=gast.Add(), right=gast.Call(
                func=build.name(share), args=call.args[1:], keywords=[]))
        return [statement]
