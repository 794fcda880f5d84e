"""What reverse mode refuses, beyond the passes' refusals it runs first: an in-place write
through a name that may be a view, a view read after its array was written in place, and
changes to a list it cannot undo. Each refusal names the user's expressions."""
import gast

from ... import build, runtime
from ...analysis.primitives import classify
from ...passes.refuse_complex import refuse_complex_constants
from ...passes.refuse_misread_operations import refuse_misread_operations
from ...passes.refuse_unsupported import refuse_writes_into_arguments, write_through_view
from ...traversal import loads, walk_statements
from ...analysis.activity import target_names
from .blocks import appended, in_order, insert_after, owners, reachable

# list and array methods that change their owner in a way the backward pass cannot undo
_MUTATING_METHODS = ("extend", "insert", "update", "fill", "sort", "remove", "clear",
                     "setdefault", "popitem")


def refuse_what_the_passes_refuse(parsed, body, local_names, activity):
    """Writes into arguments, complex constants and misread operations (shared with forward
    mode); an `xs.append(v)` reverse mode handles itself."""
    refuse_writes_into_arguments(parsed, body, local_names, activity.varied,
                                 handled=lambda s: appended(s) is not None)
    refuse_complex_constants(parsed, body, activity.active)
    refuse_misread_operations(parsed, body, local_names, activity.varied)


def _may_be_a_number(value):
    """`y[i]`, `y[i, j]`: a number when `y` has as many dimensions as indices, else a view."""
    if not isinstance(value, gast.Subscript):
        return False
    parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
    return all(isinstance(p, gast.Name) or (isinstance(p, gast.Constant) and isinstance(p.value, int))
               for p in parts)


class Refusals:
    """The refusals that need the whole normal-form function and its views."""

    def __init__(self, parsed, local_names, views, helper):
        self.parsed = parsed
        self.local_names = local_names
        self.views = views
        self.helper = helper

    def refuse_stale_views(self, body):
        """A view of `x` read after `x` is written in place would see the new values; the
        backward pass would not. Refuse that rather than differentiate something else; where
        the read may be a number (`v = y[i]`), check when the derivative runs. Returns `body`
        with those checks."""
        order = list(in_order(body))
        writes = [(statement.targets[0].value.id, position, loops, statement)     # (base, ...)
                  for position, (statement, loops) in enumerate(order)
                  if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Subscript)]
        if not writes:
            return body
        owner = {id(s): o for s, o in owners(body)}
        checks = {}           # id of a view's definition -> the check that follows it
        for view, (base, defined, view_loops, definition) in self._view_bindings(order):
            # a view bound directly in a loop body is bound afresh before each read that follows
            fresh_each_iteration = bool(view_loops) and owner[id(definition)] == view_loops[-1]
            for written, position, loops, write in writes:
                if written != base or position < defined:
                    continue
                for statement in _reads_after_write(order, view, (position, loops),
                                                    (defined, view_loops), fresh_each_iteration):
                    self._check_or_refuse(view, base, definition, write, statement, checks)
        return insert_after(body, checks) if checks else body

    def _view_bindings(self, order):
        """(view name, (base, position, loops, defining statement)) for every array a name
        may view, directly or through other views."""
        views = {}            # view name -> [(base, position, loops, statement)]
        for position, (statement, loops) in enumerate(order):
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name):
                for base in self.views.may_view(statement.value):
                    views.setdefault(statement.targets[0].id, []).append((base, position, loops, statement))
        # a view of a view (`_item = x[2]; v = pick(_item)`) is a view of the first base too
        direct = {view: {b[0] for b in bindings} for view, bindings in views.items()}
        for view, bindings in views.items():
            for base, defined, view_loops, definition in list(bindings):
                for further in reachable(direct, base) - {base, view}:
                    bindings.append((further, defined, view_loops, definition))
        return [(view, binding) for view, bindings in views.items() for binding in bindings]

    def _check_or_refuse(self, view, base, definition, write, statement, checks):
        if id(definition) in checks:
            return
        if _may_be_a_number(definition.value):
            # `v = y[i]` is a copy when y is 1-D: check when it runs
            checks[id(definition)] = self._view_check(view, definition, write, statement)
            return
        raise self.parsed.error(statement, *self._stale_view(view, base, definition, write))

    def _view_check(self, view, definition, write, statement):
        line, col = self.parsed.location(statement)
        return build.quote(
            f"{self.helper(runtime.check_not_view)}({view}, "
            f"{self.parsed.describe_expression(definition.value)!r}, "
            f"{self.parsed.location(write)[0]}, "
            f"{self.parsed.filename + f':{line}:{col + 1}'!r})")[0]

    def _stale_view(self, view, base, definition, write):
        """(message, hint) for `view`, bound by `definition` to what may be a view of `base`,
        read after `write` changed `base` in place; named as the user wrote them."""
        bound = self.parsed.describe_expression(definition.value)
        base = self.parsed.describe(base)
        temporary = view in self.parsed.temporaries
        described = f"`{bound}` (line {self.parsed.location(definition)[0]})" if temporary \
            else f"`{view}`"
        copy = f"{bound}.copy()" if temporary else f"{view} = {bound}.copy()"
        return (f"{described} may be a view of `{base}`, which is written in place at line "
                f"{self.parsed.location(write)[0]} before it is read here; the gradient would "
                f"miss that write",
                f"take a copy (`{copy}`) or read it before writing into `{base}`")

    def refuse_write_through_view(self, variable, write, body):
        """`variable[...] = v` (`write`) where `variable` may be a view, in `body`."""
        for statement in walk_statements(body):
            if isinstance(statement, gast.For) and variable in target_names(statement.target) \
                    and classify(statement.iter, self.parsed, self.local_names).key is not range:
                raise self.parsed.error(
                    write, f"cannot differentiate an in-place write into `{variable}`, an element "
                    f"of the sequence the loop at line {self.parsed.location(statement)[0]} walks "
                    f"(a row of an array is a view of it)",
                    hint=f"write into the sequence itself (`...[i] = ...` in a loop over "
                         f"indices), or make the element a copy (`{variable} = {variable}.copy()`)")
            if not (isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)
                    and statement.targets[0].id == variable):
                continue
            if self.views.may_view(statement.value):
                message, hint = write_through_view(self.parsed, variable, statement)
                raise self.parsed.error(write, message, hint=hint)

    def refuse_list_mutation(self, statement, params, varied):
        """An expression statement that changes an argument's list, or a varied value in
        place by a method whose change the backward pass cannot undo."""
        value = statement.value
        append = appended(statement)
        if append is not None and append[0] in params:
            raise self.parsed.error(statement, f"cannot differentiate a function that appends to "
                                    f"its argument `{append[0]}` (the caller's list would change)",
                                    hint=f"append to a copy: `{append[0]} = {append[0]}[:]` "
                                         f"first")
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute):
            owner = value.func.value
            if isinstance(owner, gast.Name) and owner.id in varied and \
                    value.func.attr in _MUTATING_METHODS:
                owner = self.parsed.describe(owner.id)
                raise self.parsed.error(statement, f"cannot differentiate through "
                                        f"`{owner}.{value.func.attr}(...)`, which changes "
                                        f"`{owner}` in place",
                                        hint="build a new value instead of mutating one")


def _reads_after_write(order, view, write_at, view_at, fresh_each_iteration):
    """The statements of `order` that read `view` after the write at `write_at` (position,
    loops), in the same run or in a later iteration of a loop around both."""
    position, loops = write_at
    defined, view_loops = view_at
    shared_loops = set(loops) & set(view_loops)
    for later, (statement, use_loops) in enumerate(order):
        if later == position or isinstance(statement, (gast.If, gast.While, gast.For)) \
                or view not in loads(statement):
            continue
        in_next_iteration = shared_loops and set(use_loops) & shared_loops and not (
            fresh_each_iteration and defined < later)
        if later > position or in_next_iteration:
            yield statement
