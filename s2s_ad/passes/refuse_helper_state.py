"""A helper called for what it does, its result dropped (`store(x)`), is not differentiated:
only its writes into its own arguments are followed. A value computed from its arguments that
it keeps anywhere else (a module variable it rebinds with `global`, an attribute it sets, a
module array it fills through `out=`, an array it updates through `__imul__`, or whatever a
function passed in and called for its effect changes) and that the caller reads back
afterwards would carry no derivative: the gradient would silently miss what flows through
it. Refused, with the helper's line and the call's; bookkeeping that carries no
value of the arguments (`global calls; calls += 1`, `self.count += 1`) is left alone."""
import gast

from ..analysis.call_results import is_user_function
from ..analysis.flow import reachable
from ..analysis.numpy_writes import written_arguments
from ..analysis.primitives import classify, static_value
from ..errors import TransformError
from ..traversal import loads, nodes_of, root_name, stores, walk, walk_statements

_IN_PLACE_METHODS = frozenset({"__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__",
                               "__ipow__", "__imatmul__", "__setitem__", "__setattr__"})
_PARAMETERS = object()                  # where the flow of values starts
_HINT = "return the value from the helper and use what it returns (`buffer = make(x)`)"


def refuse_state_kept_by(parsed, call, local_names, checked=None):
    """Raise if `call` (of `parsed`, its result dropped, reading values that carry
    derivatives) calls a function of yours that keeps a value of its arguments outside them,
    itself or in a function it calls so."""
    from ..frontend import parse_function
    checked = set() if checked is None else checked
    try:
        callee = static_value(call.func, parsed, local_names)
    except LookupError:
        return
    code = getattr(callee, "__code__", None)
    if not is_user_function(callee) or code in checked:
        return
    checked.add(code)
    try:
        inner = parse_function(callee)
    except TransformError:
        return                          # no source: refused where it is differentiated, if it is
    try:
        _refuse_kept_state(inner, checked)
    except TransformError as exc:
        raise exc.called_from(f"{parsed.where(call)} (in {parsed.name})") from None


def _refuse_kept_state(parsed, checked):
    body = parsed.node.body
    carrying = _carrying(parsed.node)
    declared = {n for s in walk_statements(body) if isinstance(s, (gast.Global, gast.Nonlocal))
                for n in s.names}
    local = {a.id for a in walk(parsed.node.args) if isinstance(a, gast.Name)} | \
        (stores(body) - declared)
    params = {a.id for a in walk(parsed.node.args) if isinstance(a, gast.Name)}
    for statement in walk_statements(body):
        value = getattr(statement, "value", None)
        if isinstance(statement, gast.Expr) and isinstance(value, gast.Call) and \
                isinstance(value.func, gast.Name) and value.func.id in params and \
                any(isinstance(n, gast.Name) and n.id in carrying for n in walk(value)):
            raise parsed.error(value, f"cannot follow what `{value.func.id}(...)`, a function "
                               f"passed in, does to the values it is given: its result is not "
                               f"used, so it is called for what it changes", hint=_HINT)
        if isinstance(statement, (gast.Assign, gast.AugAssign)) and loads(value) & carrying:
            targets = statement.targets if isinstance(statement, gast.Assign) else [statement.target]
            for target in targets:
                _refuse_kept(parsed, target, declared)
        for call in nodes_of(statement, [gast.Call]) if not isinstance(
                statement, gast.FunctionDef) else []:
            if any(isinstance(n, gast.Name) and n.id in carrying for n in walk(call)):
                _refuse_call(parsed, call, local, checked)


def _carrying(function):
    """The names of `function` that may hold a value computed from its parameters."""
    flows = {_PARAMETERS: {a.id for a in walk(function.args) if isinstance(a, gast.Name)}}
    for statement in walk_statements(function.body):
        value = getattr(statement, "iter", None) or getattr(statement, "value", None)
        if isinstance(statement, (gast.Assign, gast.AugAssign, gast.For)) and value is not None:
            targets = statement.targets if isinstance(statement, gast.Assign) else \
                [statement.target]
            bound = {n.id for t in targets for n in walk(t)
                     if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
            for read in loads(value):
                flows.setdefault(read, set()).update(bound)
    return reachable(flows, _PARAMETERS) - {_PARAMETERS}


def _refuse_kept(parsed, target, declared):
    if isinstance(target, (gast.Tuple, gast.List)):
        for element in target.elts:
            _refuse_kept(parsed, element, declared)
    elif isinstance(target, gast.Name) and target.id in declared:
        raise parsed.error(target, f"`{target.id}` keeps a value computed from the arguments "
                           f"outside the function (it is declared global or nonlocal), and the "
                           f"function's result is not used: its derivative is not followed",
                           hint=_HINT)
    elif isinstance(target, gast.Attribute):
        raise parsed.error(target, f"cannot follow the derivative of `.{target.attr}`, set here "
                           f"to a value computed from the arguments, where the function's "
                           f"result is not used: the object keeps it after the call",
                           hint=_HINT)


def _refuse_call(parsed, call, local, checked):
    """A call inside the helper that writes a value of its arguments outside them: into a
    module array through `out=` (or `np.copyto`, ...), or through an in-place method called by
    name."""
    func = call.func
    if isinstance(func, gast.Attribute) and func.attr in _IN_PLACE_METHODS:
        raise parsed.error(call, f"cannot follow `{func.attr}` called by name on a value "
                           f"computed from the arguments, where the function's result is not "
                           f"used", hint="write the operation (`v *= 2.0`) in the function you "
                                         "differentiate, or return the new value")
    key = classify(call, parsed, local).key
    for written in written_arguments(call, key):
        root = root_name(written)
        if root is not None and root.id not in local:
            raise parsed.error(written, f"cannot follow the derivative written into "
                               f"`{root.id}`, an array outside the function", hint=_HINT)
    if is_user_function(key):
        refuse_state_kept_by(parsed, call, local, checked)
