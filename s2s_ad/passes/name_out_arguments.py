"""NameOutArguments: an `out` array passed by position, passed by keyword instead.

    np.add(a, b, c)             np.add(a, b, out=c)
    np.modf(x, f, i)            np.modf(x, out=(f, i))
    np.dot(a, b, c)             np.dot(a, b, out=c)
    np.clip(x, lo, hi, c)       np.clip(x, lo, hi, out=c)
    x.sum(0, None, c)           x.sum(0, None, out=c)

The result lands in the out array, an in-place write that every later pass (the lowering of
reduction keywords, the refusals of writes the derivative would not see) finds by its keyword
only: spelled one way, it is found whichever way the user wrote it. Runs first, on the tree
as parsed.
"""
import gast
import numpy

from ..analysis.numpy_writes import UFUNC_METHOD_OUTS, out_position
from ..traversal import walk


class NameOutArguments:
    """`resolve(node)`: the global object an expression names, or None; `positions` (the
    parsed function's `out_positions`) gets where each call named had its out array."""

    def __init__(self, resolve, positions, bindings, arrays=()):
        self.resolve = resolve
        self.positions = positions
        self.bindings = bindings        # analysis.dtypes.bindings of the function
        self.arrays = set(arrays)       # the parameters differentiated: arrays or numbers

    def _an_array(self, owner, seen=frozenset()):
        """Is the owner of a method surely no module (`m.dot(x, x)` on a parameter `m=np` is
        NumPy's dot, not an array's)? An expression that computes a value, or a local name
        every binding of which is one (`a = x` of such an `x`), or a parameter differentiated."""
        if isinstance(owner, gast.Name):
            if owner.id in self.arrays:
                return True
            values = self.bindings.get(owner.id, [None])
            return owner.id not in seen and all(
                v is not None and self._an_array(v, seen | {owner.id}) for v in values)
        return not isinstance(owner, gast.Attribute)

    def run(self, body):
        for node in walk(gast.Module(body=body, type_ignores=[])):
            if isinstance(node, gast.Call) and not any(
                    isinstance(a, gast.Starred) for a in node.args):
                self._name(node)
        return body

    def _name(self, call):
        position, many = self._out_position(call)
        if position is None or len(call.args) <= position or \
                any(k.arg == "out" for k in call.keywords):
            return
        outs = call.args[position:position + many]
        if all(isinstance(o, gast.Constant) and o.value is None for o in outs):
            return          # no out array (`np.max(x, 1, None, True)`): the rule binds it
        del call.args[position:position + many]
        self.positions[(getattr(call, "lineno", None), getattr(call, "col_offset", None))] = \
            position
        # a ufunc of two results given one out array: the other is made new (None)
        outs += [gast.Constant(value=None, kind=None)] * (many - len(outs))
        value = outs[0] if many == 1 else gast.Tuple(elts=outs, ctx=gast.Load())
        call.keywords.append(gast.keyword(arg="out", value=value))

    def _out_position(self, call):
        """(the position of the first out argument, how many there may be), or (None, 0)."""
        function = self.resolve(call.func)
        if type(function).__name__ == "ufunc" and isinstance(function.nin, int):
            return function.nin, function.nout
        owner = self.resolve(call.func.value) if isinstance(call.func, gast.Attribute) else None
        if type(owner).__name__ == "ufunc" and call.func.attr in UFUNC_METHOD_OUTS:
            return UFUNC_METHOD_OUTS[call.func.attr], 1
        method = isinstance(call.func, gast.Attribute) and function is None
        if method:            # `x.clip(...)`: NumPy's function of that name, but for `x`
            if not (hasattr(numpy.ndarray, call.func.attr) and self._an_array(call.func.value)):
                return None, 0
            function = getattr(numpy, call.func.attr, None)
        if function is None or not (getattr(function, "__module__", None) or "").startswith(
                "numpy"):
            return None, 0
        position = out_position(function)
        if position is None or (method and position == 0):
            return None, 0
        return position - method, 1
