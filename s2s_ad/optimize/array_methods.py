"""ArrayMethods: `np.sum(x, axis=1)` on a value the shape facts know is a NumPy array is
`x.sum(axis=1)`: the same reduction (NumPy's function calls it for an array) without the
function's dispatch, which costs about as much as the reduction of a small array (2 us
against 1 us for an 8x3 one). Where the value may be a number, a list or an array of another
library, the call stays."""
import gast
import numpy as np

from ..traversal import nodes_in

_METHODS = ((np.sum, "sum"), (np.max, "max"), (np.amax, "max"), (np.min, "min"),
            (np.amin, "min"), (np.mean, "mean"), (np.prod, "prod"))
_KEYWORDS = {"axis", "keepdims"}


class ArrayMethods:
    """`token(name)`: the shape token of a name of the generated code (analysis.dims; None:
    not known); `resolve(name)`: the object a global name stands for (LookupError: none)."""

    def __init__(self, token, resolve):
        self.token = token
        self.resolve = resolve

    def run(self, function):
        # one walk: a rewrite changes a call's own func and args, never what another reads
        found = nodes_in(function, (gast.Name, gast.Call))
        self.locals = {n.id for n in found if isinstance(n, gast.Name)
                       and isinstance(n.ctx, (gast.Store, gast.Param))}
        for node in found:
            if isinstance(node, gast.Call):
                self._rewrite(node)
        return function

    def _rewrite(self, call):
        method = self._method(call.func)
        if method is None or not call.args or len(call.args) > 2 or \
                not isinstance(call.args[0], gast.Name) or \
                any(k.arg not in _KEYWORDS for k in call.keywords):
            return
        token = self.token(call.args[0].id)
        if not isinstance(token, tuple) or not token:
            return
        call.func = gast.Attribute(value=call.args[0], attr=method, ctx=gast.Load())
        call.args = call.args[1:]

    def _method(self, func):
        """The method `func` (an attribute chain like `np.sum`) stands for, or None."""
        path = []
        while isinstance(func, gast.Attribute):
            path.append(func.attr)
            func = func.value
        if not isinstance(func, gast.Name) or func.id in self.locals or not path:
            return None
        try:
            obj = self.resolve(func.id)
            for attr in reversed(path):
                obj = getattr(obj, attr)
        except (LookupError, AttributeError):
            return None
        return next((name for f, name in _METHODS if obj is f), None)
