"""LowerZips: `zip(...)` whose pairs are all taken at once, outside a loop's header (issue 15):
unpacked (`a, b = zip(*rows)`) or read by `list`, `tuple` or `dict` (`list(zip(xs, ys))`,
`dict(zip(keys, values))`), is the list comprehension it makes,
`[(xs[i], ys[i]) for i in range(min(len(xs), len(ys)))]`, which comprehensions, list reads
and list adjoints already differentiate. Its sequences are bound to names of their own first
(each is evaluated once, before the statement, as Python evaluates a call's arguments), and
`*rows` of a list written out is spelled `rows[0], rows[1]` (lower_for_loops.spelled_out).

A zip kept as it is (`z = zip(xs, ys)`, read later) stays refused, with a hint naming these
forms: an iterator is used up by its first reader, which a name bound to a list is not."""
import builtins

import gast

from .. import build
from ..traversal import rewrite_blocks, walk
from .lower_for_loops import spelled_out

_AT_ONCE = ("list", "tuple", "dict")
# calls that give what cannot be indexed (an iterator, a dict's view): their zip stays refused
_ITERATORS = {"reversed", "map", "filter", "enumerate", "zip", "iter", "items", "keys", "values"}


def _an_iterator(sequence):
    if not isinstance(sequence, gast.Call):
        return False
    func = sequence.func
    name = func.id if isinstance(func, gast.Name) else getattr(func, "attr", None)
    return name in _ITERATORS


class LowerZips:

    def __init__(self, namespace, namer, local_names, lengths):
        self.namespace = namespace
        self.namer = namer
        self.local_names = local_names
        self.lengths = lengths              # normal_form.tuple_lengths of the body

    def run(self, body):
        return rewrite_blocks(body, self.statement)

    def statement(self, node):
        if isinstance(node, (gast.For, gast.FunctionDef)):
            return [node]                    # a loop's zip is lower_for_loops'
        before = []
        if isinstance(node, gast.Assign) and all(isinstance(t, (gast.Tuple, gast.List))
                                                 for t in node.targets):
            node.value = self._lowered(node.value, before, node)
        for call in walk(node):
            if isinstance(call, gast.Call) and len(call.args) == 1 and not call.keywords \
                    and any(self._builtin(call, name) for name in _AT_ONCE):
                call.args[0] = self._lowered(call.args[0], before, node)
        return before + [node]

    def _builtin(self, node, name):
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
            and node.func.id == name and name not in self.local_names \
            and self.namespace.get(name, getattr(builtins, name)) is getattr(builtins, name)

    def _lowered(self, value, before, statement):
        """`value` as its comprehension where it is a zip of sequences known one by one."""
        if not self._builtin(value, "zip") or value.keywords:
            return value
        sequences = [s for a in value.args for s in spelled_out(a, self.lengths)]
        if not sequences or any(isinstance(s, gast.Starred) or _an_iterator(s) for s in sequences):
            return value
        held = []
        for sequence in sequences:
            name = self.namer.fresh("_zipped")
            before.append(gast.copy_location(build.assign(name, sequence), statement))
            held.append(name)
        index = self.namer.fresh("_i")
        lengths = ", ".join(f"len({h})" for h in held)
        stop = f"min({lengths})" if len(held) > 1 else lengths
        pair = ", ".join(f"{h}[{index}]" for h in held)
        return gast.copy_location(build.quote_expr(
            f"[({pair},) for {index} in range({stop})]"), value)
