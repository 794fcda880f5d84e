"""PackedEntries: the adjoint of an unpacking (`W, b = layer`, `for W, b in params:`) in one
call. Generated code accumulates it entry by entry, as it does any read of a container:

    d_layer = scatter(layer, 1, db)                 d_layer = scatter_entries(layer, (1, 0),
    d_layer = d_layer + scatter(layer, 0, dW)                                 (db, dW))

each `scatter` making a container of one entry and each `+` a merged copy. Where the keys are
literals, each once (an int not below 0: -1 and 1 may be one entry), and nothing between the
accumulations reads the adjoint or binds the container or an added value again, one container
is made with every entry in place, where the last accumulation was. Unlike DictEntries,
which stores into the adjoint where the container's kind is known, this needs no kind: the
helper asks when it runs (an array's rows get np.add.at, as `scatter` gives them)."""
import gast

from .. import build, runtime
from ..traversal import rewrite_each_block, walk
from .dict_entries import _accumulated, _mentions, _scattered


def _binds(statement, names):
    return any(isinstance(n, gast.Name) and n.id in names and not isinstance(n.ctx, gast.Load)
               for n in walk(statement))


class PackedEntries:

    def __init__(self, names):
        self.names = names          # name -> runtime object, as bound in the generated code

    def run(self, function):
        scatter = next((k for k, v in self.names.items() if v is runtime.scatter), None)
        self.helper = None
        if scatter is not None:
            function.body = rewrite_each_block(function.body,
                                               lambda block: self.block(block, scatter))
        if self.helper is not None:
            self.names[self.helper] = runtime.scatter_entries
        return function

    def block(self, statements, scatter):
        position = 0
        while position < len(statements):
            run = self._run_from(statements, position, scatter)
            if len(run) > 1:
                last = run[-1][0]
                packed = gast.copy_location(self.packed([found for _, found in run]),
                                            statements[last])
                taken = {p for p, _ in run}
                statements = [packed if p == last else s for p, s in enumerate(statements)
                              if p not in taken or p == last]
                continue                 # what was at `position` is gone: look again there
            position += 1
        return statements

    def _run_from(self, statements, first, scatter):
        """[(position, (target, container, key, g))] for the accumulations into one adjoint
        that start at `first` with `d = scatter(c, key, g)`, at other keys of one type, up to
        a statement that reads `d` otherwise or binds `c` or a name of the `g`s again (the
        one call that replaces them goes where the last was)."""
        statement = statements[first]
        made = isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name) \
            and _scattered(statement.value, scatter)
        if not made or _mentions(made[2], statement.targets[0].id):
            return []
        target = statement.targets[0].id
        run = [(first, (target,) + made)]
        for position in range(first + 1, len(statements)):
            statement = statements[position]
            found = _accumulated(statement, scatter)
            if found is not None and found[0] == target and found[1] == made[0] and \
                    type(found[2]) is type(made[1]) and \
                    not any(found[2] == key for _, (_, _, key, _) in run) and \
                    not _mentions(found[3], target):
                run.append((position, found))
                continue
            read = {n.id for _, (_, _, _, g) in run for n in walk(g) if isinstance(n, gast.Name)}
            if _mentions(statement, target) or _binds(statement, read | {made[0]}):
                break
        return run

    def packed(self, run):
        if self.helper is None:
            self.helper = "scatter_entries" if "scatter_entries" not in self.names \
                else "scatter_entries_"
        target, container = run[0][0], run[0][1]
        keys = gast.Tuple(elts=[gast.Constant(value=key, kind=None) for _, _, key, _ in run],
                          ctx=gast.Load())
        values = gast.Tuple(elts=[g for _, _, _, g in run], ctx=gast.Load())
        return build.assign(target, gast.Call(func=build.name(self.helper), keywords=[],
                                              args=[build.name(container), keys, values]))
