"""The names generated code reads from outside itself: helpers, callee derivatives, values."""
import gast


class GlobalNames:
    """Binds objects to names in the generated code's globals, for both modes' emitters.

    Expects `globals` (name -> object), `parsed`, `local_names`, `function_name` and `namer`.
    """

    def global_name(self, identifier, obj):
        """Make `obj` visible as `identifier` (or a fresh name) in the generated code: the
        user's own name where it means the same object and nothing local takes it."""
        known = self.globals.get(identifier)
        if known is obj:
            return identifier
        user = self.parsed.namespace.get(identifier, obj)
        if known is None and user is obj and identifier not in self.local_names \
                and identifier != self.function_name:     # a recursive callee's other wrt
            self.globals[identifier] = obj
            self.namer.reserve(identifier)
            return identifier
        for existing, value in self.globals.items():
            if value is obj:
                return existing
        fresh = self.namer.fresh(identifier + "_")
        self.globals[fresh] = obj
        return fresh

    def resolve_global(self, node):
        """The object a name (or an attribute chain on one) of the generated code stands
        for, from its globals or the user's module; LookupError for a local value."""
        if isinstance(node, gast.Attribute):
            return getattr(self.resolve_global(node.value), node.attr)
        if not isinstance(node, gast.Name) or node.id in self.local_names:
            raise LookupError(node)
        if node.id in self.globals:
            return self.globals[node.id]
        return self.parsed.resolve(node.id)

    def helper(self, function):
        """The name of a run-time helper (`unbroadcast`, `zero_tangent`) in generated code."""
        return self.global_name(function.__name__, function)

    def inserted_check(self, function):
        """The name of a run-time check spliced into the user's code before emission: the
        analyses that classify calls look it up in the user's namespace, so it goes there too."""
        name = self.helper(function)
        self.parsed.namespace[name] = function
        return name
