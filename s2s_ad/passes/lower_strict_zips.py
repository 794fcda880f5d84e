"""LowerStrictZips: `zip(xs, ys, strict=True)` is `zip(xs, ys)` after a check that the lengths
agree, the check raising the ValueError Python's strict zip raises (issue 15). The sequences
are bound to names of their own first (each evaluated once, before the statement, as Python
evaluates a call's arguments), so the zip that remains is one the other passes lower.

Left as it is (and refused): a strict zip of an iterator (`zip(map(f, xs), ys, strict=True)`,
which has no length to check ahead) or of a name a comprehension in the same statement binds."""
import builtins

import gast

from .. import build
from ..traversal import rewrite_blocks, walk
from .lower_zips import _an_iterator

# where a statement evaluates expressions once, before anything it runs (a `while` test is
# evaluated again each time round: left alone)
_HEADERS = {gast.For: ("iter",), gast.If: ("test",), gast.Assign: ("value",),
            gast.AugAssign: ("value",), gast.AnnAssign: ("value",), gast.Expr: ("value",),
            gast.Return: ("value",)}


class LowerStrictZips:

    def __init__(self, namespace, namer, local_names):
        self.namespace, self.namer, self.local_names = namespace, namer, local_names

    def run(self, body):
        return rewrite_blocks(body, self.statement)

    def _is_zip(self, node):
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
            and node.func.id == "zip" and node.func.id not in self.local_names \
            and self.namespace.get("zip", builtins.zip) is builtins.zip \
            and any(k.arg == "strict" for k in node.keywords)

    def statement(self, node):
        before = []
        for field in _HEADERS.get(type(node), ()):
            expression = getattr(node, field)
            if expression is None:
                continue
            inner = _comprehension_names(expression)
            for call in [c for c in walk(expression) if self._is_zip(c)]:
                before += self._lowered(call, inner, node)
        return before + [node]

    def _lowered(self, call, inner, statement):
        """The statements that hold `call`'s sequences and check their lengths; `call` is
        left without `strict`. Nothing where the zip is kept as it is."""
        strict = next(k for k in call.keywords if k.arg == "strict")
        if len(call.keywords) > 1 or not isinstance(strict.value, gast.Constant):
            return []
        if not strict.value.value or len(call.args) < 2:
            call.keywords = []
            return []
        if any(isinstance(a, (gast.Starred, gast.GeneratorExp)) or _an_iterator(a)
               or inner & {n.id for n in walk(a) if isinstance(n, gast.Name)} for a in call.args):
            return []
        before, held = [], []
        for argument in call.args:
            if isinstance(argument, gast.Name):
                held.append(argument.id)
                continue
            name = self.namer.fresh("_zipped")
            before.append(gast.copy_location(build.assign(name, argument), statement))
            held.append(name)
        call.args = [build.name(h) for h in held]
        call.keywords = []
        differ = " or ".join(f"len({h}) != len({held[0]})" for h in held[1:])
        check = build.quote(f"if {differ}:\n    raise ValueError('zip() arguments have "
                            f"different lengths (strict=True)')")
        return before + [gast.copy_location(s, statement) for s in check]


def _comprehension_names(expression):
    """Names bound inside `expression` (comprehension targets, lambda parameters)."""
    bound = set()
    for node in walk(expression):
        if isinstance(node, gast.comprehension):
            bound |= {n.id for n in walk(node.target) if isinstance(n, gast.Name)}
        elif isinstance(node, gast.Lambda):
            bound |= {a.id for a in walk(node.args) if isinstance(a, gast.Name)}
    return bound
