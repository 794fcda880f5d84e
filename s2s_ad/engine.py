"""derive(fn, mode, wrt): the generated derivative of a function, made once per key (cache +
pipeline). The one module that knows both modes; the transforms, the callees of generated code
and run-time dispatch all get their derivatives here. Importing it installs it into run-time
dispatch (s2s_ad.dispatch), which may not import the compiler itself."""
from . import cache, dispatch, pipeline, rules
from .analysis.call_results import is_user_function, split_callable
from .calls import rule_caller
from .frontend.parse import signature_of

BUILDERS = {"reverse": pipeline.reverse_mode, "forward": pipeline.forward_mode}


def derive(fn, mode, wrt, resolved=False):
    """The generated `vjp_<fn>` ('reverse') or `jvp_<fn>` ('forward') for the parameters
    `wrt`; while that derivative is still being generated further up the stack (a recursive
    function), a stand-in that calls it once it exists, unless `resolved`."""
    wrt = tuple(wrt)
    generated = cache.derivative(fn, mode, wrt, BUILDERS[mode])
    if generated is not None:
        return generated.function
    stand_in = cache.pending(fn, mode, wrt)
    return cache._cache[stand_in.key].function if resolved else stand_in


def find_rule(fn, mode):
    return rules.adjoint_rule(fn) if mode == "reverse" else rules.tangent_rule(fn)


class _Engine:
    """What run-time dispatch needs from the transformer."""
    derive = staticmethod(derive)
    find_rule = staticmethod(find_rule)
    rule_caller = staticmethod(rule_caller)
    signature_of = staticmethod(signature_of)
    split_callable = staticmethod(split_callable)
    is_user_function = staticmethod(is_user_function)


dispatch.install(_Engine)
