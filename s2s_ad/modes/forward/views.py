"""Forward mode's refusal of an in-place write through a name that may be a view of (or
another name for) another array, which would change that array too; the message follows
copies to the names the user wrote."""
import gast

from ...analysis.liveness import target_names
from ...analysis.primitives import classify
from ...passes.refuse_unsupported import write_through_view
from ...traversal import walk, walk_statements


class ViewQuestions:
    """Part of ForwardMode: expects `parsed`, `local_names`, `memory` (the function's
    analysis.memory.Views) and `_chain` set up empty."""

    def refuse_write_through_view(self, body, variable, write, written=None, shared=None):
        """`x[i] = v` where x may be a view of another array: the other array would change too.

        Copies read once are followed (`x = _t`: x is whatever _t was); `written` is the name
        the user writes into and `shared` the first other name of the user's that the copies
        lead to (after `buf, v = v, buf`, v is what buf was): the message names those two,
        never a link of the chain such as a temporary or `written` itself."""
        written = written or variable
        for statement in walk_statements(body):
            if isinstance(statement, gast.For) and variable in target_names(statement.target):
                raise self.parsed.error(
                    write, f"cannot differentiate an in-place write into `{written}`, an element "
                    f"of the sequence the loop at line {self.parsed.location(statement)[0]} walks "
                    f"(the sequence would change too)",
                    hint="loop over indices and write into the sequence itself")
            if not (isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)
                    and statement.targets[0].id == variable):
                continue
            value = statement.value
            primitive = classify(value, self.parsed, self.local_names)
            if primitive.kind == "copy" and value.id != written and value.id not in \
                    self._chain and self._read_once(body, value.id):
                self._follow_copy(body, value.id, write, written, shared)
                continue
            if self.memory.may_view(value):
                message, hint = write_through_view(self.parsed, written, statement, shared)
                raise self.parsed.error(write, message, hint=hint)

    def _follow_copy(self, body, source, write, written, shared):
        self._chain.add(source)
        try:
            self.refuse_write_through_view(body, source, write, written,
                                           shared or self._user_name(source, written))
        finally:
            self._chain.discard(source)

    def _user_name(self, variable, written):
        """`variable` where it is a name the user wrote other than `written`, else None."""
        return None if variable == written or variable in self.parsed.temporaries else variable

    @staticmethod
    def _read_once(body, variable):
        reads = [n for n in walk(gast.Module(body=body, type_ignores=[]))
                 if isinstance(n, gast.Name) and n.id == variable and isinstance(n.ctx, gast.Load)]
        return len(reads) == 1
