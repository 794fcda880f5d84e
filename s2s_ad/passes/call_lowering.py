"""CallLowering: the shape every pass that respells library calls shares. Each call, inner
calls first, is replaced by what `lowered(call)` returns (the call itself where nothing
changes)."""
import gast
import numpy as np

from ..traversal import rewrite, walk


class CallLowering:
    """`resolve(node)` is the object a global chain (`np.add`) stands for, or raises
    LookupError; `bind(name, value)`, where a pass needs it, makes `value` reachable from
    generated code under a fresh name based on `name`, which it returns."""

    def __init__(self, resolve, bind=None):
        self.resolve = resolve
        self.bind = bind

    def run(self, body):
        return [rewrite(statement, {gast.Call: self.lowered}) for statement in body]

    def lowered(self, call):
        raise NotImplementedError

    def static(self, node):
        """The global object `node` stands for, or None."""
        try:
            return self.resolve(node)
        except LookupError:
            return None


def located(node, call):
    """`node` with the location of `call` wherever a part of it has none (what the lowering
    made), so that refusals inside it point at the user's call."""
    for part in walk(node):
        if isinstance(part, (gast.expr, gast.stmt)) and getattr(part, "lineno", None) is None:
            gast.copy_location(part, call)
    return node


def is_numpy_but_random(function):
    """Is `function` one of NumPy's that computes the same each time it is called (a ufunc or
    another NumPy function, not a random draw)?"""
    module = getattr(function, "__module__", None) or ""
    return isinstance(function, np.ufunc) or (
        module.split(".")[0] == "numpy" and not module.startswith("numpy.random"))
