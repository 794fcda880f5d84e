"""The tangent-name table: which name holds each variable's tangent (`x` -> `dx`), and the
expressions for an operand's tangent or zero."""
import gast

from ... import build, runtime


def zero_constant(node):
    """The zero tangent of a literal, as a literal (None for None, strings and booleans)."""
    value = node.value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return gast.Constant(value=0.0, kind=None)
    if isinstance(value, complex):
        return gast.Constant(value=0j, kind=None)
    return gast.Constant(value=None, kind=None)


class TangentNames:
    """Part of ForwardMode: expects `namer`, `globals`, `tangents` and `owners`."""

    def tangent_name(self, variable):
        if variable not in self.tangents:
            self.tangents[variable] = self.namer.adjoint(variable)
            self.owners[self.tangents[variable]] = variable
        return self.tangents[variable]

    def tangent(self, variable):
        return build.name(self.tangent_name(variable))

    def zero_of(self, atom):
        """The expression for the zero tangent of `atom`."""
        if isinstance(atom, gast.Constant):
            return zero_constant(atom)
        return gast.Call(func=build.name(self.helper(runtime.zero_tangent)),
                         args=[build.clone(atom)], keywords=[])

    def tangent_of_atom(self, atom, state):
        """The tangent of an operand: its tangent's Name, or None when it has none."""
        if isinstance(atom, gast.Name) and atom.id in state.nonzero:
            return self.tangent(atom.id)
        return None

    def tangent_or_zero(self, atom, state):
        return self.tangent_of_atom(atom, state) or self.zero_of(atom)

    def tables(self):
        """The names taken, tangent names, globals and owned writes: what emitting a block
        adds to."""
        return set(self.namer.taken), dict(self.tangents), dict(self.globals), set(self.owned_writes)

    def restore_tables(self, saved):
        """Undo what emitting a block added since `tables()` (a loop body emitted again)."""
        taken, tangents, globals_, owned_writes = saved
        # ids of the statements dropped with the pass may be reused by new ones
        self.owned_writes = set(owned_writes)
        self.namer.taken = set(taken)
        self.tangents = dict(tangents)
        self.owners = {t: v for v, t in self.tangents.items()}
        self.globals.clear()
        self.globals.update(globals_)
