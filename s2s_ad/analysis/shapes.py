"""Shape facts: which names always hold a real number (shape ()), and which arrays have the
shape of an argument array.

Where an operation's operands and result have one shape, broadcasting cannot have stretched
anything, so the emitters leave out `unbroadcast` (and with it the values saved only for
their shape). The facts start from the arguments' kinds at the first call (analysis.kinds)
and from what the code itself makes: number literals, `len`, `range` counters, arithmetic,
math functions and ufuncs, whole-array reductions, an array's entry at integer indices.

They are flow-insensitive: a name has a kind only if every binding of it gives that kind.
"""
import math

import gast
import numpy as np

from ..traversal import walk, walk_statements
from .activity import target_names
from .kinds import INT, RANGE, REAL, REALS, Array, is_number
from .primitives import classify

_BOTTOM = "unbound"                     # nothing known yet: the start of the fixpoint
NUMBER = "()"                           # the shape token of a number
_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.FloorDiv, gast.Mod, gast.Pow)
# whole-array reductions: one argument in, a number out
_REDUCTIONS = (np.sum, np.mean, np.max, np.min, np.amax, np.amin, np.prod, np.linalg.norm)
_INTEGERS = (len, int, math.floor, math.ceil, math.trunc)


def _join(a, b):
    if a == _BOTTOM or a == b:
        return b
    if b == _BOTTOM:
        return a
    return REAL if {a, b} == {INT, REAL} else None


def _broadcast(kinds):
    """The kind of an elementwise result: a number from numbers, the array where the others
    are numbers or arrays of its very shape; None where shapes may differ."""
    if _BOTTOM in kinds:
        return _BOTTOM
    arrays = {k for k in kinds if not is_number(k)}
    if not arrays:
        return INT if all(k == INT for k in kinds) else REAL
    if len(arrays) == 1:
        (array,) = arrays
        if isinstance(array, Array) and array.origin is not None:
            return array
    return None


class ShapeFacts:
    """`token(name)`: what the shape of `name` is known to be (NUMBER, an Array with an
    origin, or None); `is_number(name)`; `entry_is_number(x, index)`."""

    def __init__(self, parsed, body, params, local_names, kinds=None):
        self.parsed = parsed
        self.local_names = local_names
        kinds = dict(zip(params, kinds or ()))
        self.kinds = {p: self._kept(kinds.get(p), p, body) for p in params}
        bindings = list(_bindings(body))
        for name, _ in bindings:
            self.kinds.setdefault(name, _BOTTOM)
        changed = True
        while changed:                  # a monotone fixpoint: each name only climbs
            changed = False
            for name, value in bindings:
                joined = _join(self.kinds[name], value(self))
                if joined != self.kinds[name]:
                    self.kinds[name], changed = joined, True

    def is_number(self, name):
        return is_number(self.kinds.get(name))

    def token(self, name):
        kind = self.kinds.get(name)
        if is_number(kind):
            return NUMBER
        return kind if isinstance(kind, Array) and kind.origin is not None else None

    def entry_is_number(self, container, index):
        """Is `container[index]` (a name, an index of names and literals) a real number of an
        array (not of a list, whose adjoint is a list)?"""
        return isinstance(self.of(container), Array) and self._entry(self.of(container), index) == REAL

    def of(self, node):
        """The kind of a normal-form expression's value (None: not known)."""
        if isinstance(node, gast.Constant):
            value = node.value
            return INT if type(value) is int else REAL if type(value) in (float, bool) else None
        if isinstance(node, gast.Name):
            return self.kinds.get(node.id) if node.id in self.local_names else None
        if isinstance(node, gast.BinOp) and isinstance(node.op, _ARITHMETIC):
            return self._arithmetic(node)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            return _broadcast([self.of(node.operand)])
        if isinstance(node, gast.Subscript):
            return self._entry(self.of(node.value), node.slice)
        if isinstance(node, gast.IfExp):
            return _join(self.of(node.body), self.of(node.orelse))
        if isinstance(node, gast.Call):
            return self._call(node)
        return None

    def _arithmetic(self, node):
        left, right = self.of(node.left), self.of(node.right)
        result = _broadcast([left, right])
        if isinstance(node.op, gast.Pow) and is_number(result) and not (
                isinstance(node.right, gast.Constant) and type(node.right.value) is int):
            return None         # `(-8.0) ** (1/3)` is complex in Python: only integer powers
        if isinstance(node.op, gast.Pow) and result == INT and node.right.value < 0 or \
                isinstance(node.op, gast.Div) and result == INT:
            return REAL
        return result

    def _entry(self, container, index):
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        counts = [self.of(p) for p in parts]
        if _BOTTOM in counts + [container]:
            return _BOTTOM
        if not all(c == INT for c in counts):
            return None
        if container == REALS and len(parts) == 1 or \
                isinstance(container, Array) and container.ndim == len(parts):
            return REAL
        return None

    def _call(self, node):
        key = classify(node, self.parsed, self.local_names).key
        if _one_of(key, _INTEGERS):
            return INT
        if key is range:
            return RANGE
        if key is float:
            return REAL
        if node.keywords or not node.args:
            return None
        operands = [self.of(a) for a in node.args]
        if _BOTTOM in operands:
            return _BOTTOM
        if _one_of(key, _REDUCTIONS) and len(operands) == 1 and (
                isinstance(operands[0], Array) or operands[0] in (INT, REAL, REALS)):
            return REAL
        if _is_elementwise(key) and len(operands) == key.nin:
            return _broadcast(operands)
        if all(map(is_number, operands)) and (_one_of(key, (abs, min, max)) or _is_math(key)):
            return REAL
        return None

    def _kept(self, kind, name, body):
        """An argument's kind, if the function cannot change it: a number never changes, but a
        list could be appended to and an array reshaped in place, so a list keeps its kind only
        where the function reads it by indexing, `len` or iteration alone, and an array where
        it is also an operand of arithmetic or of NumPy functions (never copied to another
        name, handed to a function of yours or resized)."""
        if kind is None or is_number(kind):
            return kind
        nodes = [n for statement in body for n in walk(statement)]
        uses = [n for n in nodes if isinstance(n, gast.Name) and n.id == name]
        allowed = set()
        for node in nodes:
            allowed.update(self._reads_in_place(node, isinstance(kind, Array)))
        if not all(id(u) in allowed for u in uses):
            return None
        return Array(kind.ndim, name) if isinstance(kind, Array) else kind

    def _reads_in_place(self, node, array):
        """The ids of the operands `node` reads without keeping or changing them."""
        if isinstance(node, gast.Subscript) and (array or isinstance(node.ctx, gast.Load)):
            return [id(node.value)]
        if isinstance(node, gast.For):
            return [id(node.iter)]
        if isinstance(node, gast.Call):
            key = classify(node, self.parsed, self.local_names).key
            reads = key is len or array and _is_numpy(key)
            return [id(a) for a in node.args + [k.value for k in node.keywords]] if reads else []
        if not array:
            return []
        if isinstance(node, gast.BinOp):
            return [id(node.left), id(node.right)]
        if isinstance(node, gast.UnaryOp):
            return [id(node.operand)]
        if isinstance(node, gast.Compare):
            return [id(node.left)] + [id(c) for c in node.comparators]
        if isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load) and \
                node.attr != "resize":
            return [id(node.value)]
        return []


def _is_elementwise(key):
    """A ufunc of one output with no core dimensions (np.matmul is a ufunc too, a gufunc)."""
    return isinstance(key, np.ufunc) and key.nout == 1 and key.signature is None


def _one_of(key, functions):
    """`key in functions` by identity: a callable may be unhashable or compare oddly."""
    return any(key is f for f in functions)


def _is_math(key):
    return getattr(key, "__self__", None) is math or getattr(key, "__module__", None) == "math"


def _is_numpy(key):
    return isinstance(key, np.ufunc) or (getattr(key, "__module__", None) or "").startswith("numpy")


def _bindings(body):
    """(name, kind of what this binding gives it, from the facts so far) for each binding."""
    for statement in walk_statements(body):
        if isinstance(statement, gast.Assign):
            target, value = statement.targets[0], statement.value
            if isinstance(target, gast.Name):
                yield target.id, lambda facts, value=value: facts.of(value)
                continue
        if isinstance(statement, gast.For) and isinstance(statement.target, gast.Name):
            yield statement.target.id, lambda facts, over=statement.iter: _element(facts.of(over))
            continue
        for name in _names_bound(statement):
            yield name, lambda facts: None


def _element(sequence):
    if sequence == _BOTTOM:
        return _BOTTOM
    if sequence == RANGE:
        return INT
    if sequence == REALS or isinstance(sequence, Array) and sequence.ndim == 1:
        return REAL
    return None


def _names_bound(statement):
    """Every name `statement` binds other than by a plain `name = value` or `for name in`."""
    if isinstance(statement, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
        targets = statement.targets if isinstance(statement, gast.Assign) else [statement.target]
        return [n for t in targets for n in target_names(t)]
    if isinstance(statement, gast.For):
        return target_names(statement.target)
    if isinstance(statement, (gast.With, gast.Try, gast.FunctionDef, gast.ClassDef,
                              gast.Import, gast.ImportFrom)):
        return [n.id for n in walk(statement) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Store)]
    return []
