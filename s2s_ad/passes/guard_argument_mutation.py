"""A call of the user's own function that writes into an argument in place.

The callee changes the caller's array behind the transformer's back: reverse mode re-runs the
callee's derivative in the backward pass, which would see the changed array (and change it
again: `a *= 0.5` halves a constant argument twice), and forward mode's derivative of the
callee works on a copy, so the caller would not see the change at all. Both modes refuse a
write into the argument, and check `a op= v` when it runs (numbers are rebound: fine).

An argument that is arithmetic written in the call (`h(x * 2.0)`) is an array only the callee
holds: the change is seen by no one, and the callee's derivative works on its own copy anyway.
Such a write is checked when it runs instead (the value must be an array arithmetic made, not a
list holding the caller's arrays: `[x] * 2`)."""
import gast

from .. import build, runtime
from ..analysis.call_results import is_user_function, mutated_parameters_of
from ..analysis.primitives import classify
from ..frontend import parse_function
from ..frontend.parse import signature_of
from ..traversal import loads, rewrite_blocks, walk, walk_statements


def guard_argument_mutation(transform, body, varied):
    """`body` with a check before each call that may update an argument (`a op= v`, also
    through a name holding one of its entries); raises for a call whose callee writes into a
    varied one (`a[i] = v`). `transform` gives the
    function (`parsed`, `local_names`) and the checks' name (`inserted_check`)."""
    guards = {}
    checked = _checked_fresh(transform.parsed, body)
    for statement in walk_statements(body):
        call = getattr(statement, "value", None)
        if not isinstance(statement, (gast.Assign, gast.Expr)) or not isinstance(call, gast.Call):
            continue
        fn = classify(call, transform.parsed, transform.local_names).key
        if not is_user_function(fn):
            continue
        # an update in place of a value the backward pass reads makes it wrong even where the
        # call involves no varied value: the run-time checks guard every call; the refusal
        # of a certain write, those that carry a derivative
        involves_varied = bool(varied.intersection(loads(call)))
        mutated = mutated_parameters_of(fn, fn.__code__)
        try:
            bound = signature_of(fn).bind(*call.args, **{k.arg: k.value for k in call.keywords})
        except TypeError:
            continue
        again = getattr(fn, "__s2s_checkpoint__", False)      # runs again on what it was given
        for param, update in mutated.items():
            argument = bound.arguments.get(param)
            if not isinstance(argument, gast.Name) or argument.id in checked or \
                    not _rebinding(update) and not involves_varied:
                continue       # `checked`: a derivative s2s_ad wrote checks it already
            check = _check_of(transform, call, fn, param, update, argument.id, again)
            guards.setdefault(id(statement), []).append(gast.copy_location(check, statement))
    return rewrite_blocks(body, lambda s: guards.get(id(s), []) + [s]) if guards else body


def _rebinding(update):
    """`a op= v` on a name: a number is rebound, an array changed (checked when it runs)."""
    return isinstance(update, gast.AugAssign) and isinstance(update.target, gast.Name)


def _check_of(transform, call, fn, param, update, argument, again=False):
    """The run-time check of `call`, whose callee `fn` updates its `param` (given `argument`)
    at `update`; raises for a write into it that is certain to change the caller's array, or
    (`again`: a checkpoint, which the backward pass runs again on the same argument) that
    changes what that second run reads."""
    callee = parse_function(fn)
    written = transform.parsed.describe(argument)     # never a temporary's name
    line, col = callee.location(update)
    fresh = not again and _arithmetic(transform.parsed, argument)
    if not _rebinding(update) or fresh:         # `h(x * 2.0)`: `a *= 3.0` changes no one's
        message = (f"`{fn.__name__}` writes into its argument `{param}` in place "
                   f"({callee.where(update)}), which changes `{written}` behind the "
                   f"transformer's back")
        hint = (f"copy it inside `{fn.__name__}` first (`{param} = {param}.copy()`), or "
                f"return the new value and assign it")
        if not fresh:
            raise transform.parsed.error(call, message, hint=hint)
        at_line, at_col = transform.parsed.location(call)
        where = f"{transform.parsed.filename}:{at_line}:{at_col + 1}"
        return build.quote(f"{transform.inserted_check(runtime.check_fresh_array)}({argument}, "
                           f"{message!r}, {hint!r}, {where!r})")[0]
    # the update's target is the parameter, or a name holding one of its entries
    checker = runtime.check_rebinds if update.target.id == param \
        else runtime.check_entries_rebind
    # `a += [v]` on the caller's list changes it: refused, unless `a` may be another by then
    passed_in = "" if _bound_again(callee.node, param) else ", passed_in=True"
    indexed = passed_in if update.target.id == param else \
        f", {_indices_taken(callee.node, update.target.id, param)}"
    return build.quote(f"{transform.inserted_check(checker)}({argument}, ({written!r},), "
                       f"{callee.filename + f':{line}:{col + 1}'!r}{indexed})")[0]


def _bound_again(function, param):
    """Does `function` bind its parameter `param` to another value anywhere (`a = list(a)`)?"""
    for node in walk(function):
        targets = node.targets if isinstance(node, gast.Assign) else \
            [node.target] if isinstance(node, (gast.AnnAssign, gast.For)) else []
        if any(isinstance(n, gast.Name) and n.id == param for t in targets for n in walk(t)):
            return True
    return False


def _indices_taken(function, name, param):
    """How many indices every binding of `name` in `function` takes from `param` (`v0 =
    b[0, 2]`: 2), none of them a slice; None where one binds it otherwise. An array with no
    more dimensions than that gives a number or a copy, never a view to write through."""
    counts = set()
    for node in walk(function):
        if isinstance(node, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.For)) and any(
                isinstance(t, gast.Name) and t.id == name for t in walk(
                    node.target if not isinstance(node, gast.Assign) else gast.Tuple(
                        elts=node.targets, ctx=gast.Store()))):
            if isinstance(node, gast.AugAssign):
                continue                      # the update itself
            value = node.value if isinstance(node, gast.Assign) else None
            if not (isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)
                    and value.value.id == param and len(node.targets) == 1
                    and isinstance(node.targets[0], gast.Name)):
                return None
            index = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
            if any(isinstance(i, (gast.Slice, gast.Starred)) or (
                    isinstance(i, gast.Constant) and i.value in (None, Ellipsis)) for i in index):
                return None
            counts.add(len(index))
    return min(counts) if counts else None


def _checked_fresh(parsed, body):
    """The names a derivative s2s_ad wrote passes to check_fresh_array (differentiated again:
    its temporaries are names of its own, the check it holds is the first pass's)."""
    if not parsed.generated:
        return set()
    return {s.value.args[0].id for s in walk_statements(body)
            if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) and s.value.args
            and isinstance(s.value.args[0], gast.Name) and isinstance(s.value.func, gast.Name)
            and parsed.namespace.get(s.value.func.id) is runtime.check_fresh_array}


def _arithmetic(parsed, name):
    """Is `name` a temporary holding arithmetic the user wrote in place of an argument?"""
    held = parsed.temporaries.get(name)
    return held is not None and held.span is not None and \
        isinstance(held.value, (gast.BinOp, gast.UnaryOp))
