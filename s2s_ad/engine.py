"""derive(fn, mode, wrt): the generated derivative of a function, made once per key (cache +
pipeline). The one module that knows both modes; the transforms, the callees of generated code
and run-time dispatch all get their derivatives here. Importing it installs it into run-time
dispatch (s2s_ad.dispatch), which may not import the compiler itself."""
import functools

from . import cache, closure_templates, dispatch, pipeline, rules
from .analysis.call_results import is_user_function, split_callable
from .analysis.primitives import is_random_draw
from .analysis.random_draws import draws_through_parameters, first_random_draw
from .calls import array_method_caller, rule_caller
from .frontend.parse import signature_of

# mode -> (the pipeline function that builds it, its options)
BUILDERS = {
    "reverse": ("reverse_mode", {}),
    # grad's: the gradient alone, without the value where it needs none of it
    "gradient": ("reverse_mode", {"value": False}),
    "forward": ("forward_mode", {}),
    "hvp": ("hvp_mode", {}),
    # readable, unoptimized code for a derivative that is itself differentiated
    "reverse-nestable": ("reverse_mode", {"optimize": False, "calls_once": False}),
    # `fwd_<f>` -> (value, backward): how a caller runs a callee once
    "split": ("reverse_mode", {"split": True}),
    # read where a derivative is differentiated again: calls recompute their callee
    "reverse-recompute": ("reverse_mode", {"calls_once": False}),
    "forward-nestable": ("forward_mode", {"optimize": False}),
}


def generated(fn, mode, wrt, kinds=None):
    """The `Generated` derivative of `fn` in `mode` for `wrt`, made once per key; None while
    it is being generated further up the stack. `kinds`: what the arguments are (for
    'reverse'), when the code may be specialized to them."""
    found = cache.lookup(fn, mode, wrt, kinds)
    if found is not None:
        return found
    name, options = BUILDERS[mode]
    build = functools.partial(getattr(pipeline, name), **options)   # looked up when it runs
    return cache.derivative(fn, mode, tuple(wrt), build, kinds)


def derive(fn, mode, wrt, resolved=False):
    """The generated `vjp_<fn>` ('reverse') or `jvp_<fn>` ('forward') for the parameters
    `wrt`; while that derivative is still being generated further up the stack (a recursive
    function), a stand-in that calls it once it exists, unless `resolved`."""
    found = generated(fn, mode, wrt)
    if found is not None:
        return found.function
    stand_in = cache.pending(fn, mode, tuple(wrt))
    return cache._cache[stand_in.key].function if resolved else stand_in


def find_rule(fn, mode):
    return rules.adjoint_rule(fn) if mode == "reverse" else rules.tangent_rule(fn)


def random_draw(fn, arguments):
    """('file:line', the call's text) of the first random draw `fn` makes, itself, through the
    functions of yours it calls or through an attribute of an argument (`self.rng.normal`,
    `arguments` giving the values by parameter name), or None."""
    found, through_parameters = _draws_of(fn)
    if found is not None:
        return found
    for param, chain, parsed, call in through_parameters:
        value = arguments.get(param)
        for attr in chain:
            value = getattr(value, attr, None)
        if is_random_draw(value):
            return parsed.where(call), parsed.describe_expression(call)
    return None


_DRAWS = {}          # fn, or its code and kind of closure -> what _draws_of read of it


def _draws_of(fn):
    """What random_draw reads of `fn`'s source, read once per function, or once per code
    and kind of closure (the closures a fit makes anew each time: closure_templates)."""
    key = closure_templates.described_closure(fn) or fn
    found = _DRAWS.get(key)
    if found is None:
        if len(_DRAWS) >= 256:
            _DRAWS.clear()
        found = _DRAWS[key] = _read_draws(fn)
    return found


def _read_draws(fn):
    found = first_random_draw(fn)
    seen = None if found is None else (found[0].where(found[1]),
                                       found[0].describe_expression(found[1]))
    return seen, draws_through_parameters(fn)


class _Engine:
    """What run-time dispatch needs from the transformer."""
    derive = staticmethod(derive)
    generated = staticmethod(generated)
    find_rule = staticmethod(find_rule)
    rule_caller = staticmethod(rule_caller)
    array_method_caller = staticmethod(array_method_caller)
    signature_of = staticmethod(signature_of)
    split_callable = staticmethod(split_callable)
    is_user_function = staticmethod(is_user_function)
    random_draw = staticmethod(random_draw)


dispatch.install(_Engine)
