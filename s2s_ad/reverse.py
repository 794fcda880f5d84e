"""Reverse mode: run the primal forward, then walk it backwards accumulating adjoints.

The forward pass is the user's normalized code, plus a `tape` (a plain list) that saves a
value just before it is overwritten, but only when the backward pass reads that value.
The backward pass visits statements in reverse; after a statement's adjoint it pops the
saved value back, so every adjoint sees the primal values its statement saw. Branch choices
are kept in `cond` variables and loop trip counts in counters, which go on the same tape
when an enclosing loop would overwrite them.

Adjoints are tracked statically as zero or non-zero: the first contribution assigns
(`dx = ...`), later ones add (`dx = dx + ...`), and zeros are only materialized
(`dx = zeros_like(x)`) where control flow joins paths that disagree.
"""
import io
import tokenize

import gast

from . import build, calls, rules
from .analysis import call_results
from .analysis.aliasing import VIEW_ATTRIBUTES, VIEW_FUNCTIONS, VIEW_METHODS, index_may_view
from .passes.refuse_complex import refuse_complex_constants
from .analysis.activity import Activity, assigned_names, mutated_names, target_names
from .analysis.primitives import classify, passes_no_derivative
from .generated_globals import GlobalNames
from .errors import NoDerivativeRule
from .instantiate import BINDING_HINT, BindingError, bind, instantiate
from .optimize.dead_stores import DeadStores
from .passes.refuse_misread_operations import refuse_misread_operations
from .passes.refuse_unsupported import refuse_writes_into_arguments, write_through_view
from .passes.lower_for_loops import rebound_in
from . import runtime
from .traversal import identifiers, loads, walk, walk_statements
from .modes.reverse.blocks import (definitely_bound, in_order, insert_after, owners, reachable,
                                   rebound_names, written_in_place)
from .modes.reverse.tape import Restore, TapePlanner, is_marker, write_tape


_VIEW_KEYS = rules.CallableSet([rules.method(n) for n in VIEW_METHODS | {"flatten_view"}] +
                               [rules.attribute(n) for n in VIEW_ATTRIBUTES])


# calls that may return their argument itself
_IDENTITY_KEYS = rules.CallableSet([rules.method("view"), rules.method("squeeze")])


def _drop_unread_values(forward, read_later, pure):
    """Forward assignments nobody reads (your dead code, saves no restore needs), when
    computing them has no effect of its own; `read_later` holds what the backward pass and
    the return read."""
    while True:
        read = read_later | loads(forward)
        removed = False

        def block(statements):
            nonlocal removed
            out = []
            for statement in statements:
                for field in ("body", "orelse"):
                    if getattr(statement, field, None):
                        setattr(statement, field, block(getattr(statement, field)) or [gast.Pass()])
                if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name) \
                        and statement.targets[0].id not in read and pure(statement.value):
                    removed = True
                    continue
                out.append(statement)
            return out

        forward = block(forward)
        if not removed:
            return forward


def _popped(statement):
    """The list name for a statement `v = xs.pop()`, else None."""
    value = statement.value
    if isinstance(statement.targets[0], gast.Name) and isinstance(value, gast.Call) \
            and isinstance(value.func, gast.Attribute) and value.func.attr == "pop" \
            and isinstance(value.func.value, gast.Name) and not value.args and not value.keywords:
        return value.func.value.id
    return None


def _appended(statement):
    """(list name, value) for a statement `xs.append(value)`, else None."""
    if not isinstance(statement, gast.Expr) or not isinstance(statement.value, gast.Call):
        return None
    call = statement.value
    if isinstance(call.func, gast.Attribute) and call.func.attr == "append" and \
            isinstance(call.func.value, gast.Name) and len(call.args) == 1 and not call.keywords:
        return call.func.value.id, call.args[0]
    return None


class ReverseMode(GlobalNames):
    """Builds `vjp_<f>(*params, seed=None) -> (value, gradients)` from normal-form code."""

    def __init__(self, parsed, body, params, wrt, namer, globals_, callee=None):
        self.parsed = parsed
        self.body = body
        self.params = params
        self.wrt = wrt
        self.namer = namer
        self.globals = globals_           # name -> object the generated code needs
        self.callee = callee              # hook for calls into user functions
        self.local_names = set(params) | set(assigned_names(body))
        self.fresh_temporaries = self._fresh_temporaries(body)
        self.adjoints = {}
        self.nonzero = set()              # adjoint names that currently hold a value
        self.restores = []
        self.loop_depth = 0
        self.in_loop = set()              # ids of statements inside a loop
        self.tape = None
        self.reverse_loops = {}           # id of a forward loop -> its backward loop
        self.materialized = set()         # variables whose adjoint is set to zeros like them
        self.function_name = None
        self._range_counters = None       # `for i in range(...)` variables bound nowhere else

    # names ------------------------------------------------------------------------------
    def adjoint_name(self, variable):
        if variable not in self.adjoints:
            self.adjoints[variable] = self.namer.adjoint(variable)
        return self.adjoints[variable]

    # entry point --------------------------------------------------------------------------
    def build(self, function_name):
        self.function_name = function_name
        body = list(self.body)
        if not body or not isinstance(body[-1], gast.Return):
            raise self.parsed.error(self.parsed.node, f"{self.parsed.name} has no return value",
                                    hint="return the value to differentiate")
        result = body[-1].value
        body = body[:-1]
        outputs = sorted(loads(result) & self.local_names)
        self.activity = Activity(body, self.parsed, self.local_names, self.wrt, outputs)
        refuse_writes_into_arguments(self.parsed, body, self.local_names, self.activity.varied,
                                     handled=lambda s: _appended(s) is not None)
        refuse_complex_constants(self.parsed, body, self.activity.active)
        refuse_misread_operations(self.parsed, body, self.local_names, self.activity.varied)
        if self.callee is not None:
            body = calls.guard_argument_mutation(self, body, self.activity.varied)
            self.body = body + self.body[-1:]
        body = self.refuse_stale_views(body)
        self.body = body + self.body[-1:]
        self._mark_loops(body)
        copies = self.copy_written_arguments()
        forward = self.prepare(body)

        seed = self.namer.fresh("seed")
        out_name = self._result_name(result, forward)
        backward = []
        if out_name in self.activity.active or out_name in self.wrt:
            d_out = self.adjoint_name(out_name)
            backward += build.quote(f"{d_out} = {self.helper(runtime.seed_like)}"
                                    f"({out_name}, {seed}, {self.parsed.name!r})")
            self.nonzero.add(d_out)
        else:
            backward += build.quote(f"{self.helper(runtime.seed_like)}"
                                    f"({out_name}, {seed}, {self.parsed.name!r})")
        backward += self.backward_block(forward)
        forward = copies + forward
        planner = TapePlanner(self.params, self.in_loop, self.reverse_loops, self._may_view,
                              self.namer, self.helper)
        forward, backward = write_tape(planner.plan(forward, backward, self.restores), forward, backward)
        # `dy = zeros_like(y)` may run where the forward never bound `y` (an early return)
        unbound = sorted(self.materialized - definitely_bound(forward, set(self.params)))
        forward = [build.assign(v, gast.Constant(value=None, kind=None)) for v in unbound] + forward
        if self._shares_memory(out_name, forward, written_in_place(backward)):
            # the backward pass writes earlier entries back into the output's array: keep a copy
            value = self.namer.fresh("value")
            forward.append(build.assign(value, build.quote_expr(
                f"{self.helper(runtime.snapshot)}({out_name})")))
            out_name = value
        elif out_name in assigned_names(backward):
            # ... or restores earlier values of the output: keep the final one
            value = self.namer.fresh("value")
            forward.append(build.assign(value, build.name(out_name)))
            out_name = value
        returned = {self.adjoints[p] for p in self.wrt if self.adjoints.get(p) in self.nonzero} | {out_name}
        dead_stores = DeadStores()
        backward = dead_stores.run(backward, live_after=returned)
        forward = _drop_unread_values(forward, dead_stores.read | {out_name}, self._pure)

        # a gradient takes the type and shape of the argument, not of what the name holds last
        rebound = set(rebound_names(self.body)) & set(self.wrt)
        arguments = {p: self.namer.fresh(p + "_arg") for p in self.wrt if p in rebound}
        forward = [build.assign(arguments[p], build.name(p)) for p in self.wrt if p in arguments] \
            + forward
        gradients = []
        for param in self.wrt:
            d_param = self.adjoints.get(param)
            value = build.name(d_param) if d_param in self.nonzero else gast.Constant(value=0.0, kind=None)
            gradients.append(build.quote_expr(
                f"{self.helper(runtime.gradient_like)}({{g}}, {arguments.get(param, param)})", g=value))
        grads = gradients[0] if len(gradients) == 1 else gast.Tuple(elts=gradients, ctx=gast.Load())
        ret = gast.Return(value=gast.Tuple(elts=[build.name(out_name), grads], ctx=gast.Load()))

        args = gast.arguments(
            args=[build.name(p, store=False) for p in self.params] + [build.name(seed)],
            posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
            defaults=[gast.Constant(value=None, kind=None)])
        for a in args.args:
            a.ctx = gast.Param()
        docstring = gast.Expr(value=gast.Constant(
            value=f"Value of {self.parsed.name} and its gradient with respect to "
                  f"{', '.join(self.wrt)}.", kind=None))
        function = gast.FunctionDef(
            name=function_name, args=args, body=[docstring] + forward + backward + [ret],
            decorator_list=[], returns=None, type_comment=None, type_params=[])
        return function

    def copy_written_arguments(self):
        """Arguments written in place are copied first: the caller's arrays never change."""
        written = []
        for statement in walk_statements(self.body):
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Subscript):
                variable = statement.targets[0].value.id
                self.refuse_write_through_view(variable, statement)
                if variable in self.params and variable not in written:
                    written.append(variable)
        snapshot = self.helper(runtime.snapshot) if written else None
        return [build.assign(v, build.quote_expr(f"{snapshot}({v})")) for v in written]

    def _may_view(self, value):
        """The names of the arrays `value` (a normal-form expression) may share memory with."""
        primitive = classify(value, self.parsed, self.local_names)
        key = primitive.key
        if primitive.kind == "copy" or (key == rules.SUBSCRIPT and index_may_view(value.slice)) \
                or key in _VIEW_KEYS or getattr(key, "__name__", None) in VIEW_FUNCTIONS:
            base = primitive.args[0] if primitive.args else None
            if not isinstance(base, gast.Name):
                return ()
            if primitive.kind == "copy" and base.id in self.fresh_temporaries:
                return ()            # `_mul = y * 2; y = _mul`: nothing else holds `_mul`
            return (base.id,)
        if isinstance(value, gast.Call):
            returned = call_results.result_arguments(value, self.parsed, self.local_names) or ()
            return tuple(dict.fromkeys(a.id for a in returned if isinstance(a, gast.Name)
                                       and a.id in self.local_names))
        return ()

    def _shares_memory(self, name, forward, written):
        """May the array `name` holds after `forward` share memory with one in `written`?"""
        if not written:
            return False
        linked = {}                       # name -> names it views, holds, or that view it
        for s in walk_statements(forward):
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
                held = s.value.elts if isinstance(s.value, (gast.Tuple, gast.List)) else \
                    s.value.values if isinstance(s.value, gast.Dict) else []
                for base in self._may_view(s.value) + tuple(
                        e.id for e in held if isinstance(e, gast.Name)):
                    linked.setdefault(s.targets[0].id, set()).add(base)
                    linked.setdefault(base, set()).add(s.targets[0].id)
        return bool(reachable(linked, name) & written)

    def _fresh_temporaries(self, body):
        """Temporaries of the normal form bound once to a new array (`_mul = y * 2`)."""
        written = set(identifiers(self.parsed.node))
        definitions = {}
        for statement in walk_statements(body):
            names = target_names(statement.target) if isinstance(statement, gast.For) else [] \
                if isinstance(statement, (gast.If, gast.While)) else assigned_names([statement])
            for variable in names:
                definitions.setdefault(variable, []).append(statement)
        fresh = set()
        for variable, statements in definitions.items():
            statement = statements[0]
            if variable in written or len(statements) != 1 or not isinstance(statement, gast.Assign) \
                    or not isinstance(statement.targets[0], gast.Name):
                continue
            value = statement.value
            if isinstance(value, (gast.BinOp, gast.UnaryOp)):
                fresh.add(variable)
                continue
            key = classify(value, self.parsed, self.local_names).key
            # a call with a rule of ours makes a new array unless it is a view; a user
            # function might return its argument itself
            if isinstance(value, gast.Call) and rules.adjoint_rule(key) is not None and not (
                    key in _VIEW_KEYS or key in _IDENTITY_KEYS
                    or getattr(key, "__name__", None) in VIEW_FUNCTIONS):
                fresh.add(variable)
        return fresh

    def _pure(self, value):
        """Computing `value` has no effect besides its result (and it is cheap to check)."""
        if isinstance(value, (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Compare,
                              gast.Subscript, gast.Attribute)):
            return True
        if isinstance(value, gast.Call):
            key = classify(value, self.parsed, self.local_names).key
            return rules.adjoint_rule(key) is not None and not isinstance(key, rules.method) \
                and getattr(key, "__module__", "") != runtime.__name__
        return False

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
        views = {}            # view name -> (base, position, loops, statement)
        for position, (statement, loops) in enumerate(order):
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name):
                for base in self._may_view(statement.value):
                    views.setdefault(statement.targets[0].id, []).append((base, position, loops, statement))
        # a view of a view (`_item = x[2]; v = pick(_item)`) is a view of the first base too
        direct = {view: {b[0] for b in bindings} for view, bindings in views.items()}
        for view, bindings in views.items():
            for base, defined, view_loops, definition in list(bindings):
                for further in reachable(direct, base) - {base, view}:
                    bindings.append((further, defined, view_loops, definition))
        for view, (base, defined, view_loops, definition) in (
                (view, binding) for view, bindings in views.items() for binding in bindings):
            # a view bound directly in a loop body is bound afresh before each read that follows
            fresh_each_iteration = bool(view_loops) and owner[id(definition)] == view_loops[-1]
            for written, position, loops, write in writes:
                if written != base or position < defined:
                    continue
                shared_loops = set(loops) & set(view_loops)
                for later, (statement, use_loops) in enumerate(order):
                    if later == position or isinstance(statement, (gast.If, gast.While, gast.For)) \
                            or view not in loads(statement):
                        continue
                    in_next_iteration = shared_loops and set(use_loops) & shared_loops and not (
                        fresh_each_iteration and defined < later)
                    if not (later > position or in_next_iteration):
                        continue
                    if _may_be_a_number(definition.value) and id(definition) not in checks:
                        # `v = y[i]` is a copy when y is 1-D: check when it runs
                        line, col = self.parsed.location(statement)
                        checks[id(definition)] = build.quote(
                            f"{self.helper(runtime.check_not_view)}({view}, "
                            f"{self.parsed.describe_expression(definition.value)!r}, "
                            f"{self.parsed.location(write)[0]}, "
                            f"{self.parsed.filename + f':{line}:{col + 1}'!r})")[0]
                        continue
                    if id(definition) in checks:
                        continue
                    raise self.parsed.error(statement, *self._stale_view(view, base, definition, write))
        return insert_after(body, checks) if checks else body

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

    def refuse_write_through_view(self, variable, write):
        for statement in walk_statements(self.body):
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
            if self._may_view(statement.value):
                message, hint = write_through_view(self.parsed, variable, statement)
                raise self.parsed.error(write, message, hint=hint)

    def _result_name(self, result, forward):
        if isinstance(result, gast.Name):
            return result.id
        name = self.namer.fresh("_result")
        forward.append(gast.copy_location(build.assign(name, result), result))
        self.local_names.add(name)
        if isinstance(result, gast.Tuple):
            self.activity.add_flow(name, loads(result))
        return name

    def _mark_loops(self, body, inside=False):
        for statement in body:
            if inside:
                self.in_loop.add(id(statement))
            loop = isinstance(statement, (gast.For, gast.While))
            for block in ("body", "orelse"):
                self._mark_loops(getattr(statement, block, []) or [], inside or loop)

    # activity of statements ---------------------------------------------------------------
    def is_active(self, statement):
        if isinstance(statement, gast.Assign):
            target = statement.targets[0]
            variable = target.id if isinstance(target, gast.Name) else target.value.id
            return variable in self.activity.active
        if isinstance(statement, (gast.If, gast.While, gast.For)):
            return any(self.is_active(s) for s in walk_statements(statement.body + statement.orelse))
        appended = _appended(statement)
        return appended is not None and appended[0] in self.activity.active

    # forward preparation ------------------------------------------------------------------
    def prepare(self, body):
        """Record branch choices and trip counts for every active `if` and loop."""
        out = []
        for statement in body:
            if isinstance(statement, gast.Expr):
                self.check_expression_statement(statement)
            if not isinstance(statement, (gast.If, gast.While, gast.For)) or not self.is_active(statement):
                out.append(statement)
                continue
            if statement.orelse and not isinstance(statement, gast.If):
                raise self.parsed.error(statement, "`else:` on a loop is not supported here",
                                        hint="move the else block after the loop")
            inside = id(statement) in self.in_loop
            if isinstance(statement, gast.If):
                cond = self.namer.fresh("cond")
                record = gast.copy_location(build.assign(cond, statement.test), statement)
                new = gast.copy_location(gast.If(test=build.name(cond), body=self.prepare(statement.body),
                                                 orelse=self.prepare(statement.orelse)), statement)
                new.cond = cond
                self._register(record, inside)
                out += [record, new]
            elif isinstance(statement, gast.While):
                counter = self.namer.fresh("n_iter")
                start = gast.copy_location(build.assign(counter, gast.Constant(value=0, kind=None)), statement)
                step = build.quote(f"{counter} += 1")[0]
                new = gast.copy_location(gast.While(test=statement.test,
                                                    body=[step] + self.prepare(statement.body),
                                                    orelse=[]), statement)
                new.counter = counter
                self._register(start, inside)
                out += [start, new]
            else:
                out += self.prepare_for(statement, inside)
        return out

    def _register(self, statement, inside):
        self.local_names.update(assigned_names([statement]))
        if inside:
            self.in_loop.add(id(statement))

    def prepare_for(self, statement, inside):
        """Loops walk back as `for i in steps[::-1]`, where `steps` holds what was iterated.

        A loop whose target is active is rewritten to run over indices, so the adjoint of each
        element can flow back into the sequence it came from.
        """
        out = []
        target = statement.target
        iterable = statement.iter
        body = statement.body
        target_active = any(n.id in self.activity.active for n in walk(target)
                            if isinstance(n, gast.Name))
        if target_active:
            if not isinstance(target, gast.Name):
                raise self.parsed.error(target, "cannot unpack differentiable loop elements in "
                                        "the loop header", hint="loop over an index and unpack "
                                        "inside the body")
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
            body = [element] + body
            iterable = build.quote_expr("range(len({s}))", s=sequence)
            target = build.name(index, store=True)
            self.local_names.add(index)
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
        new.steps = steps
        new.counter = None
        if has_break:
            counter = self.namer.fresh("n_iter")
            start = gast.copy_location(build.assign(counter, gast.Constant(value=0, kind=None)), statement)
            self._register(start, inside)
            out.append(start)
            new.body = build.quote(f"{counter} += 1") + body
            new.counter = counter
        self._register(new, inside)
        out.append(new)
        return out

    def check_expression_statement(self, statement):
        value = statement.value
        appended = _appended(statement)
        if appended is not None and appended[0] in self.params:
            raise self.parsed.error(statement, f"cannot differentiate a function that appends to "
                                    f"its argument `{appended[0]}` (the caller's list would change)",
                                    hint=f"append to a copy: `{appended[0]} = {appended[0]}[:]` "
                                         f"first")
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute):
            owner = value.func.value
            if isinstance(owner, gast.Name) and owner.id in self.activity.varied and \
                    value.func.attr in ("extend", "insert", "update", "fill", "sort",
                                        "remove", "clear", "setdefault", "popitem"):
                owner = self.parsed.describe(owner.id)
                raise self.parsed.error(statement, f"cannot differentiate through "
                                        f"`{owner}.{value.func.attr}(...)`, which changes "
                                        f"`{owner}` in place",
                                        hint="build a new value instead of mutating one")

    # backward pass ------------------------------------------------------------------------
    def backward_block(self, statements):
        out = []
        last_line = None
        for statement in reversed(statements):
            code = self.backward_statement(statement)
            if any(not is_marker(c) for c in code) and isinstance(statement, (gast.Assign, gast.Expr)):
                line = self.parsed.location(statement)[0]
                if line != last_line and hasattr(statement, "lineno"):
                    text = _without_comment(self.parsed.source_line(statement).strip())
                    code.insert(0, build.comment(
                        f"grad of: {text}   [{self.parsed.filename.split('/')[-1]}:{line}]"))
                    last_line = line
            out += code
        return out

    def backward_statement(self, statement):
        if isinstance(statement, gast.Assign):
            popped = _popped(statement)
            if popped is not None:
                return self.adjoint_of_pop(statement, popped)
            code = []
            if self.is_active(statement):
                code += self.adjoint_of_assign(statement)
            return code + [self.restore(statement, statement.targets[0])]
        if isinstance(statement, (gast.If, gast.While, gast.For)):
            if not self.is_active(statement):
                written = written_in_place([statement])
                markers = [self.restore(statement, build.name(v))
                           for v in reversed(assigned_names([statement]))]
                for marker in self.restores[len(self.restores) - len(markers):]:
                    marker.copies = marker.variable in written
                return markers
            if isinstance(statement, gast.If):
                return self.backward_if(statement)
            return self.backward_loop(statement)
        if isinstance(statement, gast.Return):
            raise self.parsed.error(statement, "internal: return not lowered")
        appended = _appended(statement)
        if appended is not None:
            return self.adjoint_of_append(statement, *appended)
        return []

    def adjoint_of_pop(self, statement, container):
        """v = xs.pop(): dv becomes the entry of dxs that v left; the backward re-appends v."""
        variable = statement.targets[0].id
        code = []
        d_variable = self.adjoints.get(variable)
        if d_variable in self.nonzero and container in self.activity.active:
            d_container = self.adjoint_name(container)
            current = d_container if d_container in self.nonzero else "None"
            code.append(build.assign(d_container, build.quote_expr(
                f"{self.helper(runtime.put_entry)}({current}, len({container}), {d_variable})")))
            self.nonzero.add(d_container)
        self.nonzero.discard(d_variable)
        marker = Restore(statement, build.name(container))
        marker.undo = build.quote(f"{container}.append({variable})")[0]
        self.restores.append(marker)
        return code + [marker.node, self.restore(statement, statement.targets[0])]

    def adjoint_of_append(self, statement, container, value):
        """xs.append(v): v receives the last entry of dxs; the backward pass then pops xs."""
        code = []
        d_container = self.adjoints.get(container)
        if d_container in self.nonzero:
            length = build.quote_expr(f"len({container}) - 1")
            if isinstance(value, gast.Name) and value.id in self.activity.active:
                code.append(self.accumulate(value.id, build.quote_expr(
                    f"{self.helper(runtime.element)}({d_container}, {{n}}, {value.id})", n=length)))
            code.append(build.assign(d_container, build.quote_expr(
                f"{self.helper(runtime.truncate)}({d_container}, {{n}})", n=length)))
        marker = Restore(statement, build.name(container))
        marker.undo = build.quote(f"{container}.pop()")[0]
        self.restores.append(marker)
        return code + [marker.node]

    def restore(self, statement, target):
        marker = Restore(statement, target)
        self.restores.append(marker)
        return marker.node

    def materialize(self, adjoints):
        """`dx = zeros_like(x)` for adjoints that must hold a value from here on."""
        by_adjoint = {v: k for k, v in self.adjoints.items()}
        self.materialized.update(by_adjoint[a] for a in adjoints)
        zeros = self.helper(runtime.zeros_like)
        return [build.quote(f"{a} = {zeros}({by_adjoint[a]})")[0] for a in sorted(adjoints)]

    def backward_if(self, statement):
        before = set(self.nonzero)
        body = self.backward_block(statement.body)
        after_body = set(self.nonzero)
        self.nonzero = set(before)
        orelse = self.backward_block(statement.orelse)
        after_orelse = set(self.nonzero)
        joined = after_body | after_orelse
        body += self.materialize(joined - after_body)
        orelse += self.materialize(joined - after_orelse)
        self.nonzero = joined
        return [gast.If(test=build.name(statement.cond), body=body or [gast.Pass()], orelse=orelse)]

    def backward_loop(self, statement):
        before = set(self.nonzero)
        entry = set(before)
        saved_restores = len(self.restores)
        while True:
            del self.restores[saved_restores:]
            self.nonzero = set(entry)
            body = self.backward_block([s for s in statement.body if not self._is_counter(s, statement)])
            exit_ = set(self.nonzero)
            if exit_ <= entry:
                break
            entry |= exit_
        body += self.materialize(entry - exit_)
        self.nonzero = entry
        if isinstance(statement, gast.While):
            header = build.quote_expr(f"range({statement.counter})")
            target = build.name(self.namer.fresh("_"), store=True)
        else:
            # a slice, not reversed(): it is a sequence, so differentiating this code again
            # can index it (a loop whose target is active walks its sequence by index)
            steps = statement.steps
            if statement.counter:
                header = build.quote_expr(f"{steps}[:{statement.counter}][::-1]")
            else:
                header = build.quote_expr(f"{steps}[::-1]")
            target = build.clone(statement.target)
            target.ctx = gast.Store()
        loop = gast.For(target=target, iter=header, body=body or [gast.Pass()], orelse=[],
                        type_comment=None)
        self.reverse_loops[id(statement)] = loop
        return self.materialize(entry - before) + [loop]

    @staticmethod
    def _is_counter(statement, loop):
        counter = getattr(loop, "counter", None)
        return (counter is not None and isinstance(statement, gast.AugAssign)
                and statement.target.id == counter)

    # one assignment -----------------------------------------------------------------------
    def accumulate(self, variable, expression):
        d_var = self.adjoint_name(variable)
        if d_var in self.nonzero:
            value = gast.BinOp(left=build.name(d_var), op=gast.Add(), right=expression)
        else:
            value = expression
            self.nonzero.add(d_var)
        return build.assign(d_var, value)

    def adjoint_of_assign(self, statement):
        target = statement.targets[0]
        if isinstance(target, gast.Subscript):
            return self.adjoint_of_setitem(statement)
        variable = target.id
        d_var = self.adjoint_name(variable)
        if d_var not in self.nonzero:
            return []                     # nothing downstream depends on this value
        primitive = classify(statement.value, self.parsed, self.local_names)
        code = []
        incoming = d_var
        if variable in loads(statement.value):
            incoming = self.namer.fresh(d_var + "_out")
            code.append(build.assign(incoming, build.name(d_var)))
        self.nonzero.discard(d_var)
        if primitive.kind == "copy":
            source = primitive.args[0].id
            if source in self.activity.active:
                code.append(self.accumulate(source, build.name(incoming)))
            return _inline_alias(code, incoming, d_var)
        if primitive.kind == "const" or passes_no_derivative(primitive):
            return code
        if primitive.kind == "opaque":
            raise self.parsed.error(statement.value, f"cannot differentiate through a "
                                    f"{primitive.label} expression that depends on "
                                    f"{', '.join(self.wrt)}",
                                    hint="write it with explicit loops and assignments")
        return _inline_alias(code + self.apply_rule(statement, primitive, incoming), incoming, d_var)

    def apply_rule(self, statement, primitive, incoming):
        rule = rules.adjoint_rule(primitive.key) if primitive.key is not None else None
        if rule is None and self.callee is not None:
            handled = self.callee(self, statement, primitive, incoming)
            if handled is not None:
                return handled
        if rule is None:
            raise self.parsed.error(
                statement.value, f"cannot differentiate through {primitive.label} "
                f"(no adjoint registered)",
                hint="register one with @s2s_ad.adjoint, or wrap the value in "
                     "s2s_ad.stop_gradient(...) if it should be a constant",
                kind=NoDerivativeRule)
        args = list(primitive.args)
        if primitive.key == rules.SUBSCRIPT:
            args[1] = build.to_index_value(args[1])
        try:
            bindings = bind(rule, args, primitive.keywords)
        except BindingError as exc:
            raise self.parsed.error(statement.value, f"the rule for {primitive.label} does not "
                                    f"accept these arguments: {exc}",
                                    hint=BINDING_HINT) from None
        bindings[rule.result] = build.name(statement.targets[0].id)
        instance = instantiate(rule, bindings, lambda param: build.name(incoming), self.namer,
                               self.global_name, wanted=self._active_atom)
        code = []
        for step in instance.steps:
            if step[0] == "local":
                code.append(step[1])
            else:
                _, atom, expression = step
                code.append(self.accumulate(atom.id, expression))
        return _drop_unused_locals(code)

    def _active_atom(self, atom):
        return isinstance(atom, gast.Name) and atom.id in self.activity.active

    def adjoint_of_setitem(self, statement):
        """x[index] = value: the value receives dx[index]; that slot of dx is then zero."""
        target = statement.targets[0]
        container = target.value.id
        d_container = self.adjoint_name(container)
        if d_container not in self.nonzero:
            return []
        code = []
        value = statement.value
        index = build.to_index_value(target.slice)
        zero_slot = build.assign(d_container, build.quote_expr(
            f"{self.helper(runtime.zero_at)}({d_container}, {{i}})", i=index))
        if not (isinstance(value, gast.Name) and value.id in self.activity.active):
            return [zero_slot]
        read = gast.Subscript(value=build.name(d_container), slice=build.clone(target.slice),
                              ctx=gast.Load())
        if self._may_repeat(target.slice):
            # `y[[1, 1]] = v`: only the last write to a position stays, only it gets the adjoint
            read = build.quote_expr(f"{self.helper(runtime.last_writes)}({d_container}, {{i}})",
                                    i=build.to_index_value(target.slice))
        if value.id == container:
            # `w[:] = w`: take the slot's adjoint before zeroing it, then hand it to the value
            slot = self.namer.fresh(d_container + "_slot")
            return [build.assign(slot, read), zero_slot, self.accumulate(value.id, build.quote_expr(
                f"{self.helper(runtime.unbroadcast)}({slot}, {value.id})"))]
        code.append(self.accumulate(value.id, build.quote_expr(
            f"{self.helper(runtime.unbroadcast)}({{g}}, {value.id})", g=read)))
        return code + [zero_slot]

    def _may_repeat(self, index):
        """May the index name a position twice (an array or list of positions)? Not when each
        part is a slice, a constant or the variable of a `for` loop over a range."""
        if self._range_counters is None:
            bound = {}
            for statement in walk_statements(self.body):
                names = target_names(statement.target) if isinstance(statement, gast.For) else \
                    [] if isinstance(statement, (gast.If, gast.While)) else assigned_names([statement])
                for variable in names:
                    bound[variable] = bound.get(variable, 0) + 1
            self._range_counters = {
                s.target.id for s in walk_statements(self.body)
                if isinstance(s, gast.For) and isinstance(s.target, gast.Name)
                and bound.get(s.target.id) == 1
                and classify(s.iter, self.parsed, self.local_names).key is range}
        parts = index.elts if isinstance(index, gast.Tuple) else [index]
        return not all(isinstance(p, (gast.Slice, gast.Constant)) or (
            isinstance(p, gast.Name) and p.id in self._range_counters) for p in parts)

def _without_comment(line):
    """`y = x * 2  # why` -> `y = x * 2` (a `#` inside a string stays)."""
    if "#" not in line:
        return line
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return line
    for token in tokens:
        if token.type == tokenize.COMMENT:
            return line[:token.start[1]].rstrip()
    return line


def _may_be_a_number(value):
    """`y[i]`, `y[i, j]`: a number when `y` has as many dimensions as indices, else a view."""
    if not isinstance(value, gast.Subscript):
        return False
    parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
    return all(isinstance(p, gast.Name) or (isinstance(p, gast.Constant) and isinstance(p.value, int))
               for p in parts)


def _has_own_break(body):
    """Does `body` break out of its own loop (not out of a nested one)?"""
    for statement in body:
        if isinstance(statement, gast.Break):
            return True
        if isinstance(statement, gast.If) and (_has_own_break(statement.body)
                                               or _has_own_break(statement.orelse)):
            return True
    return False


def _inline_alias(code, alias, original):
    """Drop `alias = original` when only the last statement rebinds `original`."""
    if alias == original or not code:
        return code
    writers = [i for i, s in enumerate(code) if isinstance(s, gast.Assign)
               and isinstance(s.targets[0], gast.Name) and s.targets[0].id == original]
    if writers != [len(code) - 1]:
        return code

    class Rename(gast.NodeTransformer):
        def visit_Name(self, node):
            if node.id == alias:
                node.id = original
            return node

    return [Rename().visit(s) for s in code[1:]]


def _drop_unused_locals(code):
    """Template temporaries whose every use was dropped with an inactive contribution."""
    def temporary(s):
        return isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
            and s.targets[0].id.startswith("_")

    while any(temporary(s) for s in code):
        used = loads(code)
        keep = [s for s in code if not (temporary(s) and s.targets[0].id not in used)]
        if len(keep) == len(code):
            break
        code = keep
    return code
