"""GuardAliasedUpdates: `y += v` where `y` may share memory with a name read later."""
import gast

from .. import build
from ..analysis import call_results
from ..analysis.activity import assigned_names
from ..analysis.aliasing import MayAlias, is_read, live_after


class GuardAliasedUpdates:
    """`z = y; z *= 2` changes `y` too when `y` is an array: check for that where it matters.

    The transformer differentiates `z *= 2` as `z = z * 2`, which is exact for numbers. Where
    another name that may share `z`'s memory is read afterwards, the generated code first calls
    `check_rebinds(z, 'y', 'file:line:col')`, which refuses (SharedUpdate) when `z` is an array.
    """

    def __init__(self, parsed, params, check_name):
        self.parsed = parsed
        self.params = params
        self.check_name = check_name      # the name `runtime.check_rebinds` has in generated code

    def run(self, body):
        guards = {}
        calls = call_results.hook(self.parsed, set(self.params) | set(assigned_names(body)))
        for statement, name, aliases in MayAlias(self.params, calls).run(body).updates:
            if not isinstance(statement, gast.AugAssign) or not isinstance(statement.target, gast.Name):
                continue
            later = live_after(body, statement)
            seen = sorted(a for a in aliases if not a.startswith("<") and is_read(a, later))
            if seen:
                guards[id(statement)] = self.guard(statement, name, seen[0])
        return _insert(body, guards) if guards else body

    def guard(self, statement, name, alias):
        line, col = self.parsed.location(statement)
        where = f"{self.parsed.filename}:{line}:{col + 1}"
        check = gast.Call(func=build.name(self.check_name), keywords=[], args=[
            build.name(name), gast.Constant(value=alias, kind=None), gast.Constant(value=where, kind=None)])
        return gast.copy_location(gast.Expr(value=check), statement)


def _insert(statements, guards):
    out = []
    for statement in statements:
        if id(statement) in guards:
            out.append(guards[id(statement)])
        for field in ("body", "orelse"):
            if getattr(statement, field, None):
                setattr(statement, field, _insert(getattr(statement, field), guards))
        out.append(statement)
    return out

