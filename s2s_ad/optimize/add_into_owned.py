"""AddIntoOwned: an adjoint accumulation into an array the derivative owns is done in place.

    dlogits = dshifted                                  dlogits = dshifted
    ...                                         ->      ...
    dlogits = dlogits + extremum_share(g, x, y)         dlogits = add_extremum_share(dlogits, g, x, y)

`add_extremum_share` writes the max's adjoint into the winners' entries of `dlogits` (where it
is a NumPy array of the sum's shape and dtype, else it makes the sum): no temporaries the size
of `x`. That is the sum only where nothing can see the array change: `dlogits` holds an array
the block made, that no other name holding it, or holding a value that may hold it, reads
again (optimize/owned_arrays.py). Inside a loop, "again" includes the next step: those names
are read only between the array's making and the addition.

Reverse mode over such code (third derivatives) reads it with the sum spelled out
(passes/lower_accumulations.py); forward mode has a rule for the helper.
"""
from collections import Counter

import gast

from .. import runtime
from ..traversal import DEFERRED, DYNAMIC_LOCALS, walk, walk_statements
from .owned_arrays import Ownership, captured

# helper -> the helper that adds its result into an owned first argument
_ADDED_INTO = {runtime.extremum_share: runtime.add_extremum_share}


class AddIntoOwned:
    """`names`: the generated code's helper names (the new helpers are added there)."""

    def __init__(self, names):
        self.names = names
        self.helpers = {k: v for k, v in names.items() if any(v is h for h in _ADDED_INTO)}

    def run(self, function):
        if not self.helpers or not any(self._accumulation(s) for s in walk_statements(function.body)) \
                or any(isinstance(n, gast.Name) and n.id in DYNAMIC_LOCALS for n in walk(function)):
            return function
        self.scope(function)
        return function

    def scope(self, function):
        """Rewrite in `function`, a nested function (a split callee's backward pass) on its
        own: what code nested in it does when it runs, and what it shares with the function
        around it, may be seen after any of its statements (owned_arrays.captured)."""
        outer = getattr(self, "function", None), getattr(self, "reads", None), \
            getattr(self, "captured", None)
        self.function, self.captured = function, captured(function)
        self.reads = Counter(n.id for n in walk(function)
                             if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load))
        self.block(function.body, in_loop=False)
        self.function, self.reads, self.captured = outer

    def block(self, statements, in_loop):
        for statement in statements:
            if isinstance(statement, gast.FunctionDef):
                self.scope(statement)
                continue
            loop = isinstance(statement, (gast.For, gast.While))
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    self.block(inner, in_loop or loop)
        last = max((k for k, s in enumerate(statements) if self._accumulation(s)), default=None)
        if last is None:
            return                      # (the facts cost a walk of each statement)
        owned = Ownership()
        for k, statement in enumerate(statements[:last + 1]):
            rewritten = self._rewrite(statements, k, owned, in_loop)
            owned.after(statement, k)
            if rewritten is not None:     # the sum, made in place or anew, is owned too
                owned.start(rewritten, k)

    def _rewrite(self, statements, k, owned, in_loop):
        """Rewrite `statements[k]` if it adds into an owned array; returns its target if so."""
        found = self._accumulation(statements[k])
        if found is None or found[0] not in owned.group:
            return None
        target, call = found
        group = owned.group[target]
        start = group.made + 1 if in_loop else 0
        others = (group.members | group.observers) - {target}
        if any(isinstance(n, DEFERRED + (gast.NamedExpr,)) for n in walk(statements[k])) or \
                (others | {target}) & self.captured or \
                any(self.reads[m] != _loads(statements[start:k + 1], m) for m in others):
            return None
        helper = self._added_helper(self.helpers[call.func.id])
        statements[k].value = gast.Call(func=gast.Name(id=helper, ctx=gast.Load(), annotation=None,
                                                       type_comment=None),
                                        args=[gast.Name(id=target, ctx=gast.Load(), annotation=None,
                                                        type_comment=None)] + call.args,
                                        keywords=call.keywords)
        return target

    def _accumulation(self, statement):
        """(target, call) of `t = t + helper(...)` with a helper in the table; else None."""
        if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1
                and isinstance(statement.targets[0], gast.Name)):
            return None
        value, target = statement.value, statement.targets[0].id
        if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add)
                and isinstance(value.left, gast.Name) and value.left.id == target):
            return None
        call = value.right
        if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Name)
                and call.func.id in self.helpers
                and not any(isinstance(a, gast.Starred) for a in call.args)):
            return None
        return target, call

    def _added_helper(self, helper):
        added = _ADDED_INTO[helper]
        name = next((k for k, v in self.names.items() if v is added), None)
        if name is None:
            name = added.__name__
            taken = {n.id for n in walk(self.function) if isinstance(n, gast.Name)}
            while name in self.names or name in taken:
                name += "_"
            self.names[name] = added
        return name


def _loads(statements, name):
    """How many times `statements` read `name`."""
    return sum(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               for tree in statements for n in walk(tree))
