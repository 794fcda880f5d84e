"""A call of the user's own function that writes into an argument in place.

The callee changes the caller's array behind the transformer's back: reverse mode re-runs the
callee's derivative in the backward pass, which would see the changed array (and change it
again: `a *= 0.5` halves a constant argument twice), and forward mode's derivative of the
callee works on a copy, so the caller would not see the change at all. Both modes refuse a
write into the argument, and check `a op= v` when it runs (numbers are rebound: fine)."""
import gast

from .. import build, runtime
from ..analysis.call_results import is_user_function, mutated_parameters_of
from ..analysis.primitives import classify
from ..frontend import parse_function
from ..frontend.parse import signature_of
from ..traversal import loads, rewrite_blocks, walk_statements


def guard_argument_mutation(transform, body, varied):
    """`body` with a check before each call that may update an argument (`a op= v`, also
    through a name holding one of its entries); raises for a call whose callee writes into a
    varied one (`a[i] = v`). `transform` gives the
    function (`parsed`, `local_names`) and the checks' name (`inserted_check`)."""
    guards = {}
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
        for param, update in mutated.items():
            argument = bound.arguments.get(param)
            if not isinstance(argument, gast.Name):
                continue
            callee = parse_function(fn)
            written = transform.parsed.describe(argument.id)     # never a temporary's name
            if not isinstance(update, gast.AugAssign) or not isinstance(update.target, gast.Name):
                if not involves_varied:
                    continue
                raise transform.parsed.error(
                    call, f"`{fn.__name__}` writes into its argument `{param}` in place "
                    f"({callee.where(update)}), which changes `{written}` behind the "
                    f"transformer's back", hint=f"copy it inside `{fn.__name__}` first "
                    f"(`{param} = {param}.copy()`), or return the new value and assign it")
            line, col = callee.location(update)
            # the update's target is the parameter, or a name holding one of its entries
            checker = runtime.check_rebinds if update.target.id == param \
                else runtime.check_entries_rebind
            check = build.quote(f"{transform.inserted_check(checker)}({argument.id}, "
                                f"({written!r},), {callee.filename + f':{line}:{col + 1}'!r})")[0]
            guards.setdefault(id(statement), []).append(gast.copy_location(check, statement))
    return rewrite_blocks(body, lambda s: guards.get(id(s), []) + [s]) if guards else body
