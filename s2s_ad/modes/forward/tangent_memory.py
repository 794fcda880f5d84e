"""Which tangents are arrays of their own and which may view each other, as code is emitted:
an in-place write into a tangent copies it first unless it is owned and no live tangent views
it; zeros are materialized where a tangent must hold a value from here on."""
import gast

from ... import build, runtime
from ...traversal import walk


class TangentMemory:
    """Part of ForwardMode: expects `owners`, `liveness`, `none_init` and `owned_writes` (the
    ids of statements that write a tangent the derivative owns: track() leaves them be)."""

    def owned_write(self, statement):
        self.owned_writes.add(id(statement))
        return statement

    def track(self, code, state):
        """Record which tangents may now share memory: `dv = dx[i]` (and any call that may
        return what it reads) makes v a possible view of x; arithmetic makes new arrays."""
        for statement in code:
            if id(statement) in self.owned_writes:
                continue
            if isinstance(statement, gast.Assign):
                self._track_assignment(statement, state)
            elif isinstance(statement, gast.Expr):
                self._track_call(statement.value, state)

    def _tangent_readers(self, node):
        """The variables whose tangents `node` reads."""
        return {self.owners[n.id] for n in walk(node) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Load) and n.id in self.owners}

    def _track_assignment(self, statement, state):
        holders = [self.owners[n.id] for n in walk(statement.targets[0])
                   if isinstance(n, gast.Name) and n.id in self.owners]
        read = self._tangent_readers(statement.value)
        for holder in holders:
            state.forget(holder)
            state.owned.discard(holder)
        if not isinstance(statement.value, (gast.BinOp, gast.UnaryOp)):
            for source in read:
                for holder in holders:
                    state.alias(source, holder)

    def _track_call(self, call, state):
        read = self._tangent_readers(call)
        owner = call.func.value.id if isinstance(call, gast.Call) and \
            isinstance(call.func, gast.Attribute) and \
            isinstance(call.func.value, gast.Name) else None
        if owner in self.owners:                   # dxs.append(dv): dxs now holds dv
            for source in read - {self.owners[owner]}:
                state.alias(source, self.owners[owner])
        else:
            state.owned -= read

    def materialize(self, variables, state):
        """`dv = zero_tangent(v)` for tangents that must hold a value from here on."""
        code = []
        for variable in sorted(variables):
            if variable not in state.maybe:
                continue                  # unbound here: nothing can read it on this path
            if variable not in state.definite:
                self.none_init.add(variable)
            code.append(self.owned_write(build.assign(self.tangent_name(variable),
                                                 self.zero_of(build.name(variable)))))
            state.nonzero.add(variable)
            state.forget(variable)
            state.owned.add(variable)
        return code

    def prepare_write(self, statement, container, state):
        """Before writing into the tangent of `container` in place: make it an array of its own,
        unless it already is and nothing still in use may view it."""
        d_container = self.tangent_name(container)
        live = self.liveness.after.get(id(statement), set())
        if container in state.nonzero and container in state.owned and \
                not state.viewers(container) & live:
            return []
        if container in state.nonzero:
            fresh = gast.Call(func=build.name(self.helper(runtime.tangent_copy)),
                              args=[build.name(d_container)], keywords=[])
        else:
            fresh = self.zero_of(build.name(container))
        state.nonzero.add(container)
        state.forget(container)
        state.owned.add(container)
        return [self.owned_write(build.assign(d_container, fresh))]
