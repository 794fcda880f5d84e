"""Dtypes: which names surely hold a Python number, and which surely hold inexact values.

`z op= v` writes into an array `z`, keeping its dtype, and a store `k[i] = v` converts `v` to
`k`'s dtype; the assignments generated code does instead need the conversion spelled out
(runtime.in_place), except where these facts show it changes nothing: a number is rebound,
not written into, and a store into an array of inexact values keeps the derivative whole.

Both facts are "surely": a name gets one only when every binding of it, anywhere in the
function, has it (a fixed point over the bindings, so `n = 0; n = n + 1` is a number).
"""
import math

import gast
import numpy as np

from ..traversal import walk, walk_statements

_NUMBER_BUILTINS = (len, int, float, round, abs)
# NumPy functions whose result is inexact unless a dtype says otherwise (float64 by default)
_FLOAT_MAKERS = (np.zeros, np.ones, np.empty, np.eye, np.identity, np.linspace)
# `*_like(a)`: the dtype of `a`
_LIKE_MAKERS = (np.zeros_like, np.ones_like, np.empty_like, np.full_like, np.copy, np.array,
                np.asarray, np.ascontiguousarray)
_NUMBER_ATTRIBUTES = frozenset({"size", "ndim"})
# reductions of every axis by default: a scalar
_FULL_REDUCTIONS = (np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.std, np.var,
                    np.linalg.norm, np.vdot, np.nansum, np.nanmean, np.median, np.average)
_SCALAR_METHODS = frozenset({"sum", "mean", "prod", "max", "min", "std", "var", "item"})
# methods and attributes of an array of inexact values that are such an array too
_KEEPING_METHODS = frozenset({"copy", "reshape", "ravel", "flatten", "transpose", "squeeze",
                              "T", "mT", "sum", "mean", "dot", "swapaxes", "cumsum", "prod"})


class DtypeFacts:
    """`numbers`: names bound only to Python numbers; `inexact`: names bound only to values of
    an inexact (floating or complex) dtype. `wrt`: the parameters differentiated, inexact by
    the time a derivative is asked; `resolve(node)`: the global object an expression names,
    or None."""

    def __init__(self, body, params, wrt, resolve):
        self.resolve = resolve
        self.bindings = bindings(body, params)
        self.numbers = self._fixed_point(lambda name, value: self.is_number(value))
        self.inexact = self._fixed_point(lambda name, value: self.is_inexact(value),
                                         set(wrt))

    def _fixed_point(self, holds, given=frozenset()):
        """The largest set of names every binding of which `holds` (assuming the set)."""
        self._current = found = set(self.bindings) | set(given)
        while True:
            kept = {n for n in found if all(
                n in given if value is None else holds(n, value)
                for value in self.bindings.get(n, [None]))}
            if kept == found:
                return kept
            self._current = found = kept

    def is_number(self, value):
        if isinstance(value, gast.Constant):
            return isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
        if isinstance(value, gast.Name):
            return value.id in self._current
        if isinstance(value, gast.BinOp):
            return self.is_number(value.left) and self.is_number(value.right)
        if isinstance(value, gast.UnaryOp):
            return not isinstance(value.op, gast.Not) and self.is_number(value.operand)
        if isinstance(value, gast.Attribute):
            return value.attr in _NUMBER_ATTRIBUTES
        if isinstance(value, gast.Subscript):          # `x.shape[0]`
            return isinstance(value.value, gast.Attribute) and value.value.attr == "shape"
        return isinstance(value, gast.Call) and (self._called(value) in _NUMBER_BUILTINS
                                                 or self._reduces_to_a_scalar(value))

    def _reduces_to_a_scalar(self, call):
        """`np.sum(v)`, `v.mean()`, `math.exp(a)`: a scalar (a NumPy one is never written into
        in place either), reducing every axis (no axis given)."""
        function = self._called(call)
        if getattr(function, "__module__", None) == "math" or type(function).__name__ == \
                "builtin_function_or_method" and getattr(function, "__self__", None) is math:
            return True
        if call.keywords or len(call.args) > (0 if function is None else 1):
            return False
        if function is None:              # a method: `v.sum()`
            return isinstance(call.func, gast.Attribute) and call.func.attr in _SCALAR_METHODS
        return any(function is f for f in _FULL_REDUCTIONS)

    def is_inexact(self, value):
        if isinstance(value, gast.Constant):
            return isinstance(value.value, (float, complex))
        if isinstance(value, gast.Name):
            return value.id in self._current
        if isinstance(value, gast.BinOp):          # a float operand makes the result inexact
            return self.is_inexact(value.left) or self.is_inexact(value.right) or \
                isinstance(value.op, gast.Div)
        if isinstance(value, gast.UnaryOp):
            return not isinstance(value.op, (gast.Not, gast.Invert)) and \
                self.is_inexact(value.operand)
        if isinstance(value, gast.Subscript):
            return self.is_inexact(value.value)
        if isinstance(value, gast.Attribute):
            return value.attr in _KEEPING_METHODS and self.is_inexact(value.value)
        return isinstance(value, gast.Call) and self._inexact_call(value)

    def _inexact_call(self, call):
        dtype = next((k.value for k in call.keywords if k.arg == "dtype"), None)
        if dtype is not None:
            return self._is_inexact_dtype(dtype)
        if isinstance(call.func, gast.Attribute) and call.func.attr in _KEEPING_METHODS \
                and self._called(call) is None:
            return self.is_inexact(call.func.value)
        function = self._called(call)
        if any(function is f for f in _FLOAT_MAKERS):
            return len(call.args) < 2 or self._is_inexact_dtype(call.args[1])
        if any(function is f for f in _LIKE_MAKERS):
            return bool(call.args) and self.is_inexact(call.args[0]) and (
                len(call.args) < 2 or function is np.full_like
                or self._is_inexact_dtype(call.args[1]))
        return function is np.full and len(call.args) == 2 and self.is_inexact(call.args[1])

    def _is_inexact_dtype(self, node):
        dtype = node.value if isinstance(node, gast.Constant) else self.resolve(node)
        try:
            return dtype is not None and np.issubdtype(np.dtype(dtype), np.inexact)
        except TypeError:
            return False

    def _called(self, call):
        return self.resolve(call.func)


def bindings(body, params):
    """{name: [the expression bound, or None where it is not known]} over every binding."""
    found = {p: [None] for p in params}
    module = gast.Module(body=body, type_ignores=[])
    known = set()
    for statement in walk_statements(body):
        if isinstance(statement, gast.Assign) and all(isinstance(t, gast.Name)
                                                      for t in statement.targets):
            for target in statement.targets:
                found.setdefault(target.id, []).append(statement.value)
                known.add(id(target))
        elif isinstance(statement, gast.AugAssign) and isinstance(statement.target, gast.Name):
            load = gast.Name(id=statement.target.id, ctx=gast.Load(), annotation=None,
                             type_comment=None)
            found.setdefault(statement.target.id, []).append(
                gast.BinOp(left=load, op=statement.op, right=statement.value))
            known.add(id(statement.target))
        elif isinstance(statement, gast.For) and isinstance(statement.target, gast.Name) \
                and _is_range(statement.iter):
            found.setdefault(statement.target.id, []).append(gast.Constant(value=0, kind=None))
            known.add(id(statement.target))
    for node in walk(module):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) \
                and id(node) not in known:
            found.setdefault(node.id, []).append(None)
    return found


def _is_range(iterable):
    return isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Name) \
        and iterable.func.id == "range"
