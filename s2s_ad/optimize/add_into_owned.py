"""AddIntoOwned: an adjoint accumulation into an array the derivative owns is done in place.

    dlogits = dshifted                                  dlogits = dshifted
    ...                                         ->      ...
    dlogits = dlogits + extremum_share(g, x, y)         dlogits = add_extremum_share(dlogits, g, x, y)

`add_extremum_share` writes the max's adjoint into the winners' entries of `dlogits` (where it
is a NumPy array of the sum's shape and dtype, else it makes the sum): no temporaries the size
of `x`. That is the sum only where nothing can see the array change: `dlogits` holds an array
that arithmetic of this block made (a BinOp or a UnaryOp: a new object), no reference to it
has left the block's names (read only as an operand, by a reduction method, or for its
shape), and no other name holding it is read again. Inside a loop, "again" includes the next
step: the other names are read only between the array's making and the addition.

Reverse mode over such code (third derivatives) reads it with the sum spelled out
(passes/lower_accumulations.py); forward mode has a rule for the helper.
"""
from collections import Counter

import gast

from .. import runtime
from ..traversal import stores, walk, walk_statements

# helper -> the helper that adds its result into an owned first argument
_ADDED_INTO = {runtime.extremum_share: runtime.add_extremum_share}
# a read of an array that keeps no reference to it: attributes that are new values...
_VALUE_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype"})
# ...and methods that return new arrays
_REDUCTIONS = frozenset({"sum", "prod", "max", "min", "mean", "any", "all"})
# code that runs later than the statement that holds it
_DEFERRED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.GeneratorExp)


class AddIntoOwned:
    """`names`: the generated code's helper names (the new helpers are added there)."""

    def __init__(self, names):
        self.names = names
        self.helpers = {k: v for k, v in names.items() if any(v is h for h in _ADDED_INTO)}

    def run(self, function):
        if not self.helpers or not any(self._accumulation(s) for s in walk_statements(function.body)):
            return function
        self.scope(function)
        return function

    def scope(self, function):
        """Rewrite in `function`, a nested function (a split callee's backward pass) on its
        own: what it reads when it runs, and what it shares with the function around it
        (`nonlocal`, `global`), may be seen after any of its statements."""
        outer = getattr(self, "function", None), getattr(self, "reads", None), \
            getattr(self, "captured", None)
        self.function = function
        self.reads, deferred, self.captured = Counter(), [], set()
        for node in walk(function):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                self.reads[node.id] += 1
            elif isinstance(node, _DEFERRED) and node is not function:
                deferred.append(node)
            elif isinstance(node, (gast.Nonlocal, gast.Global)):
                self.captured.update(node.names)
        # read when a nested function, lambda or generator runs: after any statement
        self.captured.update(n.id for inner in deferred for n in walk(inner)
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
        owned = _Ownership()
        for k, statement in enumerate(statements[:last + 1]):
            rewritten = self._rewrite(statements, k, owned, in_loop)
            owned.after(statement, k)
            if rewritten is not None:     # the sum, made in place or anew, is owned too
                owned.group[rewritten] = (k, {rewritten})

    def _rewrite(self, statements, k, owned, in_loop):
        """Rewrite `statements[k]` if it adds into an owned array; returns its target if so."""
        found = self._accumulation(statements[k])
        if found is None or found[0] not in owned.group:
            return None
        target, call = found
        made, members = owned.group[target]
        start = made + 1 if in_loop else 0
        if members & self.captured or any(
                self.reads[m] != _loads(statements[start:k + 1], m)
                for m in members if m != target):
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


class _Ownership:
    """Which names of a block hold an array the block made, known to be held by names only."""

    def __init__(self):
        self.group = {}         # name -> (position where its array was made, the names holding it)

    def after(self, statement, position):
        """Update the facts past `statement`, at `position` in the block."""
        for name in _escaping(statement):
            for member in self.group.get(name, (0, ()))[1]:
                self.group.pop(member, None)
        written = stores(statement)
        made = _made(statement)
        for name in written:
            self._drop(name)
        if made is None:
            return
        target, source = made
        if source is None:
            self.group[target] = (position, {target})
        elif source in self.group:
            self.group[target] = self.group[source]
            self.group[target][1].add(target)

    def _drop(self, name):
        entry = self.group.pop(name, None)
        if entry is not None:
            entry[1].discard(name)


def _made(statement):
    """(target, None) for `t = <arithmetic>` (a new object), (target, source) for `t = s`."""
    if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], gast.Name)):
        return None
    target, value = statement.targets[0].id, statement.value
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):
        return target, None
    if isinstance(value, gast.Name) and value.id != target:
        return target, value.id
    return None


def _escaping(statement):
    """The names `statement` reads in a way that may keep a reference to their value: every
    read except as an operand of arithmetic or a comparison, as the owner of a reduction
    method that is called, and for a value attribute (and `t = s`, which _made follows).
    A compound statement's reads all count, and those of a statement holding a lambda."""
    reads, harmless = [], set()
    simple = isinstance(statement, (gast.Assign, gast.AugAssign, gast.Expr, gast.Return))
    for node in walk(statement):
        if isinstance(node, gast.Name):
            if isinstance(node.ctx, gast.Load):
                reads.append(node)
        elif isinstance(node, gast.BinOp):
            harmless |= {id(node.left), id(node.right)}
        elif isinstance(node, gast.UnaryOp):
            harmless.add(id(node.operand))
        elif isinstance(node, gast.Compare):
            harmless |= {id(node.left)} | {id(c) for c in node.comparators}
        elif isinstance(node, gast.Attribute) and node.attr in _VALUE_ATTRIBUTES:
            harmless.add(id(node.value))
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in _REDUCTIONS:
            harmless.add(id(node.func.value))
        elif isinstance(node, _DEFERRED):
            simple = False
    if not simple:
        return {n.id for n in reads}
    if _made(statement) is not None and isinstance(statement.value, gast.Name):
        harmless.add(id(statement.value))
    return {n.id for n in reads if id(n) not in harmless}


def _loads(node, name):
    """How many times `node` (a tree or a list of statements) reads `name`."""
    nodes = node if isinstance(node, list) else [node]
    return sum(isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load)
               for tree in nodes for n in walk(tree))
