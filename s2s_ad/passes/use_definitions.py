"""UseDefinitions: a call of a NumPy function that has no rule but a definition in
s2s_ad/definitions.py (`np.cov`) calls that definition, a function s2s_ad differentiates."""
import gast

from .. import build, definitions, rules
from .call_lowering import CallLowering


class UseDefinitions(CallLowering):
    """A CallLowering that uses `bind`."""

    def lowered(self, call):
        if not isinstance(call.func, (gast.Attribute, gast.Name)):
            return call
        function = self.static(call.func)
        if function is None:
            return call
        if not rules.is_hashable(function) or function not in definitions.DEFINED or \
                rules.adjoint_rule(function) is not None:
            return call
        definition = definitions.DEFINED[function]
        call.func = gast.copy_location(build.name(self.bind(definition.__name__, definition)),
                                       call.func)
        return call
