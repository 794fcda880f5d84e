"""The one memory model both modes ask: which arrays a value may be a view of, whether two
names may share memory after the forward pass, and which temporaries hold a new array."""
from collections import Counter

import gast
import numpy as np

from .. import rules, runtime
from . import call_results
from .aliasing import (NEW_ATTRIBUTES, VIEW_ATTRIBUTES, VIEW_FUNCTIONS, VIEW_LISTS, VIEW_METHODS,
                       index_may_view, returns_its_argument_uncopied, views_every_argument)
from .primitives import classify
from ..traversal import identifiers, walk, walk_statements
from .flow import bound_names, reachable

_VIEW_KEYS = rules.CallableSet([rules.method(n) for n in VIEW_METHODS | {"flatten_view"}] +
                               [rules.attribute(n) for n in VIEW_ATTRIBUTES])

# calls that may return their argument itself
_IDENTITY_KEYS = rules.CallableSet([rules.method("view"), rules.method("squeeze")])
# builtins that hold the entries of what they are given (an array's rows: views of it)
_ENTRY_HOLDERS = (list, tuple, iter, reversed)


def _makes_a_view(key):
    return key in _VIEW_KEYS or getattr(key, "__name__", None) in VIEW_FUNCTIONS


class Views:
    """Answers view and sharing questions for one function. `local_names` is the transform's
    own set: names it binds later count too."""

    def __init__(self, parsed, body, local_names):
        self.parsed = parsed
        self.local_names = local_names
        written = set(identifiers(parsed.node))          # one walk of the tree for both
        self.fresh_temporaries = self._fresh_temporaries(body, written)
        self.new_tuples = self._new_tuples(body, written)
        self.arrays = self._always_arrays(body)
        self.lists_of_views = self._lists_of_views(body)

    def _lists_of_views(self, body):
        """Local names some binding of which is a list or tuple of views (`s = np.split(y,
        2)`, `rows = list(y)`): `s.copy()` is a new list holding the same views."""
        found = set()
        for statement in walk_statements(body):
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name) \
                    and self.is_list_of_views(statement.value):
                found.add(statement.targets[0].id)
        return found

    def is_list_of_views(self, value):
        """Is `value` a call making a list or tuple of views of its argument?"""
        if not isinstance(value, gast.Call):
            return False
        key = classify(value, self.parsed, self.local_names).key
        return getattr(key, "__name__", None) in VIEW_LISTS and \
            (getattr(key, "__module__", "") or "").split(".")[0] in ("numpy", "cupy") \
            or any(key is holder for holder in _ENTRY_HOLDERS)

    def _always_arrays(self, body):
        """Local names every binding of which is a NumPy call returning an array (`a =
        np.zeros(n)`): never a list, tuple or dict, whose adjoint is one too."""
        verdicts = {}
        for statement in walk_statements(body):
            if isinstance(statement, gast.Assign) and \
                    isinstance(statement.targets[0], (gast.Subscript, gast.Attribute)):
                continue                  # `a[i] = v` writes into the array `a` holds
            for variable in bound_names(statement):
                verdicts[variable] = verdicts.get(variable, True) and \
                    self._binds_a_numpy_array(statement)
        return {variable for variable, always in verdicts.items() if always}

    def _binds_a_numpy_array(self, statement):
        if not isinstance(statement, gast.Assign) or not isinstance(statement.targets[0], gast.Name) \
                or not isinstance(statement.value, gast.Call):
            return False
        key = classify(statement.value, self.parsed, self.local_names).key
        module = getattr(key, "__module__", None) or ""
        return isinstance(key, np.ufunc) or module.split(".")[0] in ("numpy", "cupy")

    def may_view(self, value):
        """The names of the arrays `value` (a normal-form expression) may share memory with."""
        primitive = classify(value, self.parsed, self.local_names)
        key = primitive.key
        if key == rules.method("copy") and isinstance(value.func.value, gast.Name) \
                and value.func.value.id in self.lists_of_views:
            return (value.func.value.id,)         # a shallow copy: the list's views themselves
        if primitive.kind == "copy" or (key == rules.SUBSCRIPT and index_may_view(value.slice)) \
                or _makes_a_view(key):
            base = primitive.args[0] if primitive.args else None
            if not isinstance(base, gast.Name):
                return ()
            if base.id in self.fresh_temporaries or base.id in self.new_tuples:
                # `_mul = y * 2; y = _mul` or `b = np.reshape(_mul, s)`: nothing else holds
                # or reads `_mul`, so a write through `b` changes no array but its own
                return ()
            return (base.id,)
        if isinstance(value, gast.Attribute) and isinstance(value.value, gast.Name) \
                and value.value.id in self.local_names and value.attr not in NEW_ATTRIBUTES:
            # a field of a local object (`r = Record(y)`: `r.a` is `y`): what it was made of
            return (value.value.id,)
        if isinstance(value, gast.Call) and views_every_argument(value):
            return tuple(dict.fromkeys(a.id for a in primitive.args if isinstance(a, gast.Name)))
        if key is runtime.stored_as and isinstance(primitive.args[0], gast.Name):
            # the value itself where no conversion is needed: what it views
            # (`buf[1] = stored_as(_item, buf)` with `_item = buf[:, 2]`)
            return (primitive.args[0].id,)
        if isinstance(value, gast.Call) and returns_its_argument_uncopied(value):
            owner = primitive.args[0] if primitive.args else None
            return (owner.id,) if isinstance(owner, gast.Name) else ()
        if isinstance(value, gast.Call) and key not in call_results.CONTAINER_MAKERS:
            returned = call_results.result_arguments(value, self.parsed, self.local_names) or ()
            # `y = h(x * 2.0)` returning its argument: `y` is the only name of that new array
            return tuple(dict.fromkeys(a.id for a in returned if isinstance(a, gast.Name)
                                       and a.id in self.local_names
                                       and a.id not in self.fresh_temporaries))
        return ()

    def shares_memory(self, name, forward, written):
        """May the array `name` holds after `forward` share memory with one in `written`?"""
        if not written:
            return False
        linked = {}                       # name -> names it views, holds, or that view it
        for s in walk_statements(forward):
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
                held = s.value.elts if isinstance(s.value, (gast.Tuple, gast.List)) else \
                    s.value.values if isinstance(s.value, gast.Dict) else []
                for base in self.may_view(s.value) + tuple(
                        e.id for e in held if isinstance(e, gast.Name)):
                    linked.setdefault(s.targets[0].id, set()).add(base)
                    linked.setdefault(base, set()).add(s.targets[0].id)
        return bool(reachable(linked, name) & written)

    def _fresh_temporaries(self, body, written):
        """Temporaries of the normal form bound once to a new array (`_mul = y * 2`) and read
        once: what reads them is the only name for that array; `written`: every identifier
        of the function."""
        definitions = {}
        for statement in walk_statements(body):
            for variable in bound_names(statement):
                definitions.setdefault(variable, []).append(statement)
        # a run-time check (`check_fresh_array(_mul, ...)`) reads a value without keeping it
        checked = {id(n) for s in walk_statements(body) if self._is_check(s) for n in walk(s)}
        reads = Counter(n.id for n in walk(gast.Module(body=body, type_ignores=[]))
                        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
                        and id(n) not in checked)
        return {variable for variable, statements in definitions.items()
                if variable not in written and len(statements) == 1 and reads[variable] <= 1
                and self._binds_a_new_array(statements[0])}

    def _is_check(self, statement):
        call = getattr(statement, "value", None)
        return isinstance(statement, gast.Expr) and isinstance(call, gast.Call) and \
            isinstance(call.func, gast.Name) and getattr(self.parsed.namespace.get(
                call.func.id), "__module__", None) == "s2s_ad.runtime.checks"

    def _new_tuples(self, body, written):
        """Temporaries bound once to a call of the user's that returns new arrays
        (`_pair = pair(x)`), each element read once (`a = _pair[0]; b = _pair[1]`): each
        element is then an array no other name holds; `written`: every identifier of the
        function."""
        definitions, reads = {}, {}
        for statement in walk_statements(body):
            for variable in bound_names(statement):
                definitions.setdefault(variable, []).append(statement)
        subscripted = _read_for_length(body)     # `len(_pair)`, an unpacking's check
        for node in walk(gast.Module(body=body, type_ignores=[])):
            if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and \
                    isinstance(node.slice, gast.Constant):
                subscripted.add(id(node.value))
                reads.setdefault(node.value.id, []).append(node.slice.value)
            elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and \
                    id(node) not in subscripted:
                reads.setdefault(node.id, []).append(None)
        return {variable for variable, statements in definitions.items()
                if variable not in written and len(statements) == 1
                and None not in reads.get(variable, [None])
                and len(set(reads[variable])) == len(reads[variable])
                and isinstance(statements[0], gast.Assign)
                and isinstance(statements[0].value, gast.Call)
                and call_results.returns_new_elements(statements[0].value, self.parsed,
                                                      self.local_names)}

    def _binds_a_new_array(self, statement):
        if not isinstance(statement, gast.Assign) or not isinstance(statement.targets[0], gast.Name):
            return False
        value = statement.value
        if isinstance(value, (gast.BinOp, gast.UnaryOp)):
            return True
        key = classify(value, self.parsed, self.local_names).key
        # a call with a rule of ours makes a new array unless it is a view; a user
        # function might return its argument itself
        return isinstance(value, gast.Call) and rules.adjoint_rule(key) is not None \
            and not (_makes_a_view(key) or key in _IDENTITY_KEYS
                     or any(key is holder for holder in _ENTRY_HOLDERS))


def _read_for_length(body):
    """The ids of the names `len(name)` reads in `body`: the length is read, not the value kept
    (an unpacking's check, passes/normal_form.length_check)."""
    return {id(node.args[0]) for node in walk(gast.Module(body=body, type_ignores=[]))
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
            and node.func.id == "len" and len(node.args) == 1
            and isinstance(node.args[0], gast.Name)}
