"""Shape facts: which names always hold a real number (shape (), never changed in place).

Where an operation's operands and result are all real numbers, broadcasting cannot have
stretched anything, so the emitters leave out `unbroadcast` (and with it the values saved only
for their shape). The facts start from what the arguments were at the first call (their
*kinds*, part of the derivative cache's key, so a call with other kinds gets other code) and
from what the code itself makes: number literals, `len`, `range` counters, arithmetic, math
functions and ufuncs of numbers, an array's entry at integer indices.

They are flow-insensitive: a name is a number only if every binding of it gives one.
"""
import math
from dataclasses import dataclass

import gast
import numpy as np

from ..traversal import walk, walk_statements
from .activity import target_names
from .primitives import classify

INT, REAL, RANGE, REALS = "int", "real", "range", "reals"
_BOTTOM = "unbound"                     # nothing known yet: the start of the fixpoint


@dataclass(frozen=True)
class Array:
    """A NumPy array of real (or integer, or boolean) numbers with `ndim` dimensions."""
    ndim: int


_INT_TYPES = frozenset({int, np.int8, np.int16, np.int32, np.int64,
                        np.uint8, np.uint16, np.uint32, np.uint64})
_REAL_TYPES = frozenset({float, bool, np.float16, np.float32, np.float64, np.bool_}) | _INT_TYPES
_LONGEST_CHECKED = 100_000              # a longer list is not read entry by entry at each call


_NUMBER_KINDS = {**{t: REAL for t in _REAL_TYPES}, **{t: INT for t in _INT_TYPES}}


def kind_of(value):
    """What a value passed to a derivative is, as far as the shape facts care; None when it
    is none of the kinds they know (a dict, a complex number, an object, ...)."""
    t = type(value)
    number = _NUMBER_KINDS.get(t)
    if number is not None:
        return number
    if t is np.ndarray:
        return Array(value.ndim) if value.dtype.kind in "biuf" else None
    if (t is list or t is tuple) and len(value) <= _LONGEST_CHECKED \
            and set(map(type, value)) <= _REAL_TYPES:
        return REALS
    return None


def kinds_of(values):
    return tuple(map(kind_of, values))


def _join(a, b):
    if a == _BOTTOM or a == b:
        return b
    if b == _BOTTOM:
        return a
    return REAL if {a, b} == {INT, REAL} else None


def _is_number(kind):
    return kind in (INT, REAL)


class ShapeFacts:
    """`is_number(name)`: does `name` hold a real number wherever the function binds it?"""

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
        return _is_number(self.kinds.get(name))

    def of(self, node):
        """The kind of a normal-form expression's value (None: not known)."""
        if isinstance(node, gast.Constant):
            value = node.value
            return INT if type(value) is int else REAL if type(value) in (float, bool) else None
        if isinstance(node, gast.Name):
            return self.kinds.get(node.id) if node.id in self.local_names else None
        if isinstance(node, gast.BinOp):
            return _arithmetic(node.op, self.of(node.left), self.of(node.right), node.right)
        if isinstance(node, gast.UnaryOp):
            kind = self.of(node.operand)
            return kind if _is_number(kind) or kind == _BOTTOM else None
        if isinstance(node, gast.Subscript):
            return self._entry(self.of(node.value), node.slice)
        if isinstance(node, gast.IfExp):
            return _join(self.of(node.body), self.of(node.orelse))
        if isinstance(node, gast.Call):
            return self._call(node)
        return None

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
        operands = [self.of(a) for a in node.args] if not node.keywords else [None]
        if key is len:
            return INT
        if key is range:
            return RANGE
        if key is int or key in (math.floor, math.ceil, math.trunc):
            return INT
        if key is float:
            return REAL
        if _BOTTOM in operands:
            return _BOTTOM
        numbers_only = operands and all(map(_is_number, operands))
        if numbers_only and (key in (abs, min, max) or _is_math(key) or
                             isinstance(key, np.ufunc) and key.nout == 1):
            return REAL
        return None

    def _kept(self, kind, name, body):
        """An argument's kind, if the function cannot change it: a number never changes, but a
        list could be appended to and an array reshaped in place, so those keep their kind only
        where the function reads the name by indexing, `len` or iteration alone."""
        if kind is None or _is_number(kind):
            return kind
        nodes = [n for statement in body for n in walk(statement)]
        uses = [n for n in nodes if isinstance(n, gast.Name) and n.id == name]
        allowed = set()
        for node in nodes:
            if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
                    isinstance(node.ctx, gast.Load):
                allowed.add(id(node.value))
            elif isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                    len(node.args) == 1 and \
                    classify(node, self.parsed, self.local_names).key is len:
                allowed.add(id(node.args[0]))
            elif isinstance(node, gast.For):
                allowed.add(id(node.iter))
        return kind if all(id(u) in allowed for u in uses) else None

def _is_math(key):
    return getattr(key, "__self__", None) is math or getattr(key, "__module__", None) == "math"


def _arithmetic(op, left, right, exponent):
    if _BOTTOM in (left, right):
        return _BOTTOM
    if not (_is_number(left) and _is_number(right)):
        return None
    if isinstance(op, (gast.Add, gast.Sub, gast.Mult, gast.FloorDiv, gast.Mod)):
        return INT if left == right == INT else REAL
    if isinstance(op, gast.Div):
        return REAL
    if isinstance(op, gast.Pow) and isinstance(exponent, gast.Constant) and \
            type(exponent.value) is int:
        # an integer power of a real number is real; `(-8.0) ** (1/3)` is complex in Python
        return INT if left == INT and exponent.value >= 0 else REAL
    return None


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
    if sequence == REALS or sequence == Array(1):
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
