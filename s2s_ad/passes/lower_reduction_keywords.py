"""LowerReductionKeywords: `where=`, `initial=` and `dtype=` of NumPy's reductions, spelled with
the functions that have rules.

    np.sum(x, where=m)         np.sum(np.where(m, x, 0))
    np.prod(x, initial=c)      np.prod(x) * c
    np.max(x, where=m, initial=c)    np.maximum(np.max(np.where(m, x, c)), c)
    np.mean(x, where=m)        np.sum(np.where(m, x, 0)) / np.sum(np.where(m, 1, 0) + np.zeros_like(x))
    x.sum(dtype=t)             np.asarray(x, dtype=t).sum()

and the same for the methods (`x.sum(where=m)`), with the other arguments (axis, keepdims) kept
on every reduction. A form NumPy itself refuses (`np.max(x, where=m)` without `initial`) is
left as written, for the rule's own refusal.
"""
import gast
import numpy as np

from .. import rules
from ..traversal import rewrite

_KINDS = {np.sum: "sum", np.prod: "prod", np.max: "max", np.amax: "max", np.min: "min",
          np.amin: "min", np.mean: "mean"}
_NEUTRAL = {"sum": 0.0, "prod": 1.0, "mean": 0.0}
_COMBINE_INITIAL = {"sum": gast.Add, "prod": gast.Mult}
_EXTREMUM_OF_TWO = {"max": "maximum", "min": "minimum"}
_LOWERED = ("where", "initial", "dtype")


class LowerReductionKeywords:
    """`resolve(node)` is the object a global chain (`np.sum`) stands for, or raises
    LookupError; `numpy(name)` is an expression for NumPy's function `name` in generated code."""

    def __init__(self, resolve, numpy):
        self.resolve = resolve
        self.numpy = numpy

    def run(self, body):
        return [rewrite(statement, {gast.Call: self._lowered}) for statement in body]

    def _lowered(self, call):
        if not any(k.arg in _LOWERED for k in call.keywords):
            return call
        kind, operand, rebuild = self._reduction(call)
        given = {k.arg: k.value for k in call.keywords if k.arg in _LOWERED}
        if kind is None or (kind in _EXTREMUM_OF_TWO and "where" in given and "initial" not in given) \
                or (kind == "mean" and "initial" in given):
            return call
        rest = [k for k in call.keywords if k.arg not in _LOWERED]
        if "dtype" in given:
            operand = self._call("asarray", [operand], [gast.keyword(arg="dtype", value=given["dtype"])])
        if "where" in given:
            fill = given["initial"] if kind in _EXTREMUM_OF_TWO else _number(_NEUTRAL[kind])
            operand = self._call("where", [given["where"], operand, fill])
        if kind == "mean" and "where" in given:
            result = self._masked_mean(call, operand, given["where"], rebuild, rest)
        else:
            result = rebuild(operand, rest)
        if "initial" in given:
            result = self._with_initial(kind, result, given["initial"])
        return gast.copy_location(result, call)

    def _reduction(self, call):
        """(kind, operand, rebuild(operand, keywords) -> the call on it) or (None, ...)."""
        func = call.func
        function = self._static(func)
        kind = _KINDS.get(function) if rules.is_hashable(function) else None
        if kind is not None and call.args:
            return kind, call.args[0], lambda operand, keywords: gast.Call(
                func=func, args=[operand] + call.args[1:], keywords=keywords)
        if isinstance(func, gast.Attribute) and func.attr in _KINDS.values() \
                and self._static(func.value) is None:       # a method of a local value
            return func.attr, func.value, lambda operand, keywords: gast.Call(
                func=gast.Attribute(value=operand, attr=func.attr, ctx=gast.Load()),
                args=call.args, keywords=keywords)
        return None, None, None

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

    def _static(self, node):
        """The global object `node` stands for, or None."""
        try:
            return self.resolve(node)
        except LookupError:
            return None

    def _call(self, name, args, keywords=()):
        return gast.Call(func=self.numpy(name), args=list(args), keywords=list(keywords))


def _number(value):
    return gast.Constant(value=value, kind=None)


