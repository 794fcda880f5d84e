"""An in-place write `x[i] = v` where `x` may be a view of (or another name for) another
array: the other array would change too, unseen by the derivative. Both modes refuse it.

Copies read once are followed (`x = _t`: x is whatever _t was), so that the message names the
user's own two variables (after `buf, v = v, buf`, v is what buf was), never a temporary of
normal form."""
import gast

from ..analysis.activity import target_names
from ..analysis.primitives import classify
from ..traversal import walk, walk_statements
from .refuse_unsupported import write_through_view


class WritesThroughViews:
    """`memory` is the function's analysis.memory.Views."""

    def __init__(self, parsed, local_names, memory):
        self.parsed = parsed
        self.local_names = local_names
        self.memory = memory
        self._chain = set()               # the copies being followed

    def run(self, body):
        """Raise at the first write in `body` that may change another array too."""
        for statement in walk_statements(body):
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Subscript):
                self.refuse(body, statement.targets[0].value.id, statement)

    def refuse(self, body, variable, write, written=None, shared=None):
        """Raise if `write` (into `variable`, somewhere in `body`) may change another array.
        `written` is the name the user writes into and `shared` the first other name of the
        user's that the copies followed so far lead to."""
        written = written or variable
        for statement in walk_statements(body):
            if isinstance(statement, gast.For) and variable in target_names(statement.target) \
                    and classify(statement.iter, self.parsed, self.local_names).key is not range:
                raise self.parsed.error(
                    write, f"cannot differentiate an in-place write into `{written}`, an element "
                    f"of the sequence the loop at line {self.parsed.location(statement)[0]} walks "
                    f"(a row of an array is a view of it)",
                    hint=f"write into the sequence itself (`...[i] = ...` in a loop over "
                         f"indices), or make the element a copy (`{written} = {written}.copy()`)")
            if not (isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)
                    and statement.targets[0].id == variable):
                continue
            value = statement.value
            if isinstance(value, gast.Name) and value.id != written and value.id not in \
                    self._chain and value.id in self.local_names and _read_once(body, value.id):
                self._follow_copy(body, value.id, write, written, shared)
                continue
            if self.memory.may_view(value):
                message, hint = write_through_view(self.parsed, written, statement, shared)
                raise self.parsed.error(write, message, hint=hint)

    def _follow_copy(self, body, source, write, written, shared):
        self._chain.add(source)
        try:
            self.refuse(body, source, write, written, shared or self._user_name(source, written))
        finally:
            self._chain.discard(source)

    def _user_name(self, variable, written):
        """`variable` where it is a name the user wrote other than `written`, else None."""
        return None if variable == written or variable in self.parsed.temporaries else variable


def _read_once(body, variable):
    reads = [n for n in walk(gast.Module(body=body, type_ignores=[]))
             if isinstance(n, gast.Name) and n.id == variable and isinstance(n.ctx, gast.Load)]
    return len(reads) == 1
