"""UseDefinitions: a call of a NumPy function that has no rule but a definition in
s2s_ad/definitions.py (`np.cov`) calls that definition, a function s2s_ad differentiates."""
import gast

from .. import build, definitions, rules
from ..traversal import rewrite


class UseDefinitions:
    """`resolve(node)` is the object a global chain (`np.cov`) stands for, or raises
    LookupError; `bind(name, value)` makes `value` reachable from generated code under a
    fresh name based on `name`, which it returns."""

    def __init__(self, resolve, bind):
        self.resolve = resolve
        self.bind = bind

    def run(self, body):
        return [rewrite(statement, {gast.Call: self._defined}) for statement in body]

    def _defined(self, call):
        if not isinstance(call.func, (gast.Attribute, gast.Name)):
            return call
        try:
            function = self.resolve(call.func)
        except LookupError:
            return call
        if not rules.is_hashable(function) or function not in definitions.DEFINED or \
                rules.adjoint_rule(function) is not None:
            return call
        definition = definitions.DEFINED[function]
        call.func = gast.copy_location(build.name(self.bind(definition.__name__, definition)),
                                       call.func)
        return call
