"""ShapeStandIns: a value the tape keeps only so that the backward pass can read its shape is
kept as a stand-in of that shape, not with all its entries:

    tape.append(total)                          tape.append(for_its_shape(total))
    total = total + _tensordot          ->      total = total + _tensordot
    ...                                         ...
    total = tape.pop()                          total = tape.pop()
    dtotal = unbroadcast(d_add, total)          dtotal = unbroadcast(d_add, total)

Where every read of a name from the backward pass's first pop of it on is the array an
adjoint is summed or spread to (`unbroadcast(g, like)`, `unreduce(g, like, ...)`), which read
its type, shape and dtype alone, the tape holds `for_its_shape(v)`: a large NumPy array as a
view of one zero broadcast to its shape (anything else as it is). A loop of N steps then
keeps N small views, not N arrays, as a hand-written gradient keeps none.
"""
import gast

from .. import build, runtime
from ..traversal import DYNAMIC_LOCALS, nodes_in, walk

_SHAPE_READERS = {runtime.unbroadcast: 1, runtime.unreduce: 1}   # helper -> `like`'s position


class ShapeStandIns:
    """`names`: the generated code's helper names (for_its_shape is added there)."""

    def __init__(self, names):
        self.names = names
        self.readers = {name: _SHAPE_READERS[v] for name, v in names.items()
                        if any(v is h for h in _SHAPE_READERS)}

    def run(self, function):
        tapes = _tapes(function) if self.readers else []
        if not tapes or any(n.id in DYNAMIC_LOCALS for n in nodes_in(function, [gast.Name])):
            return function
        for tape in tapes:
            pushes = _pushes(function, tape)
            shaped = {name for name in pushes if self._read_for_its_shape(function, tape, name)}
            if shaped:
                helper = self._helper(function)
                for name in shaped:
                    for push in pushes[name]:
                        push.args[0] = build.quote_expr(f"{helper}({name})")
        return function

    def _helper(self, function):
        found = next((k for k, v in self.names.items() if v is runtime.for_its_shape), None)
        if found is None:
            taken = set(self.names) | {n.id for n in walk(function) if isinstance(n, gast.Name)}
            found = "for_its_shape"
            while found in taken:
                found += "_"
            self.names[found] = runtime.for_its_shape
        return found

    def _read_for_its_shape(self, function, tape, name):
        """Is each read of `name`, from the first top-level statement popping it on, the
        `like` of a shape reader?"""
        start = next((k for k, s in enumerate(function.body) if _pops(s, tape, name)), None)
        if start is None:
            return False            # pushed, never popped back into its name
        allowed, loads = set(), []
        for statement in function.body[start:]:
            for node in walk(statement):
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                        node.func.id in self.readers and not node.keywords and \
                        len(node.args) > self.readers[node.func.id]:
                    allowed.add(id(node.args[self.readers[node.func.id]]))
                elif isinstance(node, gast.Name) and node.id == name and \
                        isinstance(node.ctx, gast.Load):
                    loads.append(node)
        return bool(loads) and all(id(n) in allowed for n in loads)


def _tapes(function):
    """The names bound to `[]` at the function's top level that something pops."""
    empty = [s.targets[0].id for s in function.body if isinstance(s, gast.Assign)
             and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.List)
             and not s.value.elts]
    return [t for t in empty if any(_pops(s, t, None) for s in function.body)]


def _pushes(function, tape):
    """{name: the `tape.append(name)` calls} for each name pushed, where the tape is used in
    no other way than by such pushes and by `name = tape.pop()`."""
    pushes, popped, used, loads = {}, set(), set(), []
    for node in walk(function):
        if isinstance(node, gast.Call) and _method_of(node, tape, "append") and \
                len(node.args) == 1 and isinstance(node.args[0], gast.Name):
            pushes.setdefault(node.args[0].id, []).append(node)
        if isinstance(node, gast.Attribute) and node.attr in ("append", "pop"):
            used.add(id(node.value))
        elif isinstance(node, gast.Name) and node.id == tape and isinstance(node.ctx, gast.Load):
            loads.append(node)
        elif _is_pop(node, tape, None):
            popped.add(node.targets[0].id if isinstance(node.targets[0], gast.Name) else None)
    # each value comes back into the name it was pushed from (a stack of restores)
    return pushes if all(id(n) in used for n in loads) and popped <= set(pushes) else {}


def _method_of(call, tape, method):
    return isinstance(call.func, gast.Attribute) and call.func.attr == method and \
        isinstance(call.func.value, gast.Name) and call.func.value.id == tape


def _pops(statement, tape, name):
    """Does `statement` hold `name = tape.pop()` (any name, for None)?"""
    return any(_is_pop(n, tape, name) for n in walk(statement))


def _is_pop(node, tape, name):
    return isinstance(node, gast.Assign) and isinstance(node.value, gast.Call) and \
        _method_of(node.value, tape, "pop") and not node.value.args and \
        (name is None or isinstance(node.targets[0], gast.Name) and node.targets[0].id == name)
