"""ResyncContainerAliases: `t = s; s.append(v)` changes the list `t` holds as well.

Python's `t = s` binds a second name to the same list (or dict); a change made in place
through one name (`s.append(v)`, `s[0] = v`, `s.pop()`, `del s[k]`) is seen through the other.
The transformer treats each name as a value of its own: reverse mode would give `t`'s reads an
adjoint of their own that never reaches the write (a silent zero). So after each such change,
every other name that may hold the very same object (analysis.aliasing.MayBeSame), is bound
there and is read afterwards is bound again to it:

    s.append(v)
    if t is s:
        t = s

which is what Python already has (the same object), written as a data flow the derivative
follows: `t`'s later reads now depend on the change. The test keeps the paths on which `t`
holds another object as they are. In-place arithmetic (`t += ...`) is GuardAliasedUpdates'."""
import gast

from .. import build
from ..analysis import call_results
from ..analysis.activity import assigned_names
from ..analysis.aliasing import MayBeSame, is_read, live_after
from ..analysis.container_kinds import container_kinds
from ..analysis.flow import bound_before
from ..traversal import binding_counts, walk, walk_statements


class ResyncContainerAliases:
    """After each in-place change of a list or dict, bind its other names to it again."""

    def __init__(self, parsed, params):
        self.parsed = parsed
        self.params = params

    def run(self, body):
        if self.parsed.generated:
            return body          # a derivative's own lists (its tape) are never aliased
        calls = call_results.hook(self.parsed, set(self.params) | set(assigned_names(body)))
        kinds = container_kinds(body, self.params, self.parsed.namespace)
        analysis = _ChangedByValues(self.params, calls).run(body)
        copies = _copies_of_parameters(body, self.params)
        after = {}
        for statement, owner, aliases in analysis.updates + analysis.changed_by_methods:
            if owner is None or isinstance(statement, gast.AugAssign) or not (
                    kinds.get(owner) in ("list", "dict") or _by_a_list_method(statement, owner)
                    or self._may_be_an_argument(owner, aliases, kinds, copies)):
                continue
            names = self._seen_through(body, statement, owner, aliases)
            if names:
                after.setdefault(id(statement), []).extend(
                    gast.copy_location(_resync(name, owner), statement) for name in names)
        return _insert_after(body, after) if after else body

    def _may_be_an_argument(self, owner, aliases, kinds, copies):
        """May `owner`, of no kind known here, be a list or dict argument another name holds
        too: is it a parameter's second name (`vs = ws; vs[0] = v`), or a parameter that has
        one (`copies`: the names bound once, to a parameter)? A row a loop walks is not
        such a name: views of array arguments are GuardStaleViews' and
        RefuseWritesThroughViews'."""
        return owner not in kinds and (owner in copies or owner in self.params and
                                       any(a in copies for a in aliases))

    def _seen_through(self, body, statement, owner, aliases):
        """The plain names other than `owner` that may hold its object, are bound at
        `statement` (a name not bound there cannot be tested) and are read after it."""
        later = live_after(body, statement)
        bound = bound_before(body, statement, self.params) or set()
        return sorted(a for a in aliases if a != owner and a.isidentifier()
                      and a in bound and is_read(a, later))


# builtins whose result is a new container
_COPIES = frozenset({"list", "tuple", "dict", "set", "sorted", "reversed", "iter"})


class _ChangedByValues(MayBeSame):
    """MayBeSame that also counts `del s[k]` among the changes made by methods, and never
    takes a copy (`list(s)`) or a container filled with `s` for `s` itself."""

    def sources(self, value):
        if isinstance(value, gast.Call) and (
                isinstance(value.func, gast.Name) and value.func.id in _COPIES
                or isinstance(value.func, gast.Attribute) and value.func.attr == "copy"):
            return set()       # a new container (holding the same entries), never the same one
        return super().sources(value)

    def aliases(self, name):
        """Every name that may hold the same object, through any chain of them (`a, b = s, s`:
        `a` may be `b`): more than there are costs only a test that fails when it runs."""
        found, todo = set(), [name]
        while todo:
            for other in self.state.get(todo.pop(), ()):
                if other not in found and other != name:
                    found.add(other)
                    todo.append(other)
        return found

    def join_into(self, name, sources):
        """`xs.append(v)`, `d[k] = v`: the container holds v; it is not v (a container
        holding a changed list is GuardStaleViews' to refuse)."""

    def statement(self, node):
        if isinstance(node, gast.Delete):
            for target in node.targets:
                if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
                    owner = target.value.id
                    self.changed_by_methods.append((node, owner, self.aliases(owner)))
        return super().statement(node)


def _copies_of_parameters(body, params):
    """The names `body` binds once, each by `name = parameter`, and never otherwise."""
    bindings = binding_counts(body)
    return {s.targets[0].id for s in walk_statements(body) if isinstance(s, gast.Assign)
            and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
            and isinstance(s.value, gast.Name) and s.value.id in params
            and bindings[s.targets[0].id] == 1 and s.targets[0].id not in params}


def _by_a_list_method(statement, owner):
    """Does `statement` change `owner` by a method only lists have (`a.append(v)` where `a`
    came from unpacking: its kind is not written out)?"""
    return any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
               and n.func.attr in _LIST_METHODS and isinstance(n.func.value, gast.Name)
               and n.func.value.id == owner for n in walk(statement))


_LIST_METHODS = frozenset({"append", "extend", "insert", "remove"})


def _resync(name, owner):
    return gast.If(test=gast.Compare(left=build.name(name), ops=[gast.Is()],
                                     comparators=[build.name(owner)]),
                   body=[build.assign(name, build.name(owner))], orelse=[])


def _insert_after(statements, after):
    out = []
    for statement in statements:
        for field in ("body", "orelse"):
            if getattr(statement, field, None):
                setattr(statement, field, _insert_after(getattr(statement, field), after))
        out += [statement] + after.get(id(statement), [])
    return out
