"""LowerReductionKeywords: `where=`, `initial=` and `dtype=` of NumPy's reductions, spelled with
the functions that have rules.

    np.sum(x, where=m)         np.sum(np.where(m, x, 0))
    np.prod(x, initial=c)      np.prod(x) * c
    np.max(x, initial=c)       np.maximum(np.max(x, initial=lowest_of(x)), c)
    np.max(x, where=m, initial=c)    np.maximum(np.max(np.where(m, x, c), initial=...), c)
    np.mean(x, where=m)        np.sum(np.where(m, x, 0)) / np.sum(np.where(m, 1, 0) + np.zeros_like(x))
    x.sum(dtype=t)             np.asarray(x, dtype=t).sum()

and the same for the methods (`x.sum(where=m)`), with the other arguments (axis, keepdims) kept
on every reduction. The inner max keeps an initial every entry beats (runtime.lowest_of: -inf,
or an integer type's least), so that a group with no entries has an extremum (np.max of
nothing fails), which np.maximum(..., c) then replaces by c; it is left out where `x` would
be computed twice by what is not NumPy's (a call of the user's). A form NumPy
itself refuses (`np.max(x, where=m)` without `initial`) is left as written, for the rule's
own refusal.
"""
import copy

import gast
import numpy as np

from .. import rules, runtime
from ..traversal import walk
from .call_lowering import CallLowering, is_numpy_but_random, located

_KINDS = {np.sum: "sum", np.prod: "prod", np.max: "max", np.amax: "max", np.min: "min",
          np.amin: "min", np.mean: "mean"}
_NEUTRAL = {"sum": 0, "prod": 1, "mean": 0}        # integers: an integer array stays one
# the parameters after the array, in NumPy's order (methods take the same after `self`)
_PARAMETERS = {
    "sum": ("axis", "dtype", "out", "keepdims", "initial", "where"),
    "prod": ("axis", "dtype", "out", "keepdims", "initial", "where"),
    "mean": ("axis", "dtype", "out", "keepdims", "where"),
    "max": ("axis", "out", "keepdims", "initial", "where"),
    "min": ("axis", "out", "keepdims", "initial", "where"),
}
_COMBINE_INITIAL = {"sum": gast.Add, "prod": gast.Mult}
_EXTREMUM_OF_TWO = {"max": "maximum", "min": "minimum"}
_LOWERED = ("where", "initial", "dtype")


class LowerReductionKeywords(CallLowering):
    """A CallLowering; `numpy(name)` is an expression for NumPy's function `name` in generated
    code."""

    def __init__(self, resolve, numpy, bind=None):
        super().__init__(resolve, bind)
        self.numpy = numpy

    def lowered(self, call):
        kind, operand, arguments = self._reduction(call)
        if kind is None or not any(name in _LOWERED for name in arguments):
            return call
        given = {name: arguments.pop(name) for name in _LOWERED if name in arguments}
        if (kind in _EXTREMUM_OF_TWO and "where" in given and "initial" not in given) \
                or (kind == "mean" and "initial" in given) or not self._read_once(kind, given):
            return call
        rest = [gast.keyword(arg=name, value=value) for name, value in arguments.items()]
        if kind in _EXTREMUM_OF_TWO and "initial" in given:
            rest += self._beaten_initial(kind, operand)
        if "dtype" in given:
            operand = self._call("asarray", [operand], [gast.keyword(arg="dtype", value=given["dtype"])])
        if "where" in given:
            fill = given["initial"] if kind in _EXTREMUM_OF_TWO else _number(_NEUTRAL[kind])
            operand = self._call("where", [given["where"], operand, fill])
        rebuild = self._rebuilder(call)
        if kind == "mean" and "where" in given:
            result = self._masked_mean(call, operand, given["where"], rebuild, rest)
        else:
            result = rebuild(operand, rest)
        if "initial" in given:
            result = self._with_initial(kind, result, given["initial"])
        return located(result, call)

    def _beaten_initial(self, kind, operand):
        """[initial=lowest_of(x)] (highest_of for a min) for the inner reduction, or []."""
        if self.bind is None or not self._pure([operand]):
            return []
        helper = runtime.lowest_of if kind == "max" else runtime.highest_of
        bound = gast.Name(id=self.bind(helper.__name__, helper), ctx=gast.Load(),
                          annotation=None, type_comment=None)
        return [gast.keyword(arg="initial", value=gast.Call(
            func=bound, args=[copy.deepcopy(operand)], keywords=[]))]

    def _pure(self, nodes):
        """Does every call in `nodes` compute the same each time: NumPy's (no random draw), or
        an array's method (`x.reshape(2, 3)`) of a local?"""
        return all(is_numpy_but_random(self.static(c.func)) or self._array_method(c.func)
                   for node in nodes for c in walk(node) if isinstance(c, gast.Call))

    def _array_method(self, func):
        return isinstance(func, gast.Attribute) and hasattr(np.ndarray, func.attr) and \
            self.static(func.value) is None

    def _read_once(self, kind, given):
        """Does every argument the lowered form reads twice compute the same each time: calls
        of NumPy's functions and arithmetic only (no random draw, nothing of the user's)?"""
        twice = [given.get("initial")] if kind in _EXTREMUM_OF_TWO else []
        twice += [given.get("where")] if kind == "mean" else []
        return self._pure([node for node in twice if node is not None])

    def _reduction(self, call):
        """(kind, operand, {parameter: argument} of the rest) for a reduction, positional
        arguments named as NumPy names them; (None, None, None) for any other call."""
        func = call.func
        function = self.static(func)
        kind = _KINDS.get(function) if rules.is_hashable(function) else None
        if kind is not None and call.args:
            operand, positional = call.args[0], call.args[1:]
        elif isinstance(func, gast.Attribute) and func.attr in _KINDS.values() \
                and self.static(func.value) is None:       # a method of a local value
            kind, operand, positional = func.attr, func.value, call.args
        else:
            return None, None, None
        names = _PARAMETERS[kind]
        if len(positional) > len(names) or any(isinstance(a, gast.Starred) for a in positional) \
                or any(k.arg is None for k in call.keywords):
            return None, None, None
        arguments = dict(zip(names, positional))
        arguments.update({k.arg: k.value for k in call.keywords})
        return kind, operand, arguments

    def _rebuilder(self, call):
        """rebuild(operand, keywords): the reduction `call` names, on `operand`."""
        func = call.func
        if isinstance(func, gast.Attribute) and func.attr in _KINDS.values() \
                and self.static(func) is None:
            return lambda operand, keywords: gast.Call(
                func=gast.Attribute(value=operand, attr=func.attr, ctx=gast.Load()),
                args=[], keywords=keywords)
        return lambda operand, keywords: gast.Call(func=func, args=[operand], keywords=keywords)

    def _masked_mean(self, call, masked, where, rebuild, rest):
        """The sum of the entries `where` picks over their count, along the same axes."""
        total = rebuild(masked, rest)
        total.func = self._sum_of(total.func)
        picked = self._call("where", [where, _number(1.0), _number(0.0)])
        count = gast.BinOp(left=picked, op=gast.Add(), right=self._call("zeros_like", [masked]))
        counted = rebuild(count, rest)
        counted.func = self._sum_of(counted.func)
        return gast.BinOp(left=total, op=gast.Div(), right=counted)

    def _sum_of(self, mean):
        """`np.sum` for `np.mean`, `v.sum` for `v.mean`."""
        if isinstance(mean, gast.Attribute) and mean.attr == "mean":
            return gast.Attribute(value=mean.value, attr="sum", ctx=gast.Load())
        return self.numpy("sum")

    def _with_initial(self, kind, result, initial):
        if kind in _COMBINE_INITIAL:
            return gast.BinOp(left=result, op=_COMBINE_INITIAL[kind](), right=initial)
        return self._call(_EXTREMUM_OF_TWO[kind], [result, initial])

    def _call(self, name, args, keywords=()):
        return gast.Call(func=self.numpy(name), args=list(args), keywords=list(keywords))


def _number(value):
    return gast.Constant(value=value, kind=None)


