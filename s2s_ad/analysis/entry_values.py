"""The calls of a function that run while its arguments still hold what they held at entry.

A call of a user function in the opening statements of its caller, before anything that
could change an object (`logits = model(params, X)` first in `loss`), passes arguments whose
kinds are the caller's own, read when the caller was called: the callee's run-time dispatch
would read the same kinds again (calls.CalleeSplit). Only what is sure counts: the opening
statements may bind local names to arithmetic, indexing and attribute reads of arguments whose
kinds say they are arrays, numbers or containers of those (none of which runs code of yours);
any other call, store or statement ends the opening, since what it runs may change an argument.
"""
import gast

from .kinds import INT, REAL, Array, Dim, Entries

# the nodes an expression of the opening may hold: each runs NumPy's or Python's own code
# on arrays, numbers and plain containers
_INERT = (gast.Name, gast.Constant, gast.Attribute, gast.Subscript, gast.Slice, gast.BinOp,
          gast.UnaryOp, gast.Compare, gast.BoolOp, gast.IfExp, gast.Tuple, gast.List,
          gast.Load, gast.operator, gast.unaryop, gast.cmpop, gast.boolop)


def calls_at_entry(body, arguments):
    """The ids of the calls in `body` (a function's normalized body) that run before anything
    can have changed what an argument holds, each passing names of parameters or constants
    alone. `arguments`: {parameter: its kind as passed (analysis.kinds)}."""
    plain = {name for name, kind in arguments.items() if _plain(kind)}
    found = set()
    for statement in body:
        if _opening(statement, plain, arguments):
            plain.update(target.id for target in statement.targets)
            continue
        call = _call_of_arguments(statement, arguments)
        if call is not None:
            found.add(id(call))
        break
    return frozenset(found)


def _plain(kind):
    """Does a value of `kind` run no code of yours under Python's operators and indexing?"""
    if kind == INT or kind == REAL or type(kind) in (Array, Dim):
        return True
    return type(kind) is Entries and all(_plain(entry) for _, entry in kind.items)


def _opening(statement, plain, parameters):
    """Is `statement` a docstring or a binding of new local names to an inert expression?"""
    if isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Constant):
        return True
    if not isinstance(statement, gast.Assign) or not all(
            isinstance(t, gast.Name) and t.id not in parameters for t in statement.targets):
        return False
    for node in gast.walk(statement.value):
        if not isinstance(node, _INERT):
            return False
        if isinstance(node, gast.Name) and node.id not in plain:
            return False
    return True


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
