"""AccumulateInPlace: inside a backward loop, `dx = dx + scatter(x, i, g)` becomes
`add_at(dx, i, g)` when `dx` is a fresh array nobody else holds, so a loop over the rows of
`x` costs O(len(x)) instead of O(len(x)**2). Where the loop visits each index once (`for t in
range(n)[::-1]`) and a step adds into `dx[t]` once, the addition onto the zero there is a
store: `dx[t] = g` (a third of the cost of `+=` on an entry)."""
import builtins

import gast

from .. import build, runtime
from ..traversal import binding_counts, stores, walk, walk_statements


def _is_scatter_accumulation(statement, scatter_name):
    """`dx = dx + scatter(x, index, g)` -> (dx, x, index, g), else None."""
    if not (isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)):
        return None
    value = statement.value
    target = statement.targets[0].id
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add)
            and isinstance(value.left, gast.Name) and value.left.id == target
            and isinstance(value.right, gast.Call) and isinstance(value.right.func, gast.Name)
            and value.right.func.id == scatter_name and len(value.right.args) == 3):
        return None
    x, index, g = value.right.args
    return target, x, index, g


def _mentions(node, name):
    return any(isinstance(n, gast.Name) and n.id == name for n in walk(node))


class AccumulateInPlace:
    """Rewrite scatter accumulations in loops whose adjoint was just materialized with zeros."""

    def __init__(self, names, entry_is_number=None, resolve=None, is_container=None):
        self.names = names          # name -> runtime object, as bound in the generated code
        # (x, index) -> is `x[index]` a real number (analysis.shapes)? Then `dx[index] += g`
        self.entry_is_number = entry_is_number or (lambda x, index: False)
        # a name -> does it always hold a dict, list or tuple (analysis.shapes)? Then its
        # adjoint of zeros holds no entry (None) until one is added: the first, a store
        self.is_container = is_container or (lambda name: False)
        self.resolve = resolve      # a global name -> its object; None: no loop is known to
        #                             visit each index once

    def run(self, function):
        scatter = self._name_of(runtime.scatter)
        if scatter is None or not any(_is_scatter_accumulation(s, scatter)
                                      for s in walk_statements(function.body)):
            return function
        self.taken = set(self.names) | {n.id for n in walk(function) if isinstance(n, gast.Name)}
        zeros = self._name_of(runtime.zeros_like) or _free_name("zeros_like", self.taken)
        self.add_at, self.copied, self.copies = None, False, set()
        self.ranges = _bound_once_to_a_range(function, self.resolve)
        function.body = self.block(function.body, scatter, zeros)
        if self.add_at is not None:
            self.names[self.add_at] = runtime.add_at
        if self.copied:
            self.names.setdefault(zeros, runtime.zeros_like)     # an owned copy's zeros
        return function

    def _name_of(self, obj):
        return next((k for k, v in self.names.items() if v is obj), None)

    def block(self, statements, scatter, zeros):
        out = []
        for position, statement in enumerate(statements):
            for field in ("body", "orelse"):
                if getattr(statement, field, None):
                    setattr(statement, field, self.block(getattr(statement, field), scatter, zeros))
            if isinstance(statement, gast.For):
                fresh = self._fresh_before(statements[:position], zeros)
                self.entries, self.container_entries, owned = set(), set(), {}
                statement.body = _merged([self.rewrite(s, scatter, fresh, statement.body, owned)
                                          for s in statement.body], self.entries)
                # an adjoint that holds more than zeros (`dx = unreduce(...)` of a later
                # `np.sum(x)`), made an array of its own once, before the loop: O(len(x))
                # once, where `dx = dx + scatter(x, t, g)` cost it every step
                copies = [gast.copy_location(build.assign(target, gast.BinOp(
                    left=build.name(target), op=gast.Add(), right=gast.Call(
                        func=build.name(zeros), args=[build.name(x)], keywords=[]))), statement)
                    for target, x in owned.items()]
                self.copies.update(id(c) for c in copies)
                out += copies
                self.copied = self.copied or bool(owned)
                if _visits_each_index_once(statement, self.ranges):
                    statement.body = _first_adds_stored(
                        statement, self.entries | self.container_entries, fresh)
                out += self._hoisted_copies(statement, fresh)
            out.append(statement)
        return out

    def _hoisted_copies(self, loop, fresh):
        """The owned copies an inner loop left at the top of `loop`'s body (`dx = dx +
        zeros_like(x)`) where nothing else in the body reads or binds `dx` but updates in
        place, and nothing binds `x`: one copy before `loop` does, not one a step (none where
        `dx` is fresh zeros already)."""
        hoisted, body = [], []
        for statement in loop.body:
            target = statement.targets[0].id if id(statement) in self.copies else None
            if target is not None and self._updated_in_place_only(loop, target, statement):
                if target not in fresh:
                    hoisted.append(statement)
                continue
            body.append(statement)
        loop.body = body or [gast.Pass()]
        return hoisted

    def _updated_in_place_only(self, loop, target, copy):
        x = copy.value.right.args[0].id
        allowed = {id(n) for n in walk(copy) if isinstance(n, gast.Name)}
        adds = {self.add_at} | {k for k, v in self.names.items() if v is runtime.add_at}
        for node in walk(loop):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
                    node.func.id in adds and node.args:
                allowed.add(id(node.args[0]))
            elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Subscript):
                allowed.add(id(node.target.value))
        return x not in stores(loop.body) and x != getattr(loop.target, "id", None) and all(
            id(n) in allowed for n in walk(loop) if isinstance(n, gast.Name) and n.id == target)

    @staticmethod
    def _fresh_before(previous, zeros):
        """{adjoint: the name of what its zeros are like (None: not a name)} for the adjoints
        assigned `zeros_like(...)` just before the loop and not read since."""
        fresh = {}
        for statement in reversed(previous):
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name) \
                    and isinstance(statement.value, gast.Call) \
                    and isinstance(statement.value.func, gast.Name) and statement.value.func.id == zeros:
                like = statement.value.args[0] if statement.value.args else None
                fresh.setdefault(statement.targets[0].id,
                                 like.id if isinstance(like, gast.Name) else None)
                continue
            if isinstance(statement, gast.Assign) and isinstance(statement.value, gast.Constant):
                continue                # `dt = 0.0`: the zero of a number reads nothing
            break
        return fresh

    def rewrite(self, statement, scatter, fresh, body, owned):
        """`statement` of the loop's `body` as an update in place where it accumulates into
        an adjoint of zeros made just before the loop (`fresh`), or into one the loop may own
        (added to `owned`: adjoint -> the primal its copy is shaped like)."""
        found = _is_scatter_accumulation(statement, scatter)
        if found is None:
            return statement
        target, x, index, g = found
        # the other statements may only accumulate into it the same way (`heating[t]` read
        # twice a step): those become add_at too, and nothing reads it in between
        others = [s for s in body if s is not statement and _mentions(s, target)]
        if any((_is_scatter_accumulation(s, scatter) or (None,))[0] != target for s in others):
            return statement
        if target not in fresh:
            if not isinstance(x, gast.Name) or owned.get(target, x.id) != x.id or \
                    x.id in stores(body):
                return statement
            owned[target] = x.id
        if self.entry_is_number(x, index):
            # one position of an array, a number added: what add_at would do, without the call
            update = gast.AugAssign(target=gast.Subscript(value=build.name(target), slice=index,
                                                          ctx=gast.Store()), op=gast.Add(), value=g)
            self.entries.add(id(update))
            return update
        if self.add_at is None:
            self.add_at = _free_name("add_at", self.taken)
        update = gast.Expr(value=gast.Call(func=build.name(self.add_at),
                                           args=[build.name(target), index, g], keywords=[]))
        if target in fresh and isinstance(x, gast.Name) and fresh[target] == x.id and \
                self.is_container(x.id):
            self.container_entries.add(id(update))     # into a container adjoint of zeros
        return update


def _free_name(name, taken):
    while name in taken:
        name += "_"
    return name


def _merged(body, entries):
    """`dx[t] += a; ...; dx[t] += b` (both among `entries`, the number updates made above) as
    `...; dx[t] += a + b`, where nothing in between mentions `dx` or a name of `a`, and `t` is
    a name or a constant nothing in between rebinds: one read and one store of the entry a
    step instead of two (`heating[t]` read twice a step)."""
    body = list(body)
    k = 0
    while k < len(body):
        later = _next_update(body, k, entries) if id(body[k]) in entries else None
        if later is None:
            k += 1
            continue
        body[later].value = gast.BinOp(left=body[k].value, op=gast.Add(), right=body[later].value)
        del body[k]
    return body


def _next_update(body, k, entries):
    """The position of the next update of the entry `body[k]` adds into, if it can take
    `body[k]`'s addend too; else None."""
    first = body[k]
    array, index = first.target.value.id, first.target.slice
    if not isinstance(index, (gast.Name, gast.Constant)):
        return None
    held = {n.id for n in walk(first.value) if isinstance(n, gast.Name)}
    for j in range(k + 1, len(body)):
        statement = body[j]
        if id(statement) in entries and statement.target.value.id == array and \
                gast.dump(statement.target.slice) == gast.dump(index):
            return j
        names = [n for n in walk(statement) if isinstance(n, gast.Name)]
        if any(n.id == array or n.id in held or isinstance(index, gast.Name) and
               n.id == index.id and not isinstance(n.ctx, gast.Load) for n in names):
            return None
    return None


def _bound_once_to_a_range(function, resolve):
    """The names `function` binds once, to `range(...)` (the builtin) of indexes that never
    name one entry twice (_distinct_indexes), and never otherwise."""
    if resolve is None:
        return frozenset()
    try:
        if resolve("range") is not builtins.range:
            return frozenset()
    except LookupError:
        return frozenset()
    bindings = binding_counts(function)
    return frozenset(
        s.targets[0].id for s in walk(function) if isinstance(s, gast.Assign)
        and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
        and bindings[s.targets[0].id] == 1 and _is_range_call(s.value)
        and _distinct_indexes(s.value))


def _is_range_call(node):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
        node.func.id == "range" and not node.keywords


def _distinct_indexes(call):
    """Are the values of the `range(...)` call, as indexes, sure to name each entry once? Not
    where they may be negative and not (`range(-n, n)`: -1 and n - 1 name one entry): the
    range must start at 0 or at a non-negative constant and step up by a constant."""
    args = call.args
    if len(args) == 1:
        return True
    start, step = args[0], args[2] if len(args) == 3 else None
    return _int_constant(start) and start.value >= 0 and \
        (step is None or _int_constant(step) and step.value > 0)


def _int_constant(node):
    return isinstance(node, gast.Constant) and type(node.value) is int


def _visits_each_index_once(loop, ranges):
    """Does `for t in ...` bind its name to each value once: a range, reversed or not, and
    nothing in the body binds `t` again?"""
    if not isinstance(loop.target, gast.Name):
        return False
    steps = loop.iter
    if isinstance(steps, gast.Subscript) and isinstance(steps.slice, gast.Slice) and \
            steps.slice.lower is None and steps.slice.upper is None and \
            _is_minus_one(steps.slice.step):
        steps = steps.value                     # `steps[::-1]`: the same values, backwards
    if not (isinstance(steps, gast.Name) and steps.id in ranges or
            _is_range_call(steps) and _distinct_indexes(steps)):
        return False
    return loop.target.id not in stores(loop.body)


def _is_minus_one(node):
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        node, sign = node.operand, -1
    else:
        sign = 1
    return isinstance(node, gast.Constant) and type(node.value) is int and sign * node.value == -1


def _first_adds_stored(loop, entries, zeros):
    """`dx[t] += g` (a number into an array) and `add_at(dx, t, g)` (an entry into a container
    adjoint, which holds None there) as `dx[t] = g`, where it is the one statement of the body
    that mentions `dx` (an adjoint of zeros made just before the loop: in `zeros`) and `t` the
    loop's name: each entry gets one addition, onto its zero."""
    def stored(statement):
        if id(statement) not in entries:
            return statement
        if isinstance(statement, gast.Expr):            # add_at(dx, t, g)
            array, index, value = statement.value.args
        else:                                           # dx[t] += g
            array, index, value = statement.target.value, statement.target.slice, statement.value
        if not isinstance(index, gast.Name) or index.id != loop.target.id or \
                array.id not in zeros or _mentions(value, array.id) or \
                any(_mentions(s, array.id) for s in loop.body if s is not statement):
            return statement
        target = gast.Subscript(value=build.name(array.id), slice=build.name(loop.target.id),
                                ctx=gast.Store())
        return gast.copy_location(gast.Assign(targets=[target], value=value,
                                              type_comment=None), statement)
    return [stored(s) for s in loop.body]
