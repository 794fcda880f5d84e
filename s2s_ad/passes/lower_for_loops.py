"""LowerForLoops: `enumerate`, `zip` and `reversed(range(...))` loops become loops over a range.

`for k in d:` over a name that always holds a dict walks its keys: `for k in d.keys():`, whose
keys carry no derivative (walked as a sequence, `k` would be read as `d`'s entries).

A builtin that walks its argument (`sorted(d)`, `list(d)`, `tuple(d)`, `reversed(d)`, `max(d)`,
`enumerate(d)`, ...) given such a name walks its keys too: `sorted(list(d.keys()))` (read as a
sequence, the keys were taken for the entries: a wrong jvp, a KeyError in reverse mode), and
`a, b = d` unpacks them: `a, b = list(d.keys())`.

`zip(*rows)` where `rows` is a list or tuple written out (`rows = [(a, b), (c, d)]`, bound once
and never changed) is `zip(rows[0], rows[1])`, as normal form spells any call's `*rows`."""
import gast

from .. import build
from ..traversal import StatementTransformer, walk


# builtins that walk an iterable given as their first argument
_KEY_WALKERS = ("sorted", "list", "tuple", "reversed", "enumerate", "max", "min", "set",
                "frozenset", "iter", "sum", "any", "all", "zip")


def rebound_in(statements):
    """Names that `statements` bind (assignments, loop targets), nested blocks included."""
    return {n.id for s in statements for n in walk(s)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


class LowerForLoops(StatementTransformer):
    """Rewrite loops over enumerate/zip/reversed into index loops the backward pass can replay."""

    def __init__(self, parsed, namer, local_names, lengths=None, dicts=()):
        self.parsed = parsed
        self.namer = namer
        self.local_names = local_names
        self.lengths = lengths or {}      # {name: length} of displays bound once (normal_form)
        self.dicts = dicts                # names that always hold a dict (container_kinds)

    def keys_of_dicts(self, body):
        """`sorted(d)`, `list(d)`, ... as `sorted(list(d.keys()))`, ... where `d` always holds
        a dict: these walk its keys, which carry no derivative."""
        if not self.dicts:
            return body                  # no dict: nothing to respell, no walk
        for node in (n for s in body for n in walk(s)):
            if isinstance(node, gast.Assign) and isinstance(node.value, gast.Name) \
                    and node.value.id in self.dicts \
                    and any(isinstance(t, (gast.Tuple, gast.List)) for t in node.targets):
                node.value = gast.copy_location(   # `a, b = d` unpacks the keys
                    build.quote_expr(f"list({node.value.id}.keys())"), node.value)
                continue
            if any(self._builtin(node, name) for name in _KEY_WALKERS) and node.args \
                    and isinstance(node.args[0], gast.Name) and node.args[0].id in self.dicts \
                    and not isinstance(node.args[0], gast.Starred):
                node.args[0] = gast.copy_location(
                    build.quote_expr(f"list({node.args[0].id}.keys())"), node.args[0])
        return body

    def _builtin(self, node, name):
        return (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
                and node.func.id == name and name not in self.local_names
                and self.parsed.namespace.get(name, __builtins__) is not None)

    def visit_For(self, node):
        lowered = self._lowered(node)
        statements = lowered if isinstance(lowered, list) else [lowered]
        if isinstance(statements[-1], gast.For):
            statements[-1] = self._target_of_its_own(statements[-1])
        return statements

    def _target_of_its_own(self, loop):
        """`for i in seq: i = 2 * i; ...` as `for _item in seq: i = _item; i = 2 * i; ...`:
        the backward pass binds a loop's target to each step's item again, which is what the
        body read only where the body never rebinds it."""
        targets = {n.id for n in walk(loop.target) if isinstance(n, gast.Name)}
        if not targets & rebound_in(loop.body):
            return loop
        item = self.namer.fresh("_item")
        unpack = gast.copy_location(build.assign(loop.target, build.name(item)), loop)
        loop.target = build.name(item, store=True)
        loop.body = [unpack] + loop.body
        return loop

    def _lowered(self, node):
        self.generic_visit(node)
        iterable = node.iter
        if isinstance(iterable, gast.Name) and iterable.id in self.dicts:
            node.iter = gast.copy_location(build.quote_expr(f"{iterable.id}.keys()"), iterable)
            return node
        for zipped in (iterable, iterable.args[0] if self._builtin(iterable, "enumerate")
                       and iterable.args else None):
            if self._builtin(zipped, "zip"):
                zipped.args = [s for a in zipped.args for s in spelled_out(a, self.lengths)]
        if self._builtin(iterable, "reversed") and len(iterable.args) == 1 \
                and self._builtin(iterable.args[0], "range"):
            node.iter = build.quote_expr("{r}[::-1]", r=iterable.args[0])
            return node
        if self._enumerates_a_zip(node):
            setup, loop = self._as_one_zip(node)
            return setup + self.visit_For(loop)
        if self._builtin(iterable, "enumerate") and isinstance(node.target, gast.Tuple) \
                and len(node.target.elts) == 2 and not iterable.keywords:
            sequence = iterable.args[0]
            index, element = node.target.elts
            setup, sequence = self._hold(sequence, node, node.body)
            counter = self.namer.fresh("_i")
            start = iterable.args[1] if len(iterable.args) > 1 else None
            body = [build.assign(element, build.quote_expr(f"{{s}}[{counter}]", s=sequence))]
            body.insert(0, build.assign(index, build.name(counter) if start is None else
                                        build.quote_expr(f"{counter} + {{k}}", k=start)))
            loop = gast.For(target=build.name(counter, store=True),
                            iter=build.quote_expr("range(len({s}))", s=sequence),
                            body=body + node.body, orelse=node.orelse, type_comment=None)
            return [gast.copy_location(s, node) for s in setup + [loop]]
        if self._builtin(iterable, "zip") and isinstance(node.target, gast.Tuple) \
                and len(node.target.elts) == len(iterable.args) and not iterable.keywords:
            setup, sequences = [], []
            for sequence in iterable.args:
                hold, sequence = self._hold(sequence, node, node.body)
                setup += hold
                sequences.append(sequence)
            counter = self.namer.fresh("_i")
            length = gast.Call(func=build.name("min"), keywords=[], args=[
                build.quote_expr("len({s})", s=s) for s in sequences]) if len(sequences) > 1 \
                else build.quote_expr("len({s})", s=sequences[0])
            body = [build.assign(target, build.quote_expr(f"{{s}}[{counter}]", s=sequence))
                    for target, sequence in zip(node.target.elts, sequences)]
            loop = gast.For(target=build.name(counter, store=True),
                            iter=gast.Call(func=build.name("range"), args=[length], keywords=[]),
                            body=body + node.body, orelse=node.orelse, type_comment=None)
            return [gast.copy_location(s, node) for s in setup + [loop]]
        return self._dict_view_loop(node)

    def _enumerates_a_zip(self, node):
        """`for i, (a, b) in enumerate(zip(xs, ys))`."""
        iterable, target = node.iter, node.target
        if not (self._builtin(iterable, "enumerate") and not iterable.keywords
                and len(iterable.args) in (1, 2) and isinstance(target, gast.Tuple)
                and len(target.elts) == 2 and isinstance(target.elts[1], gast.Tuple)):
            return False
        zipped = iterable.args[0]
        return self._builtin(zipped, "zip") and not zipped.keywords and zipped.args \
            and len(zipped.args) == len(target.elts[1].elts)

    def _as_one_zip(self, node):
        """`for i, (a, b) in enumerate(zip(xs, ys), k)` as `for i, a, b in zip(range(k, k +
        len(xs)), xs, ys)`: zip stops at the shortest sequence, as before."""
        sequences = node.iter.args[0].args
        start = node.iter.args[1] if len(node.iter.args) > 1 else gast.Constant(value=0, kind=None)
        setup, held = [], []
        for sequence in sequences:
            hold, sequence = self._hold(sequence, node, node.body)
            setup += hold
            held.append(sequence)
        positions = build.quote_expr("range({k}, {k2} + len({s}))", k=start,
                                     k2=build.clone(start), s=held[0])
        index, elements = node.target.elts
        loop = gast.For(target=gast.Tuple(elts=[index] + elements.elts, ctx=gast.Store()),
                        iter=gast.Call(func=build.name("zip"), args=[positions] + held, keywords=[]),
                        body=node.body, orelse=node.orelse, type_comment=None)
        return setup, gast.copy_location(loop, node)

    def _dict_view_loop(self, node):
        """`for k, v in d.items():` and `for v in d.values():` walk the keys and read each
        entry, so that an entry's derivative flows back to it: `for k in d.keys(): v = d[k]`."""
        iterable, target = node.iter, node.target
        if not (isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Attribute)
                and iterable.func.attr in ("items", "values") and not iterable.args
                and not iterable.keywords):
            return node
        if iterable.func.attr == "items":
            if not (isinstance(target, gast.Tuple) and len(target.elts) == 2):
                return node
            key, entry = target.elts
        else:
            key, entry = build.name(self.namer.fresh("_key"), store=True), target
        setup, mapping = self._hold(iterable.func.value, node, node.body)
        read = build.assign(entry, build.quote_expr("{d}[{k}]", d=mapping, k=_loaded(key)))
        loop = gast.For(target=key, iter=build.quote_expr("{d}.keys()", d=mapping),
                        body=[read] + node.body, orelse=node.orelse, type_comment=None)
        return [gast.copy_location(s, node) for s in setup + [loop]]

    def _hold(self, expression, node, body):
        """A name for the sequence the loop walks: Python evaluates it once, before the loop."""
        if isinstance(expression, gast.Name) and expression.id not in rebound_in(body):
            return [], expression
        held = self.namer.fresh("_seq")
        return [gast.copy_location(build.assign(held, expression), node)], build.name(held)


def spelled_out(argument, lengths):
    """`*[a, b]` as `a, b`, and `*rows` as `rows[0], rows[1]` where `rows` is a display of
    known length (`lengths`: normal_form.tuple_lengths); any other argument as it is."""
    if not isinstance(argument, gast.Starred):
        return [argument]
    value = argument.value
    if isinstance(value, (gast.List, gast.Tuple)) and \
            not any(isinstance(e, gast.Starred) for e in value.elts):
        return list(value.elts)
    if isinstance(value, gast.Name) and value.id in lengths:
        return [gast.copy_location(build.quote_expr(f"{value.id}[{k}]"), value)
                for k in range(lengths[value.id])]
    return [argument]


def _loaded(target):
    """A loop target read back as a value (`k`, or `(a, b)`)."""
    node = build.clone(target)
    for name in walk(node):
        if hasattr(name, "ctx"):
            name.ctx = gast.Load()
    return node
