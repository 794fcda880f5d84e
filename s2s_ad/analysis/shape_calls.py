"""The kinds (analysis.kinds) of what calls return, for the shape facts (analysis.shapes):
ints from `len` and `int`, ranges, numbers from math functions, and arrays from ufuncs
(broadcasting), matmul, reductions along constant axes, `zeros(x.shape)`, `zeros_like(x)` and
`arange(len(x))`.
A call with keywords other than those that cannot change a shape is not known."""
import math

import gast
import numpy as np

from .. import rules, runtime
from . import dims
from .dims import NUMBER
from .kinds import INT, RANGE, REAL, REALS, Array, Dim, Entries, is_number
from .call_results import is_user_function
from .primitives import classify

BOTTOM = "unbound"                      # nothing known yet: the start of the fixpoint
# reductions: an array (or a list of numbers) in, a number out, or fewer axes with `axis`
_REDUCTIONS = (np.sum, np.mean, np.max, np.min, np.amax, np.amin, np.prod)
_REDUCING_METHODS = {"sum", "mean", "max", "min", "prod"}
_INTEGERS = (int, math.floor, math.ceil, math.trunc)
_MADE = (np.zeros, np.ones, np.empty)
_MADE_LIKE = (np.zeros_like, np.ones_like, np.empty_like)


def plain(kind):
    """An axis size is an int like any other where its class does not matter."""
    return INT if type(kind) is Dim else kind


def join(a, b):
    """The kind of a value that is of kind `a` at one binding and of `b` at another."""
    if a == BOTTOM or a == b:
        return b
    if b == BOTTOM:
        return a
    if type(a) is Array and type(b) is Array and a.ndim == b.ndim:
        return _joined_array(a, b)
    if type(a) is Entries and type(b) is Entries and a.of is b.of and \
            [k for k, _ in a.items] == [k for k, _ in b.items]:
        # (W, b) pairs of layers of different widths: a pair of the joined kinds
        return Entries(a.of, tuple((k, join(x, y)) for (k, x), (_, y) in zip(a.items, b.items)))
    both = {plain(a), plain(b)}
    if both == {INT}:
        return INT
    return REAL if both == {INT, REAL} else None


def _joined_array(a, b):
    if a.dims is None or b.dims is None:
        return Array(a.ndim)
    axes = tuple(map(dims.joined_axis, a.dims, b.dims))
    return Array(a.ndim, None if None in axes else axes)


def token_of(kind):
    """The shape token (analysis.dims) of a value of `kind`."""
    if is_number(kind):
        return NUMBER
    return kind.dims if isinstance(kind, Array) else None


def array_of(token):
    """The kind of a value of shape `token`."""
    if token is None:
        return None
    return REAL if token == NUMBER else Array(len(token), token)


def broadcast(kinds):
    """The kind of an elementwise result: a number from numbers, else the operands' shapes
    broadcast together; None where a shape is not known."""
    if BOTTOM in kinds:
        return BOTTOM
    kinds = [plain(k) for k in kinds]
    if all(map(is_number, kinds)):
        return INT if all(k == INT for k in kinds) else REAL
    return array_of(dims.broadcast([token_of(k) for k in kinds]))


def call_kind(facts, node):
    primitive = classify(node, facts.parsed, facts.local_names)
    key, args, keywords = primitive.key, primitive.args, primitive.keywords
    if key is len:
        return _length(facts.of(args[0])) if len(args) == 1 and not keywords else INT
    if _one_of(key, _INTEGERS):
        return INT
    if key is range:
        return RANGE
    if key is float:
        return REAL
    if not args:
        return None
    operands = [facts.of(a) for a in args]
    if BOTTOM in operands:
        return BOTTOM
    if is_user_function(key) and not keywords and isinstance(node.func, gast.Name):
        # (by its name alone: the derivative is made again once that name is rebound, not
        # once `module.f` or `obj.f` is)
        return facts.returned(key, tuple(operands))
    if _one_of(key, _REDUCTIONS) or isinstance(key, rules.method) and \
            key.name in _REDUCING_METHODS:
        return _reduction(operands[0], args[1:], keywords)
    if key is np.linalg.norm and len(operands) == 1 and not keywords:
        return _reduction(operands[0], [], {})
    if set(keywords) - {"dtype"}:
        return None                     # out=, where=, order=, ...: not followed
    if (_one_of(key, _MADE) or key is np.arange) and len(operands) == 1:
        return _made(operands[0])
    if _one_of(key, _MADE_LIKE) and len(operands) == 1 or key is np.full_like and \
            len(operands) == 2 and is_number(operands[1]):
        return operands[0] if isinstance(operands[0], Array) else None
    if keywords:
        return None
    if key is np.matmul and len(operands) == 2:
        return array_of(dims.matmul(token_of(operands[0]), token_of(operands[1])))
    if key is np.where and len(operands) == 3:
        result = broadcast(operands)    # of numbers alone, a 0-d array: not a number
        return result if isinstance(result, Array) else None
    if _is_elementwise(key) and len(operands) == key.nin:
        return broadcast(operands)
    if all(map(is_number, operands)) and (_one_of(key, (abs, min, max)) or _is_math(key)):
        return REAL
    return None


def _length(kind):
    """`len(x)`: the size of an array's first axis, an int otherwise."""
    if kind == BOTTOM:
        return BOTTOM
    if isinstance(kind, Array) and kind.ndim > 0 and kind.dims is not None:
        return Dim(kind.dims[0])
    return INT


def _reduction(operand, positional, keywords):
    """`np.sum(x)` of an array or a list of numbers is a number; with a constant `axis` (the
    second positional argument or the keyword) and `keepdims`, the axes that remain."""
    if set(keywords) - {"axis", "keepdims", "dtype"} or len(positional) > 1:
        return None
    axis = positional[0] if positional else keywords.get("axis")
    keepdims = keywords.get("keepdims")
    if axis is None and keepdims is None:
        return REAL if isinstance(operand, Array) or operand in (INT, REAL, REALS) else None
    if not isinstance(operand, Array):
        return None
    axis, keepdims = _constant(axis), _constant(keepdims)
    if axis is _UNKNOWN or keepdims is _UNKNOWN or type(keepdims) not in (bool, type(None)):
        return None
    return array_of(dims.reduced(token_of(operand), axis, bool(keepdims)))


_UNKNOWN = object()


def _constant(node):
    """The value of an absent argument (None), a literal, a negated int literal or a tuple of
    int literals; _UNKNOWN otherwise."""
    if node is None:
        return None
    if isinstance(node, gast.Constant):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and \
            isinstance(node.operand, gast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    if isinstance(node, gast.Tuple):
        values = tuple(_constant(e) for e in node.elts)
        return values if all(type(v) is int for v in values) else _UNKNOWN
    return _UNKNOWN


def _made(shape):
    """`np.zeros(shape)` where each size of `shape` is an axis's size (`x.shape`, a tuple of
    `len(x)` and `x.shape[k]`)."""
    if type(shape) is Dim:
        return Array(1, (shape.size,))
    if isinstance(shape, Entries) and shape.of is tuple and \
            all(type(kind) is Dim for _, kind in shape.items):
        return Array(len(shape.items), tuple(kind.size for _, kind in shape.items))
    return None


def _is_elementwise(key):
    """A ufunc of one output with no core dimensions (np.matmul is a ufunc too, a gufunc)."""
    return isinstance(key, np.ufunc) and key.nout == 1 and key.signature is None


def _one_of(key, functions):
    """`key in functions` by identity: a callable may be unhashable or compare oddly."""
    return any(key is f for f in functions)


def _is_math(key):
    return getattr(key, "__self__", None) is math or getattr(key, "__module__", None) == "math"


def is_numpy(key):
    return isinstance(key, np.ufunc) or (getattr(key, "__module__", None) or "").startswith("numpy")


def is_runtime_reader(key):
    """A helper of s2s_ad's that generated code calls: it reads its arguments (a value passed
    for its shape, a container for its structure) and never changes them, but for add_at,
    which adds into its first (an adjoint the derivative owns)."""
    return (getattr(key, "__module__", None) or "").startswith("s2s_ad.runtime") and \
        key is not runtime.add_at
