"""An in-place write `x[i] = v` where `x` may be a view of (or another name for) another
array: the other array would change too, unseen by the derivative. Both modes refuse it.

Copies read once are followed (`x = _t`: x is whatever _t was), so that the message names the
user's own two variables (after `buf, v = v, buf`, v is what buf was), never a temporary of
normal form.

A name that may hold the very array written (`u, v = v, u` in a loop: double buffering) is
left to the run-time check GuardStaleViews put before the write where that name is read later
(`check_view_spared(u, v, ...)`): the write is refused when it runs only if the two do share
memory then. So is a name that GuardAliasedUpdates binds to the array after the write where it
is that very array (`z = y; y[0] = v`: `check_rebinds(y, ..., rebound=('z',))` before the
write, `if same: z = y` after it)."""
import gast

from .. import runtime
from ..analysis import call_results
from ..analysis.activity import target_names
from ..analysis.aliasing import IN_PLACE_METHODS, MayAlias, is_module_source, is_read, live_after
from ..analysis.container_kinds import container_kinds
from ..analysis.flow import reaching
from ..analysis.primitives import classify
from ..traversal import parameter_names, walk, walk_statements
from .guard_aliased_updates import rebound_at
from .refuse_unsupported import write_through_view
from .write_back_views import seeing_the_write


class WritesThroughViews:
    """`memory` is the function's analysis.memory.Views; `checked` GuardStaleViews' run-time
    checks (id of a write -> the names checked there)."""

    def __init__(self, parsed, local_names, memory, checked=None):
        self.parsed = parsed
        self.local_names = local_names
        self.memory = memory
        self.checked = checked or {}
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
        self.rebound = rebound_at(body)
        self.sharing = self._sharing(body)
        for statement in walk_statements(body):
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Subscript):
                # into a list: a slot bound again, and a slice it was copied from keeps its own
                written = statement.targets[0].value.id
                self.refuse(body, written, statement, statement,
                            sliced_copies=self._always_a_list(body, written))
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
        seeing = seeing_the_write(self.parsed, write)
        if written in seeing[1:2] and self._unseen(body, write, seeing):
            # written back into its base right after (passes/write_back_views.py), and its
            # views bound there again: that write is checked as a write into the base
            return
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
            if self._tupled(value):
                continue                  # a tuple, never written by index: see _tupled
            if isinstance(value, gast.Name) and (
                    value.id in self.checked.get(id(write), ()) or
                    value.id in self.rebound.get(self.parsed.location(write), ())):
                continue                  # the same array or not: decided when it runs
            bases = self.memory.may_view(value)
            if bases and self._unseen(body, write, (written,)):
                return                    # nothing that shares the memory is read again
            if bases:
                # a temporary of normal form is named by what it holds (`pair(y)`)
                shared = shared or self._user_name(bases[0], written) or \
                    self.parsed.describe(bases[0])
                message, hint = write_through_view(self.parsed, written, statement, shared)
                raise self.parsed.error(write, message, hint=hint)

    def _tupled(self, value):
        """`t = with_entry(t, k, v)`, the write back of an array a tuple holds
        (passes/write_back_views.py): `t` is a tuple then, and the write back by index that
        sits beside it (`t[k] = v`, for an array `t`) never runs for it."""
        return isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
            self.parsed.namespace.get(value.func.id) is runtime.with_entry

    def _sharing(self, body):
        """{id of a write `y[i] = v`: the names that may share memory with `y` there}."""
        local = self.local_names
        analysis = MayAlias(parameter_names(self.parsed.node), call_results.hook(self.parsed, local),
                            call_results.module_arrays(self.parsed, local))
        return {id(s): aliases for s, _, aliases in analysis.run(body).updates
                if isinstance(s, gast.Assign)}

    def _unseen(self, body, write, seeing):
        """Does no name that may share memory with the array written (other than the names
        `seeing` it: the one written through, or those passes/write_back_views.py binds to
        the write) read it after
        `write`, in this run or a later step of a loop, nor is it the module's? Then the write
        changes memory only `written` is read through: the backward pass undoes it before
        reading what was saved there, and forward mode reads nothing stale. (A parameter's
        array is the caller's: it changes as the function changes it.)"""
        aliases = self.sharing.get(id(write))
        if aliases is None or any(is_module_source(a) for a in aliases):
            return False
        later = live_after(body, write)
        return not any(is_read(a, later) for a in aliases if a not in seeing)

    def _both_containers(self, body, a, b):
        """Do `a` and `b` always hold a list or dict (never an array, which has views)?"""
        return self._always_a_list(body, a) and self._always_a_list(body, b)

    def _always_a_list(self, body, name):
        """Does `name` always hold a list or dict (container_kinds)?"""
        if self._kinds is None:
            self._kinds = container_kinds(body, (), self.parsed.namespace)
        return self._kinds.get(name) in ("list", "dict")

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

