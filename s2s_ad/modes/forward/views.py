"""The view / alias questions forward mode asks of the user's code: may this name be a view
of (or another name for) that array, and the refusals of in-place writes that would change
another array too."""
import gast

from ... import rules
from ...analysis import call_results
from ...analysis.aliasing import VIEW_ATTRIBUTES, VIEW_FUNCTIONS, VIEW_METHODS, index_may_view, index_view
from ...analysis.liveness import target_names
from ...analysis.primitives import classify
from ...passes.refuse_unsupported import write_through_view
from ...traversal import walk, walk_statements
from .state import reachable

_VIEW_KEYS = rules.CallableSet([rules.method(n) for n in VIEW_METHODS] +
                               [rules.attribute(n) for n in VIEW_ATTRIBUTES])


def _is_view_call(key):
    return key in _VIEW_KEYS or getattr(key, "__name__", None) in VIEW_FUNCTIONS


class ViewQuestions:
    """Part of ForwardMode: expects `parsed`, `body`, `local_names`, `liveness`, `activity`,
    and `_views` / `_chain` set up empty."""

    def returned_locals(self, value):
        """The local names whose arrays the call `value` may return (a user function's)."""
        if not isinstance(value, gast.Call):
            return []
        returned = call_results.result_arguments(value, self.parsed, self.local_names) or ()
        return [a.id for a in returned if isinstance(a, gast.Name) and a.id in self.local_names]

    def views_of(self, container):
        """Names that may be views of (or other names for) `container`'s array."""
        if self._views is None:
            self._views = self._direct_views()
        return reachable(self._views, container)

    def _direct_views(self):
        """{array: the names bound directly to a view of it (or to it)}, over the whole body."""
        views = {}
        for statement in walk_statements(self.body):
            if not (isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)):
                continue
            value = statement.value
            for source in self.returned_locals(value):      # `v = pick(y)` may be y
                views.setdefault(source, set()).add(statement.targets[0].id)
            primitive = classify(value, self.parsed, self.local_names)
            key = primitive.key
            source = primitive.args[0] if primitive.args else None
            if not isinstance(source, gast.Name) or source.id not in self.local_names:
                continue
            if primitive.kind == "copy" or _is_view_call(key) or \
                    (key == rules.SUBSCRIPT and index_view(value.slice) == "view"):
                views.setdefault(source.id, set()).add(statement.targets[0].id)
        return views

    def refuse_write_into_live_view(self, statement, container):
        """`x[i] = v` while a view of x that is still used would see the write too."""
        live_views = self.views_of(container) & self.liveness.after.get(id(statement), set()) \
            & self.activity.active
        if not live_views:
            return
        view = sorted(live_views)[0]
        written = self.parsed.describe(container)
        raise self.parsed.error(
            statement, f"cannot differentiate an in-place write into `{written}` while "
            f"`{self.parsed.describe(view)}`, which may share its memory, is still used",
            hint=f"take a copy (`{self.parsed.describe_operand(view)}.copy()`) of the part "
                 f"you keep before writing into `{written}`")

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
            if self._may_be_view(value, primitive):
                message, hint = write_through_view(self.parsed, written, statement, shared)
                raise self.parsed.error(write, message, hint=hint)

    def _follow_copy(self, body, source, write, written, shared):
        self._chain.add(source)
        try:
            self.refuse_write_through_view(body, source, write, written,
                                           shared or self._user_name(source, written))
        finally:
            self._chain.discard(source)

    def _may_be_view(self, value, primitive):
        """Whether the value bound by `v = value` may share memory with another local array."""
        key = primitive.key
        return (primitive.kind == "copy" and value.id in self.local_names) or \
            (key == rules.SUBSCRIPT and index_may_view(value.slice)) or \
            _is_view_call(key) or bool(self.returned_locals(value))

    def _user_name(self, variable, written):
        """`variable` where it is a name the user wrote other than `written`, else None."""
        return None if variable == written or variable in self.parsed.temporaries else variable

    @staticmethod
    def _read_once(body, variable):
        reads = [n for n in walk(gast.Module(body=body, type_ignores=[]))
                 if isinstance(n, gast.Name) and n.id == variable and isinstance(n.ctx, gast.Load)]
        return len(reads) == 1
