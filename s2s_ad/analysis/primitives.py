"""What a normal-form expression computes: the primal a rule is looked up by, and its operands."""
import operator
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import gast
import numpy as np

from .. import build, rules
from ..traversal import walk

BINARY = {
    gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
    gast.Div: operator.truediv, gast.Pow: operator.pow, gast.MatMult: operator.matmul,
    gast.Mod: operator.mod, gast.FloorDiv: operator.floordiv, gast.BitAnd: operator.and_,
    gast.BitOr: operator.or_, gast.BitXor: operator.xor, gast.LShift: operator.lshift,
    gast.RShift: operator.rshift,
}
UNARY = {gast.USub: operator.neg, gast.UAdd: operator.pos, gast.Not: operator.not_,
         gast.Invert: operator.invert}
NON_DIFFERENTIABLE_ATTRIBUTES = {"shape", "ndim", "size", "dtype", "itemsize", "nbytes", "flags"}


@dataclass
class Primitive:
    """One operation: `key` picks the rule; `args`/`keywords` are the atoms it reads."""

    kind: str                      # 'copy', 'const', 'op', 'opaque'
    key: object = None
    args: list = field(default_factory=list)
    keywords: dict = field(default_factory=dict)
    label: str = ""                # how to name the primal in messages

    @property
    def operands(self):
        return list(self.args) + list(self.keywords.values())


def static_value(node, parsed, local_names):
    """The value of a constant chain like `np.linalg.norm`, or raise LookupError."""
    if isinstance(node, gast.Name):
        if node.id in local_names:
            raise LookupError(node.id)
        try:
            return parsed.resolve(node.id)
        except (KeyError, AttributeError):
            raise LookupError(node.id) from None
    if isinstance(node, gast.Attribute):
        base = static_value(node.value, parsed, local_names)
        try:
            return getattr(base, node.attr)
        except AttributeError:
            raise LookupError(node.attr) from None
    raise LookupError(type(node).__name__)


def is_static(node, parsed, local_names):
    """Is `node` an attribute chain on a global (`np.pi`, `np.linalg.norm`)?"""
    if not isinstance(node, gast.Attribute):
        return False
    root = node
    while isinstance(root, gast.Attribute):
        root = root.value
    return isinstance(root, gast.Name) and root.id not in local_names


def dotted(node):
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        return dotted(node.value) + "." + node.attr
    return type(node).__name__


def classify(expr, parsed, local_names):
    """Describe the normal-form expression `expr`."""
    if isinstance(expr, gast.Name):
        if expr.id in local_names:
            return Primitive("copy", args=[expr])
        return Primitive("const")
    if isinstance(expr, gast.Constant) or is_static(expr, parsed, local_names):
        return Primitive("const")
    if isinstance(expr, gast.BinOp):
        return Primitive("op", BINARY.get(type(expr.op)), [expr.left, expr.right],
                         label=type(expr.op).__name__)
    if isinstance(expr, gast.UnaryOp):
        return Primitive("op", UNARY[type(expr.op)], [expr.operand], label=type(expr.op).__name__)
    if isinstance(expr, gast.Compare):
        return Primitive("op", operator.lt, [expr.left] + expr.comparators, label="comparison")
    if isinstance(expr, gast.Subscript):
        computes = _computing_indexed_object(expr.value, parsed, local_names)
        if computes is not None:
            return _index_call(computes, expr)
        return Primitive("op", rules.SUBSCRIPT, [expr.value, expr.slice], label="indexing")
    if isinstance(expr, gast.Attribute):
        return Primitive("op", rules.attribute(expr.attr), [expr.value], label="." + expr.attr)
    if isinstance(expr, gast.Call):
        keywords = {k.arg: k.value for k in expr.keywords}
        func = expr.func
        if isinstance(func, gast.Attribute) and not is_static(func, parsed, local_names):
            return Primitive("op", rules.method(func.attr), [func.value] + list(expr.args),
                             keywords, label="." + func.attr + "()")
        try:
            key = static_value(func, parsed, local_names)
        except LookupError:
            key = None
        if isinstance(func, gast.Attribute) and _is_array_method(key):
            # `X.dot(w)` with X a global or a closure's array: the method of that array
            return Primitive("op", rules.method(func.attr), [func.value] + list(expr.args),
                             keywords, label="." + func.attr + "()")
        return Primitive("op", key, list(expr.args), keywords, label=dotted(func))
    if isinstance(expr, gast.Dict) and all(k is not None for k in expr.keys):
        keys = gast.Tuple(elts=list(expr.keys), ctx=gast.Load())
        return Primitive("op", "dict", [keys] + list(expr.values), label="a dict literal")
    if isinstance(expr, (gast.Tuple, gast.List)):
        return Primitive("op", type(expr).__name__.lower(), list(expr.elts), label="a literal")
    return Primitive("opaque", args=[n for n in walk(expr) if isinstance(n, gast.Name)
                                     and n.id in local_names],
                     label=type(expr).__name__)


def _is_array_method(key):
    """A method bound to an array: `X.dot` of a global `X`."""
    return is_plain_array(getattr(key, "__self__", None)) and callable(key) and \
        getattr(key, "__name__", None) is not None


def is_plain_array(value):
    """A NumPy array (not of a subclass, such as a masked array, whose methods mean other
    things), or a CuPy or Dask one."""
    return type(value) is np.ndarray or \
        (type(value).__module__ or "").split(".")[0] in ("cupy", "dask")


def _computing_indexed_object(node, parsed, local_names):
    """The global object `node` names when its `[...]` computes a value from the index rather
    than picking entries (`np.r_`, `np.c_`, `np.mgrid`): there the index carries data, so it is
    an operand like a call's arguments. None for local values and for arrays, sequences,
    mappings and types, which are indexed normally."""
    if not (isinstance(node, gast.Name) or is_static(node, parsed, local_names)):
        return None
    try:
        indexed = static_value(node, parsed, local_names)
    except LookupError:
        return None
    if isinstance(indexed, (type, Sequence, Mapping)) or hasattr(indexed, "__array__"):
        return None
    return indexed


def _index_call(indexed, expr):
    """`np.r_[x, 0:3]` as the call `np.r_(x, slice(0, 3))`: one operand per index entry."""
    index = expr.slice
    entries = index.elts if isinstance(index, gast.Tuple) else [index]
    return Primitive("op", indexed, [build.to_index_value(e) for e in entries],
                     label=f"{dotted(expr.value)}[...]")


def passes_no_derivative(primitive):
    """Is the result of `primitive` a constant whatever its inputs?"""
    if primitive.kind == "const":
        return True
    key = primitive.key
    if isinstance(key, rules.attribute) and key.name in NON_DIFFERENTIABLE_ATTRIBUTES:
        return True
    if key is operator.lt and primitive.label == "comparison":
        return True
    if key is None:
        return False
    if rules.is_non_differentiable(key):
        return True
    return is_random_draw(key)


def is_random_draw(key):
    """A function of `numpy.random` or `random`, or a method of a NumPy random Generator."""
    module = getattr(key, "__module__", None) or ""
    owner = getattr(key, "__self__", None)
    return module.startswith(("numpy.random", "random")) or \
        type(owner).__module__.startswith("numpy.random")
