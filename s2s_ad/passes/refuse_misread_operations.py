"""Refuse, at transform time and for both modes, operations whose rule would read the values it
is given in a way the operation does not: the derivative would come out silently wrong.

Only operations that read a value in `varied` (one that depends on what is differentiated) are
refused; the same code on constants is left alone.
"""
import builtins

import gast
import numpy as np

from .. import rules
from ..analysis.aliasing import fresh_containers
from ..analysis.call_results import results_of_user_calls
from ..analysis.primitives import classify
from .lower_sequence_arithmetic import displays_in
from ..traversal import walk, walk_statements


def refuse_misread_operations(parsed, body, local_names, varied):
    """Raise at the first operation in the normal-form `body` whose rule cannot read it right."""
    sequences = set(displays_in(body)) | fresh_containers(parsed.node)
    maybe = results_of_user_calls(body, parsed, local_names, sequences) - sequences
    for statement in walk_statements(body):
        value = getattr(statement, "value", None)
        if not isinstance(statement, gast.Assign) or value is None:
            continue
        if isinstance(value, gast.BinOp) and _reads(value, varied):
            _check_sequence_arithmetic(parsed, statement, sequences)
            _check_join_with_a_returned_value(parsed, statement, sequences, maybe)
        if isinstance(value, gast.Subscript) and _reads(value.slice, varied):
            _check_index_call(parsed, value, local_names, varied)
        if isinstance(value, gast.Call) and _reads(value, varied):
            _check_unsupported_option(parsed, value, local_names)


# (callable, parameter, its position, the values the rules support, what to say, a hint); a
# value that is not written out as a literal is refused too, unless the rule's run-time helpers
# check it (_CHECKED_WHEN_RUN)
_OPTIONS_WITHOUT_RULES = [
    # (the modes computed from the values are written out by definitions.pad_from_values)
    (np.pad, "mode", 2, ("constant", "empty", "edge", "reflect", "symmetric", "wrap",
                         "linear_ramp", "maximum", "mean", "median", "minimum"),
     "np.pad(..., mode=...) other than 'constant', 'empty', 'edge', 'reflect', 'symmetric', "
     "'wrap', 'linear_ramp', 'maximum', 'mean', 'median' or 'minimum' (a callable)",
     "build the padding from slices with np.concatenate, or pad with one of those modes"),
    (np.pad, "reflect_type", None, ("even",), "np.pad(..., reflect_type='odd')",
     "pad with reflect_type='even' (the default) and build the odd extension from it: "
     "2 * edge - reflected"),
    (np.average, "returned", 4, (False,), "np.average(..., returned=True)",
     "compute np.average(...) and np.sum(weights, ...) separately"),
    (builtins.max, "key", None, (None,), "max(..., key=...)",
     "bind the sequence to a name first (`xs = [...]`, then `max(xs, key=...)`), or pick the "
     "index with np.argmax of the keys and index with it"),
    (builtins.min, "key", None, (None,), "min(..., key=...)",
     "bind the sequence to a name first (`xs = [...]`, then `min(xs, key=...)`), or pick the "
     "index with np.argmin of the keys and index with it"),
]
_CHECKED_WHEN_RUN = {(np.pad, "mode")}       # runtime.unpad and repad refuse another mode


def _check_unsupported_option(parsed, call, local_names):
    """An option whose rule is not written (it would fail when the derivative runs)."""
    key = classify(call, parsed, local_names).key
    for primal, name, position, supported, what, hint in _OPTIONS_WITHOUT_RULES:
        if key is not primal:
            continue
        given = {k.arg: k.value for k in call.keywords}.get(name)
        if given is None and position is not None and len(call.args) > position:
            given = call.args[position]
        if given is None or isinstance(given, gast.Constant) and given.value in supported:
            continue
        if not isinstance(given, gast.Constant) and (primal, name) in _CHECKED_WHEN_RUN:
            continue
        raise parsed.error(call, f"cannot differentiate {what}", hint=hint)


def _check_sequence_arithmetic(parsed, statement, sequences):
    """`xs * n` or `xs + ys` on lists known as such: concatenation and repetition, which the
    elementwise rules of `+` and `*` would read as arithmetic. Those written out were lowered
    to the display they make (passes/lower_sequence_arithmetic.py)."""
    operation = statement.value
    known = [o for o in (operation.left, operation.right) if isinstance(o, (gast.List, gast.Tuple))
             or isinstance(o, gast.Name) and o.id in sequences]
    if known and (isinstance(operation.op, gast.Mult) or
                  isinstance(operation.op, gast.Add) and len(known) == 2):
        raise parsed.error(
            statement, "cannot differentiate `+` or `*` on lists or tuples here (concatenation, "
            "or repetition by a count that is not a number written out)",
            hint="bind the joined list to a name on its own line (`ys = xs + [v]`), write the "
                 "list out (`[a, a, a]`, or `[a] * 3` with the count written as a number), or "
                 "append the entries to a new list")


def _check_join_with_a_returned_value(parsed, statement, sequences, maybe):
    """`xs + f(x)` with `xs` a list (or what a function returned too) and `f(x)` what a
    function of the user's returned, which may be a list (a concatenation) or an array (an
    elementwise sum): which one is known only when it runs, and the derivatives differ."""
    operation = statement.value
    operands = [o.id if isinstance(o, gast.Name) else None
                for o in (operation.left, operation.right)]
    if not isinstance(operation.op, gast.Add) or not any(n in maybe for n in operands) or \
            not all(n in sequences or n in maybe for n in operands):
        return
    raise parsed.error(
        statement, "cannot differentiate `+` of a list or tuple and what a function returned "
        "here: whether it joins two lists or adds an array to the list's entries is known only "
        "when it runs", hint="convert the returned value to what you mean: `list(...)` (or "
        "`tuple(...)`) of it to join, `np.asarray(...)` of it to add")


def _reads(node, varied):
    return any(isinstance(n, gast.Name) and n.id in varied for n in walk(node))


def _may_hold_tuple(parsed, entry):
    """Is the single index entry `entry` of np.r_[entry] a value that may be a tuple: a name
    the function binds to a tuple (`parts = (x, 2 * x)`), or a call of `tuple`?"""
    if isinstance(entry, gast.Call) and isinstance(entry.func, gast.Name) and \
            entry.func.id == "tuple":
        return True
    if not isinstance(entry, gast.Name):
        return False
    for node in walk(parsed.node):
        targets = node.targets if isinstance(node, gast.Assign) else \
            [node.target] if isinstance(node, (gast.AnnAssign, gast.AugAssign)) else []
        value = getattr(node, "value", None)
        for target in targets:
            if isinstance(target, gast.Name) and target.id == entry.id and (
                    isinstance(value, gast.Tuple) or isinstance(node, gast.AugAssign) or
                    isinstance(value, gast.Call) and isinstance(value.func, gast.Name)
                    and value.func.id == "tuple"):
                return True
    return False


def _check_index_call(parsed, expr, local_names, varied):
    """`np.r_[...]`, `np.mgrid[...]`: an index that computes values. A range written as a slice
    (`np.r_[a:b]`, `np.mgrid[0:n:s]`) is taken as a constant by every rule, and the 'r'/'c'
    directives of np.r_/np.c_ make an np.matrix, whose `*` is a matrix product."""
    primitive = classify(expr, parsed, local_names)
    if primitive.key is rules.SUBSCRIPT:
        return                         # ordinary indexing: the index only picks entries
    index = expr.slice
    entries = index.elts if isinstance(index, gast.Tuple) else [index]
    name = primitive.label[:-len("[...]")]
    for entry in entries:
        if isinstance(entry, gast.Slice) and _reads(entry, varied):
            raise parsed.error(expr, f"cannot differentiate a range (`start:stop:step`) in "
                               f"{name}[...] whose bounds depend on what you differentiate",
                               hint="build the range with np.arange or np.linspace, or wrap "
                                    "the bounds in s2s_ad.stop_gradient(...)")
    if not isinstance(index, gast.Tuple) and _may_hold_tuple(parsed, index):
        raise parsed.error(expr, f"cannot differentiate {name}[t] where t holds a tuple: "
                           f"NumPy takes the tuple's entries as the entries of {name}[...], "
                           f"and s2s_ad would take t as one entry",
                           hint=f"write the entries in the brackets ({name}[a, b]) or use "
                                f"np.concatenate")
    first = entries[0]
    if isinstance(first, gast.Constant) and first.value in ("r", "c"):
        raise parsed.error(expr, f"{name}['{first.value}', ...] makes an np.matrix, which "
                           f"cannot be differentiated (its `*` is a matrix product)",
                           hint=f"leave out '{first.value}' and use np.asarray / @ on the array")
