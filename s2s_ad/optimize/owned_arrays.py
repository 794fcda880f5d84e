"""Which names of a block of generated code hold an array the block made and nobody else can
see, statement by statement (optimize/add_into_owned.py writes into such an array in place).

An array is *made* by arithmetic bound to a name (`t = a * b`: a new object) and then held by
the names it is copied to (`u = t`): its *members*. A name bound to arithmetic that reads a
member (`s = c + t`) is an *observer*: where an operand is a container or an object of the
user's, the result may hold the array or views of it (a GradList keeps an array's rows), so it
must not be read after the array changes either. Every other read of a member or observer
(passed to a call, put in a container, sliced, returned, read in a block of its own or by a
nested function) may keep a reference the analysis cannot follow: the array is no longer
owned. So is it after a statement the analysis does not model (an import, `del`, `try`, ...),
and where a name is bound in any other way than by a plain assignment of this block (a loop
target, a walrus, `+=`, a branch).
"""
import gast

from ..traversal import DEFERRED, stores, walk

# a read of a member that keeps no reference to it: attributes that are new values...
_VALUE_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype"})
# ...and NumPy's methods that return new arrays (a member that is still one when it is written
# into was one when they ran)
_REDUCTIONS = frozenset({"sum", "prod", "max", "min", "mean", "any", "all"})
_ARITHMETIC = (gast.BinOp, gast.UnaryOp, gast.Compare)
_MODELED = (gast.Assign, gast.Expr, gast.Return, gast.If, gast.For, gast.While, gast.Pass,
            gast.Break, gast.Continue, gast.FunctionDef)


class Group:
    """The names holding one array made at `made` (a position in the block), and the names
    whose values may hold it or views of it."""

    def __init__(self, made, members):
        self.made, self.members, self.observers = made, set(members), set()


class Ownership:
    """The owned arrays of a block, updated past each of its statements in order."""

    def __init__(self):
        self.group = {}         # member -> its Group
        self.observing = {}     # observer -> the Groups it observes

    def start(self, name, position):
        """`name` holds a new array from `position` on (the result of an addition into it)."""
        self._drop(name)
        self.group[name] = Group(position, {name})

    def after(self, statement, position):
        """Update the facts past `statement`, at `position` in the block."""
        if not isinstance(statement, _MODELED):
            self.group.clear()
            self.observing.clear()
            return
        rebound = _rebound(statement)
        for name in _escaping(statement) | (stores(statement) - rebound):
            self._escape(name)
        made = _made(statement)
        observed = self._observed_by(statement) if made else []
        for name in rebound:
            self._drop(name)
        if made is None:
            return
        target, source = made
        if source is None:
            self.group[target] = Group(position, {target})
        elif source in self.group:
            self.group[target] = self.group[source]
            self.group[target].members.add(target)
        for group in observed:
            group.observers.add(target)
            self.observing.setdefault(target, []).append(group)

    def _observed_by(self, statement):
        """The Groups whose array the arithmetic value of `statement` has for an operand
        (directly or through an observer)."""
        if not isinstance(statement.value, _ARITHMETIC):
            return []
        found, operands = [], _top_operands(statement.value)
        for node in walk(statement.value):
            if isinstance(node, gast.Name) and id(node) in operands:
                found += ([self.group[node.id]] if node.id in self.group else []) + \
                    self.observing.get(node.id, [])
        return found

    def _escape(self, name):
        for group in ([self.group[name]] if name in self.group else []) + \
                self.observing.get(name, []):
            for member in list(group.members):
                self.group.pop(member, None)
            for observer in group.observers:
                self.observing.pop(observer, None)

    def _drop(self, name):
        group = self.group.pop(name, None)
        if group is not None:
            group.members.discard(name)
        for group in self.observing.pop(name, []):
            group.observers.discard(name)


def _rebound(statement):
    """The names a plain assignment binds (`t = ...`, `a, b = ...`), unconditionally."""
    if not isinstance(statement, gast.Assign):
        return set()
    return {n.id for target in statement.targets for n in walk(target)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)
            and _only_names(target)}


def _only_names(target):
    return isinstance(target, gast.Name) or isinstance(target, (gast.Tuple, gast.List)) and \
        all(_only_names(e.value if isinstance(e, gast.Starred) else e) for e in target.elts)


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
    read except as an operand of the arithmetic a plain assignment binds (whose target then
    observes it) or an expression statement drops, as the owner of a reduction method that is
    called, for a value attribute, and `t = s` (which joins t to s). A compound statement's
    reads all count, and those of a statement holding code that runs later or a walrus."""
    reads = [n for n in walk(statement) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]
    if not isinstance(statement, (gast.Assign, gast.Expr, gast.Return)) or any(
            isinstance(n, DEFERRED + (gast.NamedExpr,)) for n in walk(statement)):
        return {n.id for n in reads}
    harmless = set()
    if not isinstance(statement, gast.Return) and (
            isinstance(statement, gast.Expr) or _made(statement) is not None):
        harmless |= _top_operands(statement.value)
    for node in walk(statement):
        if isinstance(node, gast.Attribute) and node.attr in _VALUE_ATTRIBUTES:
            harmless.add(id(node.value))
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in _REDUCTIONS:
            harmless.add(id(node.func.value))
    return {n.id for n in reads if id(n) not in harmless}


def _top_operands(value):
    """The ids of the operands of the arithmetic at the top of `value` (and `value` itself)."""
    found, todo = {id(value)}, [value]
    while todo:
        node = todo.pop()
        if isinstance(node, _ARITHMETIC):
            operands = [node.left, node.right] if isinstance(node, gast.BinOp) else \
                [node.operand] if isinstance(node, gast.UnaryOp) else \
                [node.left] + list(node.comparators)
            found |= {id(o) for o in operands}
            todo += operands
    return found


def captured(function):
    """The names code nested in `function` reads or binds (a walrus in a generator binds in
    the function's own scope) when it runs, which may be after any statement; and the names
    `function` shares with the code around it (`nonlocal`, `global`)."""
    names = set()
    for node in walk(function):
        if isinstance(node, DEFERRED) and node is not function:
            names.update(n.id for n in walk(node) if isinstance(n, gast.Name))
        elif isinstance(node, (gast.Nonlocal, gast.Global)):
            names.update(node.names)
    return names
