"""UseDefinitions: a call of a NumPy function that has no rule but a definition in
s2s_ad/definitions.py (`np.cov`) calls that definition, a function s2s_ad differentiates; so
does a call that passes, as a constant, a value of an argument that the function's rule does
not take but a definition covers (`np.pad(x, 2, mode='mean')`)."""
import gast

from .. import build, definitions, rules
from .call_lowering import CallLowering


class UseDefinitions(CallLowering):
    """A CallLowering that uses `bind`."""

    def lowered(self, call):
        if not isinstance(call.func, (gast.Attribute, gast.Name)):
            return call
        function = self.static(call.func)
        if function is None or not rules.is_hashable(function):
            return call
        definition = _by_argument(function, call)
        defined = definitions.defined()
        if definition is None and function in defined and rules.adjoint_rule(function) is None:
            definition = defined[function]
        if definition is None:
            return call
        call.func = gast.copy_location(build.name(self.bind(definition.__name__, definition)),
                                       call.func)
        return call


def _by_argument(function, call):
    """The definition DEFINED_FOR gives for the constant `call` passes `function`, or None."""
    for (defined, name, position), by_value in definitions.DEFINED_FOR.items():
        if defined is not function:
            continue
        given = next((k.value for k in call.keywords if k.arg == name), None)
        if given is None and len(call.args) > position:
            given = call.args[position]
        if isinstance(given, gast.Constant) and isinstance(given.value, str):
            return by_value.get(given.value)
    return None
