"""What reverse mode refuses, beyond the passes' refusals it runs first: an in-place write
through a name that may be a view, and changes to a list it cannot undo. Each refusal names the
user's expressions."""
import gast

from ...analysis.primitives import classify
from ...passes.refuse_complex import refuse_complex_constants
from ...passes.refuse_misread_operations import refuse_misread_operations
from ...passes.refuse_unsupported import refuse_writes_into_arguments, write_through_view
from ...traversal import walk_statements
from ...analysis.activity import target_names
from .blocks import appended

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


class Refusals:
    """The refusals that need the whole normal-form function and its views."""

    def __init__(self, parsed, local_names, views):
        self.parsed = parsed
        self.local_names = local_names
        self.views = views

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

