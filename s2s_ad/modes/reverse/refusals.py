"""What reverse mode refuses, beyond the refusals both modes share: changes to a list that the
backward pass cannot undo. Each refusal names the user's expressions."""
import gast

from ...calls import complex_refusals_at_call
from ...passes.refuse_complex import refuse_complex_values
from ...passes.refuse_misread_operations import refuse_misread_operations
from ...passes.refuse_unsupported import refuse_writes_into_arguments
from .blocks import appended, inserted, popped

# list and array methods that change their owner in a way the backward pass cannot undo
_MUTATING_METHODS = ("extend", "update", "fill", "sort", "remove", "clear",
                     "setdefault", "popitem")


def refuse_what_the_passes_refuse(parsed, body, params, local_names, activity, facts):
    """Writes into arguments, complex values and misread operations (shared with forward
    mode); an `xs.append(v)`, `xs.insert(i, v)` or `v = xs.pop()` reverse mode handles itself.
    Returns the refusals to raise when an argument is complex (passes/refuse_complex.py).
    `facts`: the shape facts, which say what kinds a call of a function of yours passes."""
    refuse_writes_into_arguments(parsed, body, local_names, activity.varied,
                                 handled=lambda s: appended(s) is not None
                                 or inserted(s) is not None
                                 or isinstance(s, gast.Assign) and popped(s) is not None,
                                 useful=activity.useful)
    complex_refusals = refuse_complex_values(
        parsed, body, activity.active, params, local_names, activity.varied,
        callee_refusals=lambda statement, fn: complex_refusals_at_call(
            parsed, statement, fn, activity.active, "split", facts))
    refuse_misread_operations(parsed, body, local_names, activity.varied)
    return complex_refusals


def refuse_list_mutation(parsed, statement, params, varied):
    """An expression statement that changes an argument's list, or a varied value in
    place by a method whose change the backward pass cannot undo."""
    value = statement.value
    grown = appended(statement) or inserted(statement)
    if grown is not None and grown[0] in params:
        raise parsed.error(statement, f"cannot differentiate a function that appends to "
                           f"its argument `{grown[0]}` (the caller's list would change)",
                           hint=f"append to a copy: `{grown[0]} = {grown[0]}[:]` first")
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute):
        owner = value.func.value
        if isinstance(owner, gast.Name) and owner.id in varied and \
                value.func.attr in _MUTATING_METHODS:
            owner = parsed.describe(owner.id)
            raise parsed.error(statement, f"cannot differentiate through "
                               f"`{owner}.{value.func.attr}(...)`, which changes `{owner}` in place",
                               hint="build a new value instead of mutating one")

