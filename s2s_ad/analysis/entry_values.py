"""The calls of a function that run while its arguments still hold what they held at entry.

A call of a user function in the opening statements of its caller, before anything that
could change an object (`logits = model(params, X)` first in `loss`), passes arguments whose
kinds are the caller's own, read when the caller was called: the callee's run-time dispatch
would read the same kinds again (calls.CalleeSplit). Only what is sure counts. The opening
statements may bind local names to constants, to an array's shape, size, rank, dtype or
transpose, and to entries of those or of plain containers: none of these runs code of yours.
Any other statement ends the opening: a call or a store may change an argument, an attribute
of another object may be a property of yours, and arithmetic may run your NumPy error
callback (np.seterrcall) or warning hook.
"""
import gast

from .kinds import Array, Entries

# attributes of a NumPy array that are plain values NumPy makes (not `.base`, which may be
# an object of yours an array was made from)
_ARRAY_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype", "T", "mT"})
_ARRAY, _PLAIN = "array", "plain"


def calls_at_entry(body, arguments):
    """The ids of the calls in `body` (a function's normalized body) that run before anything
    can have changed what an argument holds, each passing names of parameters or constants
    alone. `arguments`: {parameter: its kind as passed (analysis.kinds)}."""
    values = {name: _ARRAY if type(kind) is Array else _PLAIN
              for name, kind in arguments.items() if _described(kind)}
    found = set()
    for statement in body:
        if isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Constant):
            continue                                    # a docstring
        value = _opening_binding(statement, values, arguments)
        if value is not None:
            values.update((target.id, value) for target in statement.targets)
            continue
        call = _call_of_arguments(statement, arguments)
        if call is not None:
            found.add(id(call))
        break
    return frozenset(found)


def _described(kind):
    """Is every value a value of `kind` holds an array, a number or a plain container?"""
    if type(kind) is Entries:
        return all(_described(entry) for _, entry in kind.items)
    return kind is not None


def _opening_binding(statement, values, parameters):
    """What a binding of new local names in the opening binds them to (_ARRAY, _PLAIN), or
    None where `statement` is no such binding."""
    if not isinstance(statement, gast.Assign) or not all(
            isinstance(t, gast.Name) and t.id not in parameters for t in statement.targets):
        return None
    return _inert(statement.value, values)


def _inert(node, values):
    """What `node` gives (_ARRAY, _PLAIN) where it runs none of your code, else None."""
    if isinstance(node, gast.Constant):
        return _PLAIN
    if isinstance(node, gast.Name):
        return values.get(node.id)
    if isinstance(node, gast.Attribute):
        if node.attr in _ARRAY_ATTRIBUTES and _inert(node.value, values) == _ARRAY:
            return _ARRAY if node.attr in ("T", "mT") else _PLAIN
        return None
    if isinstance(node, gast.Subscript):
        index = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if _inert(node.value, values) and all(
                isinstance(part, (gast.Constant, gast.Name)) and _inert(part, values)
                for part in index):
            return _PLAIN
    return None


def _call_of_arguments(statement, parameters):
    """The call `statement` makes of a function, named or a module's attribute, with the
    parameters' names and constants alone as operands; None for any other statement."""
    if not isinstance(statement, gast.Assign) or not isinstance(statement.value, gast.Call):
        return None
    call = statement.value
    func = call.func
    while isinstance(func, gast.Attribute):
        func = func.value
    operands = list(call.args) + [k.value for k in call.keywords]
    if not isinstance(func, gast.Name) or func.id in parameters or not all(
            isinstance(a, gast.Constant) or isinstance(a, gast.Name) and a.id in parameters
            for a in operands):
        return None
    return call
