"""The tape plan: which earlier values the backward pass needs back, and how it gets each
one (kept in a variable of its own outside loops, pushed on the tape inside them, recomputed
at the top of the backward loop, or undone by the opposite call); then the pushes and pops
that carry the plan out.

The adjoint emitter leaves a `Restore` marker wherever a value may need to come back; the
plan is made once the whole backward pass is known (what it reads decides what is saved).
"""
from dataclasses import dataclass

import gast

from ... import build, runtime
from ...analysis.activity import assigned_names
from ...traversal import loads, rewrite_blocks, walk, walk_statements
from .blocks import possibly_defined
from .recompute import Recomputation


class Restore:
    """A place in the backward pass where `target` may need its earlier value back."""

    def __init__(self, forward_statement, target):
        self.forward_statement = forward_statement
        self.target = target          # a Name, or a Subscript for in-place writes
        self.node = gast.Expr(value=gast.Constant(value=None, kind=None))
        self.undo = None               # a statement that restores without the tape
        self.in_a_dict = False         # an entry of what may be a dict (the key may be new)
        self.copies = False            # save a copy: the name's array is written in place

    @property
    def variable(self):
        return self.target.id if isinstance(self.target, gast.Name) else self.target.value.id

    @property
    def saves_a_copy(self):
        """An entry written in place, or an array that is: a reference would change too."""
        return isinstance(self.target, gast.Subscript) or self.copies


def is_marker(node):
    """Is `node` a restore's place-holder (`None` as a statement)?"""
    return isinstance(node, gast.Expr) and isinstance(node.value, gast.Constant) and node.value.value is None


@dataclass
class TapePlan:
    markers: set         # ids of every restore's place-holder in the backward pass
    kept: dict           # id of a place-holder -> its Restore, which the backward pass needs
    pushes: dict         # id of a forward statement -> the Restores saved just before it
    recomputed: list     # [(backward loop, statements put at the top of its body)]
    saved_in: dict       # id of a place-holder -> the variable saving its value (outside loops)
    tape: str            # the tape's name, or None when nothing goes on it
    snapshot: str        # the name of the copying helper, or None when nothing is copied
    unbound: list        # names pushed before their first binding: set to None first
    entry_before: str = None  # the helper that saves an entry a write into a dict may add


class TapePlanner:
    """Makes the tape plan of one function."""

    def __init__(self, params, in_loop, reverse_loops, may_view, namer, helper):
        self.params = params
        self.in_loop = in_loop                # ids of forward statements inside a loop
        self.reverse_loops = reverse_loops    # id of a forward loop -> its backward loop
        self.may_view = may_view              # expression -> names it may share memory with
        self.namer = namer
        self.helper = helper

    def plan(self, forward, backward, restores):
        reads = self._read_back(forward, backward, restores)
        kept, pushes = self._needed(forward, restores, reads)
        recomputed = []
        if self.reverse_loops:
            dropped, recomputed = Recomputation(forward, backward, self.reverse_loops).plan(kept)
            for marker in dropped:
                del kept[id(marker.node)]
                pushes[id(marker.forward_statement)].remove(marker)
                if not pushes[id(marker.forward_statement)]:
                    del pushes[id(marker.forward_statement)]
        # outside loops each value is saved once: a variable of its own is enough
        saved_in = {id(m.node): self.namer.fresh(m.variable + "_saved") for m in kept.values()
                    if m.undo is None and id(m.forward_statement) not in self.in_loop}
        on_tape = [m for m in kept.values() if m.undo is None and id(m.node) not in saved_in]
        tape = self.namer.fresh("tape") if on_tape else None
        snapshot = self.helper(runtime.snapshot) if any(m.saves_a_copy for m in kept.values()) else None
        saved = on_tape + [m for m in kept.values() if id(m.node) in saved_in]
        unbound = self._maybe_unbound(forward, {m.variable for m in saved
                                                if isinstance(m.target, gast.Name)})
        dicts = _dict_names(forward)
        for marker in kept.values():
            marker.in_a_dict = isinstance(marker.target, gast.Subscript) and (
                marker.variable in dicts or _string_key(marker.target))
        entry_before = self.helper(runtime.entry_before) \
            if any(m.in_a_dict for m in kept.values()) else None
        return TapePlan({id(r.node) for r in restores}, kept, pushes, recomputed, saved_in,
                        tape, snapshot, unbound, entry_before)

    def _read_back(self, forward, backward, restores):
        """The names whose values the backward pass reads."""
        reads = loads(backward)
        # restoring an entry `r[k] = saved` reads the index `k`: it must be restored as well
        for marker in restores:
            if isinstance(marker.target, gast.Subscript) and marker.variable in reads:
                reads |= loads(marker.target.slice)
        return reads | self._bases_seen_through_views(forward, reads)

    def _bases_seen_through_views(self, forward, reads):
        """A view read by the backward pass sees in-place writes into its base: restoring
        the base's entries restores the view. The bases written in place behind `reads`."""
        written = {s.targets[0].value.id for s in walk_statements(forward)
                   if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript)}
        if not written:
            return set()
        views = {}
        for s in walk_statements(forward):
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
                views[s.targets[0].id] = views.get(s.targets[0].id, ()) + self.may_view(s.value)
            elif isinstance(s, gast.Assign) and isinstance(s.value, gast.Call):
                # `y, backward = fwd_g(c, x)`: the backward pass of a callee that ran once
                # holds its arguments, and reads them when it runs
                held = tuple(a.id for a in s.value.args if isinstance(a, gast.Name))
                for target in walk(s.targets[0]):
                    if isinstance(target, gast.Name):
                        views[target.id] = views.get(target.id, ()) + held
        found = set()
        pending = [v for v in reads if views.get(v)]
        visited = set(pending)
        while pending:
            for base in views[pending.pop()]:
                if base in written:
                    found.add(base)
                if views.get(base) and base not in visited:
                    visited.add(base)
                    pending.append(base)
        return found

    def _needed(self, forward, restores, reads):
        """(kept, pushes): the restores the backward pass needs, and those of them that save
        a value overwritten by their statement, by forward statement."""
        questions = {}
        for marker in restores:
            questions.setdefault(id(marker.forward_statement), set()).add(marker.variable)
        bound_before = possibly_defined(forward, set(self.params), questions)
        kept, pushes = {}, {}
        # undoing a list's change restores it for every name bound to that list
        lists_read = reads | _other_names_read(forward, reads)
        for marker in restores:
            if marker.variable not in (lists_read if marker.undo is not None else reads):
                continue
            if marker.undo is not None:
                kept[id(marker.node)] = marker
                continue
            writes_in_place = isinstance(marker.target, gast.Subscript)
            if writes_in_place or (id(marker.forward_statement), marker.variable) in bound_before:
                kept[id(marker.node)] = marker
                pushes.setdefault(id(marker.forward_statement), []).append(marker)
        return kept, pushes

    def _maybe_unbound(self, forward, pushed):
        """Saved names that may be unbound when first saved (the first iteration of a loop, a
        branch after one that returned early)."""
        defined = set(self.params)
        undefined = []
        for statement in forward:
            inner = set(assigned_names([statement]))
            if isinstance(statement, (gast.If, gast.While, gast.For)):
                for variable in sorted(inner & pushed - defined):
                    if variable not in undefined:
                        undefined.append(variable)
            else:
                defined |= inner
        return undefined


def write_tape(plan, forward, backward):
    """Carry out `plan`: (forward with its saves, backward with its restores)."""
    for loop, statements in plan.recomputed:
        loop.body = statements + loop.body
    # the backward pass pops a statement's values in the order its restores were made
    forward = rewrite_blocks(forward, lambda s: [
        _push(plan, m) for m in reversed(plan.pushes.get(id(s), []))] + [s])
    backward = _strip(backward, plan.markers, {k: _pop(plan, m) for k, m in plan.kept.items()})
    return _start(plan) + forward, backward


def _push(plan, marker):
    value = build.name(marker.variable)
    if marker.in_a_dict:
        # `d["h"] = v` may add the key: there is no earlier entry to save then
        value = build.quote_expr(f"{plan.entry_before}({marker.variable}, {{k}})",
                                 k=build.to_index_value(marker.target.slice))
    elif marker.saves_a_copy:
        read = build.clone(marker.target)
        read.ctx = gast.Load()
        value = build.quote_expr(f"{plan.snapshot}({{v}})", v=read)
    if id(marker.node) in plan.saved_in:
        return build.assign(plan.saved_in[id(marker.node)], value)
    return build.quote(f"{plan.tape}.append({{v}})", v=value)[0]


def _pop(plan, marker):
    if marker.undo is not None:
        return marker.undo
    target = build.clone(marker.target)
    target.ctx = gast.Store()
    if id(marker.node) in plan.saved_in:
        return build.assign(target, build.name(plan.saved_in[id(marker.node)]))
    return build.assign(target, build.quote_expr(f"{plan.tape}.pop()"))


def _dict_names(forward):
    """Names bound to a dict display or `dict(...)` somewhere in the forward pass."""
    return {s.targets[0].id for s in walk_statements(forward)
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
            and (isinstance(s.value, gast.Dict) or (isinstance(s.value, gast.Call)
                 and isinstance(s.value.func, gast.Name) and s.value.func.id == "dict"))}


def _string_key(target):
    return isinstance(target.slice, gast.Constant) and isinstance(target.slice.value, str)


def _start(plan):
    """`tape = []`, and `None` for the names pushed before they are bound."""
    start = build.quote(f"{plan.tape} = []") if plan.tape else []
    unbound = plan.unbound
    if len(unbound) == 1:
        start.append(build.assign(build.name(unbound[0], store=True), gast.Constant(value=None, kind=None)))
    elif unbound:
        start.append(build.assign(
            gast.Tuple(elts=[build.name(v, store=True) for v in unbound], ctx=gast.Store()),
            gast.Tuple(elts=[gast.Constant(value=None, kind=None)] * len(unbound), ctx=gast.Load())))
    return start


def _strip(statements, markers, replacements):
    """Replace kept restore markers with pops; drop the others."""
    out = []
    for statement in statements:
        if id(statement) in markers:
            if id(statement) in replacements:
                out.append(replacements[id(statement)])
            continue
        for block in ("body", "orelse"):
            if getattr(statement, block, None):
                inner = _strip(getattr(statement, block), markers, replacements)
                setattr(statement, block, inner or [gast.Pass()])
        out.append(statement)
    return out


def _other_names_read(forward, reads):
    """Names bound to the very object a name in `reads` holds (`xs = _list`, from a lowered
    comprehension): undoing `xs.insert(0, v)` restores what the backward pass reads as
    `_list` too, so those names count as read."""
    same = {}
    for s in walk_statements(forward):
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
                and isinstance(s.value, gast.Name):
            same.setdefault(s.targets[0].id, set()).add(s.value.id)
            same.setdefault(s.value.id, set()).add(s.targets[0].id)
    found, pending = set(), [n for n in reads if n in same]
    while pending:
        for other in same[pending.pop()]:
            if other not in reads and other not in found:
                found.add(other)
                pending.append(other)
    return found
