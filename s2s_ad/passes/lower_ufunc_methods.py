"""LowerUfuncMethods: the methods of NumPy's binary ufuncs, spelled as the functions that have rules.

`np.add.reduce(x)` is `np.sum(x, axis=0)`, `np.multiply.accumulate(x, 1)` is
`np.cumprod(x, 1)`, `np.maximum.reduce` is `np.max`; `f.outer(a, b)` is `f(a', b)` with `a'` the
array `a` given one trailing axis of length 1 per axis of `b`. The methods take their arguments
in the order of the functions they become, with `axis=0` where the function's default differs.
`np.maximum.accumulate` and `np.minimum.accumulate` keep their spelling: they have rules of their
own (templates/cumulative.py).
"""
import gast
import numpy as np

from .. import build, runtime
from .call_lowering import CallLowering

# (ufunc, method) -> the name of the NumPy function it is, in the module the ufunc came from
# the parameters of the methods after the array
_PARAMETERS = {"reduce": ("axis", "dtype", "out", "keepdims", "initial", "where"),
               "accumulate": ("axis", "dtype", "out")}
_SAME_AS = {
    (np.add, "reduce"): "sum", (np.multiply, "reduce"): "prod",
    (np.maximum, "reduce"): "max", (np.minimum, "reduce"): "min",
    (np.add, "accumulate"): "cumsum", (np.multiply, "accumulate"): "cumprod",
}


class LowerUfuncMethods(CallLowering):
    """A CallLowering that uses `bind`."""

    def lowered(self, call):
        """The call as the function it is, or the call itself."""
        if not isinstance(call.func, gast.Attribute) or \
                call.func.attr not in ("reduce", "accumulate", "outer"):
            return call
        method = call.func.attr
        ufunc = self.static(call.func.value)
        if not isinstance(ufunc, np.ufunc) or ufunc.nin != 2:
            return call
        if method == "outer" and len(call.args) == 2:
            widened = gast.Call(func=build.name(self.bind("outer_operand", runtime.outer_operand)),
                                args=list(call.args), keywords=[])
            return gast.copy_location(gast.Call(func=call.func.value, keywords=call.keywords,
                                                args=[widened, call.args[1]]), call)
        name = _SAME_AS.get((ufunc, method))
        positional = call.args[1:]
        if name is None or not call.args or len(positional) > len(_PARAMETERS[method]) or \
                any(isinstance(a, gast.Starred) for a in call.args):
            return call
        # by keyword: np.max takes no dtype, so its positional parameters differ from reduce's
        keywords = [gast.keyword(arg=p, value=a) for p, a in zip(_PARAMETERS[method], positional)]
        keywords += call.keywords
        if not any(k.arg == "axis" for k in keywords):
            keywords.append(gast.keyword(arg="axis", value=gast.Constant(value=0, kind=None)))
        return gast.copy_location(gast.Call(func=self._function(call.func.value, name),
                                            args=call.args[:1], keywords=keywords), call)

    def _function(self, ufunc_node, name):
        """`np.sum` where the ufunc was read as `np.add` (the module it came from, NumPy or
        CuPy), else NumPy's function under a name of its own."""
        if isinstance(ufunc_node, gast.Attribute):
            module = self.static(ufunc_node.value)
            if getattr(module, name, None) is not None and getattr(module, "__name__", "") in (
                    "numpy", "cupy"):
                return gast.Attribute(value=ufunc_node.value, attr=name, ctx=gast.Load())
        return build.name(self.bind(name, getattr(np, name)))
