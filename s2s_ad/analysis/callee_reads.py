"""The arguments a call of a user function only reads: the function neither changes them in
place (call_results.mutated_parameters_of: a list appended to, an array written or resized)
nor gives an array another shape (`x.shape = ...`), itself or in the functions of yours it
calls. The shape facts (analysis.shapes) keep what they know of such an argument across the
call: `logits = model(params, X)` leaves `params` and `X` as they were."""
import gast

from ..errors import TransformError
from ..frontend.parse import parse_for_reading
from ..traversal import walk
from .call_results import _returned_parameters, function_locals, is_user_function, \
    mutated_parameters_of
from .primitives import classify

SHAPE_ATTRIBUTES = frozenset({"shape", "strides", "dtype"})
MOST_NESTED = 8


def only_read_arguments(fn, call, array):
    """The positional arguments of `call`, a call of the user function `fn`, that it leaves
    as they are; of a container (not `array`), also not among what it may return (which the
    caller could change)."""
    code = fn.__code__
    if call.keywords or any(isinstance(a, gast.Starred) for a in call.args) or \
            _may_reshape(fn, set()):
        return []
    left = set(code.co_varnames[:code.co_argcount]) - set(mutated_parameters_of(fn, code))
    if not array:
        returned = _returned_parameters(fn, code)
        left = set() if returned is None else left - returned
    return [a for a, name in zip(call.args, code.co_varnames) if name in left]


def _may_reshape(fn, visiting):
    """Might `fn`, or a function of yours it calls, store an array's shape in place? (A
    function met again, called twice or recursively, is answered where it was met first.)"""
    if fn.__code__ in visiting:
        return False
    if len(visiting) >= MOST_NESTED:
        return True
    visiting.add(fn.__code__)
    try:
        parsed = parse_for_reading(fn)
    except TransformError:
        return True
    local_names = function_locals(parsed)
    for node in walk(parsed.node):
        if reshapes_in_place(node):
            return True
        if isinstance(node, gast.Call):
            callee = classify(node, parsed, local_names).key
            if is_user_function(callee) and _may_reshape(callee, visiting):
                return True
    return False


def reshapes_in_place(node):
    """May `node` give an array another shape in place: `x.shape = ...`, `x.resize(...)`,
    `np.ndarray.resize(x, ...)`, `setattr(x, "shape", ...)` or `x.__setattr__(...)`?"""
    if isinstance(node, gast.Attribute):
        return node.attr in _RESHAPING_ATTRIBUTES or \
            node.attr in SHAPE_ATTRIBUTES and not isinstance(node.ctx, gast.Load)
    return isinstance(node, gast.Name) and node.id in _RESHAPING_NAMES and \
        isinstance(node.ctx, gast.Load)


_RESHAPING_ATTRIBUTES = frozenset({"resize", "__setattr__"})
_RESHAPING_NAMES = frozenset({"setattr"})
