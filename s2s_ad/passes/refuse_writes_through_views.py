"""An in-place write `x[i] = v` where `x` may be a view of (or another name for) another
array: the other array would change too, unseen by the derivative. Both modes refuse it.

Copies read once are followed (`x = _t`: x is whatever _t was), so that the message names the
user's own two variables (after `buf, v = v, buf`, v is what buf was), never a temporary of
normal form."""
import gast

from ..analysis.activity import target_names
from ..analysis.aliasing import IN_PLACE_METHODS
from ..analysis.container_kinds import container_kinds
from ..analysis.flow import reaching
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
        self._reaching = {}               # variable -> analysis.flow.reaching of its bindings
        self._kinds = None                # name -> 'list', 'dict', ... (container_kinds)

    def run(self, body):
        """Raise at the first write in `body` that may change another array too: `x[i] = v`,
        or a method that changes its object (`xs.append(v)` on `xs = hs` changes `hs`)."""
        if self.parsed.generated:
            # a derivative writes into what it owns, and the user's writes in it were checked
            # when it was made (`buf = np.reshape(_mul, s); buf[0] = v` is fine where nothing
            # but the backward pass, for its shape, reads `_mul`)
            return
        for statement in walk_statements(body):
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Subscript):
                self.refuse(body, statement.targets[0].value.id, statement, statement)
            owner, method = _changed_by_its_method(statement)
            if owner is not None:
                self.refuse(body, owner, statement, statement,
                            sliced_copies=method in _METHODS_OF_CONTAINERS_ONLY)

    def refuse(self, body, variable, at, write, written=None, shared=None, sliced_copies=False):
        """Raise if `write` may change another array because `variable`, as it is bound when
        `at` runs, may be a view of one. `written` is the name the user writes into and
        `shared` the first other name of the user's that the copies followed so far lead to.
        With `sliced_copies` the object written is a list, dict or set, of which `xs[a:b]`
        is a copy."""
        written = written or variable
        bindings = self._bindings(body, variable).get(id(at), ())
        for statement in sorted(bindings, key=_source_order):
            if isinstance(statement, gast.For) \
                    and classify(statement.iter, self.parsed, self.local_names).key is not range:
                raise self.parsed.error(
                    write, f"cannot differentiate an in-place write into `{written}`, an element "
                    f"of the sequence the loop at line {self.parsed.location(statement)[0]} walks "
                    f"(a row of an array is a view of it)",
                    hint=f"write into the sequence itself (`...[i] = ...` in a loop over "
                         f"indices), or make the element a copy (`{written} = {written}.copy()`)")
            if isinstance(statement, gast.For):
                continue
            value = statement.value
            if isinstance(value, gast.Name) and self._both_containers(body, variable, value.id):
                continue     # `t = s` of a list or dict: ResyncContainerAliases binds both again
            if isinstance(value, gast.Name) and value.id != written and value.id not in \
                    self._chain and value.id in self.local_names and _read_once(body, value.id):
                self._follow_copy(body, value.id, statement, write, written, shared,
                                  sliced_copies)
                continue
            if sliced_copies and _sliced(value):
                continue
            bases = self.memory.may_view(value)
            if bases:
                # a temporary of normal form is named by what it holds (`pair(y)`)
                shared = shared or self._user_name(bases[0], written) or \
                    self.parsed.describe(bases[0])
                message, hint = write_through_view(self.parsed, written, statement, shared)
                raise self.parsed.error(write, message, hint=hint)

    def _both_containers(self, body, a, b):
        """Do `a` and `b` always hold a list or dict (never an array, which has views)?"""
        if self._kinds is None:
            self._kinds = container_kinds(body, (), self.parsed.namespace)
        return all(self._kinds.get(n) in ("list", "dict") for n in (a, b))

    def _bindings(self, body, variable):
        """{id(statement): the bindings of `variable` (assignments, loop targets) that may hold
        when it runs}. An update `variable op= v` keeps the array: it binds nothing new."""
        if variable not in self._reaching:
            self._reaching[variable] = reaching(body, lambda s: (
                isinstance(s, gast.For) and variable in target_names(s.target)) or (
                isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                and s.targets[0].id == variable))
        return self._reaching[variable]

    def _follow_copy(self, body, source, at, write, written, shared, sliced_copies):
        self._chain.add(source)
        try:
            self.refuse(body, source, at, write, written, shared or self._user_name(source, written),
                        sliced_copies)
        finally:
            self._chain.discard(source)

    def _user_name(self, variable, written):
        """`variable` where it is a name the user wrote other than `written`, else None."""
        return None if variable == written or variable in self.parsed.temporaries else variable


# methods that arrays lack: their object is a list, dict or set, which slicing copies
_METHODS_OF_CONTAINERS_ONLY = IN_PLACE_METHODS - {"fill", "put", "resize", "itemset", "sort"}


def _changed_by_its_method(statement):
    """(`xs`, the method) for a statement `xs.append(v)`, `v = xs.pop()` (any of
    IN_PLACE_METHODS); (None, None) for any other statement."""
    call = statement.value if isinstance(statement, (gast.Expr, gast.Assign)) else None
    if isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and \
            isinstance(call.func.value, gast.Name) and call.func.attr in IN_PLACE_METHODS:
        return call.func.value.id, call.func.attr
    return None, None


def _sliced(value):
    """`xs[a:b]` (a slice in the index)."""
    parts = value.slice.elts if isinstance(value, gast.Subscript) and \
        isinstance(value.slice, gast.Tuple) else [getattr(value, "slice", None)]
    return isinstance(value, gast.Subscript) and any(isinstance(p, gast.Slice) for p in parts)


def _read_once(body, variable):
    reads = [n for n in walk(gast.Module(body=body, type_ignores=[]))
             if isinstance(n, gast.Name) and n.id == variable and isinstance(n.ctx, gast.Load)]
    return len(reads) == 1


def _source_order(statement):
    return getattr(statement, "lineno", 0) or 0, getattr(statement, "col_offset", 0) or 0
