"""CallLowering: the shape every pass that respells library calls shares. Each call, inner
calls first, is replaced by what `lowered(call)` returns (the call itself where nothing
changes)."""
import gast

from ..traversal import rewrite


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
