"""What the forward pass records for the backward pass to replay: each active `if` keeps
its choice in a `cond` variable, each `while` its trip count, each `for` the sequence it
walked (`steps`), and a loop that breaks its trip count too."""
from dataclasses import dataclass

import gast

from ... import build
from ...analysis.activity import assigned_names
from ...analysis.primitives import classify
from ...passes.lower_for_loops import rebound_in
from ...passes.normal_form import length_check
from ...traversal import walk, walk_statements
from .blocks import appended, inserted, popped


def is_active(statement, active):
    """Does `statement` (or one inside it) compute an active value?"""
    if isinstance(statement, gast.Assign):
        target = statement.targets[0]
        variable = target.id if isinstance(target, gast.Name) else target.value.id
        # `xs.pop()` of an active list moves the adjoints of later entries, value read or not
        return variable in active or popped(statement) in active
    if isinstance(statement, gast.For) and any(
            isinstance(n, gast.Name) and n.id in active for n in walk(statement.target)):
        return True          # `for v in x: pass`, then `v` read: its last binding is x[-1]
    if isinstance(statement, (gast.If, gast.While, gast.For)):
        return any(is_active(s, active) for s in walk_statements(statement.body + statement.orelse))
    grown = appended(statement) or inserted(statement)
    return grown is not None and grown[0] in active


def statements_in_loops(body, inside=False, found=None):
    """The ids of the statements of `body` that run inside a loop."""
    found = set() if found is None else found
    for statement in body:
        if inside:
            found.add(id(statement))
        loop = isinstance(statement, (gast.For, gast.While))
        for block in ("body", "orelse"):
            statements_in_loops(getattr(statement, block, []) or [], inside or loop, found)
    return found


def _has_own_break(body):
    """Does `body` break out of its own loop (not out of a nested one)?"""
    for statement in body:
        if isinstance(statement, gast.Break):
            return True
        if isinstance(statement, gast.If) and (_has_own_break(statement.body)
                                               or _has_own_break(statement.orelse)):
            return True
    return False


@dataclass
class Recorded:
    """What the forward pass records about one `if` or loop, for the backward pass to read:
    the name of the branch taken, of the trip count, of the sequence a `for` walked."""
    cond: str = None
    counter: str = None
    steps: str = None


def _decided(test):
    """`bool(test)`: the backward pass reads the branch taken again, and a lazy (Dask)
    condition would be computed again each time it is read."""
    if isinstance(test, gast.UnaryOp) and isinstance(test.op, gast.Not):
        return test                      # already a bool
    return gast.Call(func=build.name("bool"), args=[test], keywords=[])


class Recorder:
    """Rewrites the forward pass to record branch choices and trip counts. Names it binds
    join `local_names`; statements it adds inside loops join `in_loop`; `recorded` maps the
    id of each rewritten `if` and loop to its Recorded names."""

    def __init__(self, parsed, namer, activity, local_names, in_loop, refuse_expression):
        self.parsed = parsed
        self.namer = namer
        self.activity = activity
        self.local_names = local_names
        self.in_loop = in_loop
        self.refuse_expression = refuse_expression    # refuses what an expression statement does
        self.recorded = {}

    def prepare(self, body):
        """Record branch choices and trip counts for every active `if` and loop."""
        out = []
        for statement in body:
            if isinstance(statement, gast.Expr):
                self.refuse_expression(statement)
            if not isinstance(statement, (gast.If, gast.While, gast.For)) \
                    or not is_active(statement, self.activity.active):
                out.append(statement)
                continue
            if statement.orelse and not isinstance(statement, gast.If):
                raise self.parsed.error(statement, "`else:` on a loop is not supported here",
                                        hint="move the else block after the loop")
            inside = id(statement) in self.in_loop
            if isinstance(statement, gast.If):
                out += self._prepare_if(statement, inside)
            elif isinstance(statement, gast.While):
                out += self._prepare_while(statement, inside)
            else:
                out += self._prepare_for(statement, inside)
        return out

    def _prepare_if(self, statement, inside):
        cond = self.namer.fresh("cond")
        record = gast.copy_location(build.assign(cond, _decided(statement.test)), statement)
        new = gast.copy_location(gast.If(test=build.name(cond), body=self.prepare(statement.body),
                                         orelse=self.prepare(statement.orelse)), statement)
        self.recorded[id(new)] = Recorded(cond=cond)
        self._register(record, inside)
        return [record, new]

    def _prepare_while(self, statement, inside):
        counter = self.namer.fresh("n_iter")
        start = gast.copy_location(build.assign(counter, gast.Constant(value=0, kind=None)), statement)
        step = build.quote(f"{counter} += 1")[0]
        new = gast.copy_location(gast.While(test=statement.test,
                                            body=[step] + self.prepare(statement.body),
                                            orelse=[]), statement)
        self.recorded[id(new)] = Recorded(counter=counter)
        self._register(start, inside)
        return [start, new]

    def _register(self, statement, inside):
        self.local_names.update(assigned_names([statement]))
        if inside:
            self.in_loop.add(id(statement))

    def _prepare_for(self, statement, inside):
        """Loops walk back as `for i in steps[::-1]`, where `steps` holds what was iterated."""
        out = []
        target, iterable, body = statement.target, statement.iter, statement.body
        if any(n.id in self.activity.active for n in walk(target) if isinstance(n, gast.Name)):
            target, iterable, body = self._over_indices(statement, inside, out)
        key = classify(iterable, self.parsed, self.local_names).key \
            if isinstance(iterable, gast.Call) else None
        if key is not range:
            iterable = gast.Call(func=build.name("list"), args=[iterable], keywords=[])
        steps = self.namer.fresh("steps")
        record = gast.copy_location(build.assign(steps, iterable), statement)
        self._register(record, inside)
        out.append(record)
        has_break = _has_own_break(body)
        body = self.prepare(body)
        new = gast.copy_location(gast.For(target=target, iter=build.name(steps),
                                          body=body, orelse=[], type_comment=None), statement)
        self.recorded[id(new)] = Recorded(steps=steps)
        if has_break:
            counter = self.namer.fresh("n_iter")
            start = gast.copy_location(build.assign(counter, gast.Constant(value=0, kind=None)), statement)
            self._register(start, inside)
            out.append(start)
            new.body = build.quote(f"{counter} += 1") + body
            self.recorded[id(new)].counter = counter
        self._register(new, inside)
        out.append(new)
        return out

    def _unpacked(self, target, source, statement):
        """`target = source` for a tuple of names, in normal form: one entry a statement,
        after Python's check of the length."""
        check = gast.copy_location(length_check(source, len(target.elts)), statement)
        self._register(check, True)
        code = [check]
        for position, part in enumerate(target.elts):
            if isinstance(part, gast.Starred):
                raise self.parsed.error(part, "cannot differentiate starred unpacking in a loop "
                                        "header", hint="unpack each element by index in the body")
            name = part.id if isinstance(part, gast.Name) else self.namer.fresh("_part")
            entry = gast.copy_location(build.assign(name, build.quote_expr(
                f"{source}[{position}]")), statement)
            self._register(entry, True)
            self.activity.add_flow(name, {source})
            code.append(entry)
            if not isinstance(part, gast.Name):
                code += self._unpacked(part, name, statement)
        return code

    def _over_indices(self, statement, inside, out):
        """A loop whose target is active runs over indices, so the adjoint of each element
        can flow back into the sequence it came from: (target, iterable, body), and the
        statement holding the sequence appended to `out` where one is needed."""
        target, iterable, body = statement.target, statement.iter, statement.body
        if not isinstance(target, gast.Name):              # `for W, b in params:`
            element = build.name(self.namer.fresh("_element"))
            self.activity.add_flow(element.id, {n.id for n in walk(iterable)
                                                if isinstance(n, gast.Name)})
            body = self._unpacked(target, element.id, statement) + body
            target = element
        sequence = iterable
        if not isinstance(iterable, gast.Name) or iterable.id in rebound_in(body):
            sequence = build.name(self.namer.fresh("_seq"))
            hold = gast.copy_location(build.assign(sequence.id, iterable), statement)
            self._register(hold, inside)
            out.append(hold)
        index = self.namer.fresh("_i")
        element = gast.copy_location(build.assign(target.id, build.quote_expr(
            f"{{s}}[{index}]", s=sequence)), statement)
        self._register(element, True)
        self.local_names.add(index)
        return (build.name(index, store=True), build.quote_expr("range(len({s}))", s=sequence),
                [element] + body)
