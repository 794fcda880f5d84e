"""The kind (analysis.kinds) of what a call of a user function returns: the shape facts of its
own source, for the kinds of the arguments passed. A loss that calls `logits = model(params,
X)` then knows `logits` is a matrix of the batch's rows, and its softmax needs no
`unbroadcast`, as if `model` had been written inline.

The answer is read from the callee's source as it is when the caller's derivative is made, so
each function read is recorded as one the derivative was made from (ParsedFunction.inlined):
the derivative is made again once one of them, or a function it calls by name, is rebound.
"""
import types

import gast

from ..errors import TransformError
from ..frontend.parse import parse_for_reading
from ..traversal import walk_statements
from .activity import assigned_names
from .shape_calls import BOTTOM, join

MOST_NESTED = 4                         # calls followed into callees' callees


def returned_kind(facts_of, fn, kinds, made_from, depth):
    """The kind of `fn(*args)` for arguments of `kinds` (None: not known). `facts_of(parsed,
    body, params, local_names, kinds, depth)` makes the callee's facts; `made_from` collects
    the functions whose source the answer read."""
    if depth >= MOST_NESTED or not _plain_function(fn):
        return None
    try:
        parsed = parse_for_reading(fn)
    except TransformError:
        return None
    node = parsed.node
    params = [a.id for a in node.args.args]
    if node.args.vararg or node.args.kwarg or node.args.kwonlyargs or \
            node.args.posonlyargs or len(params) != len(kinds) or \
            not node.body or not isinstance(node.body[-1], gast.Return) or \
            not _read_as_written(node):
        return None                     # arguments bound otherwise, or a path returns None
    returns = [s for s in walk_statements(node.body) if isinstance(s, gast.Return)]
    if any(r.value is None for r in returns):
        return None
    facts = facts_of(parsed, node.body, params, set(params) | set(assigned_names(node.body)),
                     kinds, depth + 1)
    kind = BOTTOM
    for statement in returns:
        kind = join(kind, facts.of(statement.value))
    if kind is None or kind == BOTTOM:
        return None
    if (None, fn) not in made_from:
        made_from.append((None, fn))
    return kind


# the statements whose bindings and returns the facts of unnormalized source follow
# (analysis.shapes._bindings, traversal.walk_statements): no `try` (its handlers' returns),
# `match`, `:=`, `global`/`nonlocal` or nested function and class
_FOLLOWED = (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return, gast.If,
             gast.For, gast.While, gast.With, gast.Pass, gast.Break, gast.Continue, gast.Raise,
             gast.Assert)


def _read_as_written(node):
    """Can the shape facts read the source of the function `node` as it is written?"""
    return all(isinstance(n, _FOLLOWED) for n in gast.walk(node)
               if isinstance(n, gast.stmt) and n is not node) and \
        not any(isinstance(n, gast.NamedExpr) for n in gast.walk(node))


def _plain_function(fn):
    """A Python function called as it is: no wrapper, no generator, no coroutine."""
    return type(fn) is types.FunctionType and not hasattr(fn, "__wrapped__") and \
        not fn.__code__.co_flags & 0x2A0     # CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR
