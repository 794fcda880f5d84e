"""Reverse mode's entry point: runs its jobs in order (refusals, record, emit, tape plan) and
assembles `vjp_<f>(*params, seed=None) -> (value, gradients)`, or `grad_<f>(*params) ->
gradients` where only the gradient is asked for: the seed, the returned value and gradients,
and the signature."""
import gast

from ... import build, rules, runtime
from ...analysis.array_owners import surely_arrays
from ...analysis.activity import Activity, assigned_names
from ...analysis.flow import binds_on_every_path, reads_maybe_unbound
from ...analysis.primitives import classify
from ..common import Transform, copies_of_written_arguments, split_return
from ...optimize.dead_stores import DeadStores
from ...traversal import loads, rewrite_blocks, walk, walk_statements
from .blocks import rebound_names, written_in_place
from .emit import AdjointEmitter, range_counters
from ...analysis.memory import Views
from ...analysis.shapes import ShapeFacts
from ...calls import keep_backward_passes
from ...passes.guard_argument_mutation import guard_argument_mutation
from ...passes.guard_method_owners import guard_method_owners
from ...passes.guard_stale_views import GuardStaleViews
from ...passes.refuse_writes_through_views import WritesThroughViews
from .record import Recorder, statements_in_loops
from .refusals import refuse_list_mutation, refuse_what_the_passes_refuse
from .tape import TapePlanner, write_tape
from .unread_values import CannotRaise, drop_unread_values


class ReverseMode(Transform):
    """Builds `vjp_<f>(*params, seed=None) -> (value, gradients)` from normal-form code; with
    `value=False`, `grad_<f>(*params) -> gradients` (grad's code: no seed, no value)."""

    def __init__(self, parsed, body, params, wrt, namer, globals_, callee=None, kinds=None,
                 value=True):
        super().__init__(parsed, body, params, wrt, namer, globals_, kinds)
        self.callee = callee              # hook for calls into user functions
        self.value = value
        self.views = Views(parsed, body, self.local_names)
        self.activity = None
        self.shapes = None

    def build(self, function_name):
        self.function_name = function_name
        body, result = split_return(self.parsed, self.body)
        # first: the refusals read from them what kinds calls of functions of yours pass
        self.shapes = ShapeFacts(self.parsed, body, self.params, self.local_names, self.kinds)
        body = self._refused_and_guarded(body, result)
        in_loop = statements_in_loops(body)
        copies = self.copy_written_arguments()
        recorder = Recorder(self.parsed, self.namer, self.activity, self.local_names, in_loop,
                            self._refuse_expression)
        forward = recorder.prepare(body)
        self.array_parameters_read = self.shapes.array_parameters_read()
        seed = self.seed = self.namer.fresh("seed")
        out_name = self._result_name(result, forward)
        # reads that may raise UnboundLocalError: kept, and the seed then checks the output
        self.maybe_unbound = reads_maybe_unbound(forward, self.params, self.local_names)
        emitter = AdjointEmitter(self, self.activity, recorder.recorded,
                                 range_counters(self.body, self.parsed, self.local_names))
        backward = self._seeded(emitter, out_name, seed, forward) + \
            emitter.backward_block(forward)
        keep_backward_passes(emitter)
        forward = copies + self._checked_reads(forward)
        planner = TapePlanner(self.params, in_loop, emitter.reverse_loops, self.views.may_view,
                              self.namer, self.helper)
        forward, backward = write_tape(planner.plan(forward, backward, emitter.restores),
                                       forward, backward)
        # `dy = zeros_like(y)` may run where the forward never bound `y` (an early return)
        unbound = sorted(emitter.materialized - set(self.params) - binds_on_every_path(forward))
        forward = [build.assign(v, gast.Constant(value=None, kind=None)) for v in unbound] + forward
        returned = {emitter.adjoints[p] for p in self.wrt
                    if emitter.adjoints.get(p) in emitter.nonzero}
        if self.value:
            out_name = self._keep_the_output(forward, backward, out_name)
            returned.add(out_name)
        dead_stores = DeadStores()
        backward = dead_stores.run(backward, live_after=returned)
        forward = drop_unread_values(forward, dead_stores.live_in | (returned & {out_name}),
                                     self._pure, self._is_range,
                                     None if self.value else out_name,
                                     CannotRaise(self.parsed, self.local_names, self.shapes,
                                                 backward, self.maybe_unbound))
        return self._function(forward, backward, out_name, seed, emitter)

    def _refused_and_guarded(self, body, result):
        """Find the active values, refuse what reverse mode cannot differentiate, and return
        `body` with the run-time checks that decide what transform time cannot."""
        outputs = sorted(loads(result) & self.local_names)
        self.activity = Activity(body, self.parsed, self.local_names, self.wrt, outputs)
        self.complex_refusals = refuse_what_the_passes_refuse(
            self.parsed, body, self.params, self.local_names, self.activity, self.shapes)
        if self.callee is not None:
            body = guard_argument_mutation(self, body, self.activity.varied)
            self.body = body + self.body[-1:]
        body = guard_method_owners(self.parsed, body, self.local_names, self.activity.varied,
                                   self.inserted_check,
                                   lambda: surely_arrays(self.parsed, body, self.params,
                                                         self.local_names, self.kinds))
        body = self.guard_key_loops(body)
        guard = GuardStaleViews(self.parsed, self.views, self.inserted_check)
        body = guard.run(body)
        WritesThroughViews(self.parsed, self.local_names, self.views,
                           getattr(guard, "at_writes", None)).run(body)
        self.body = body + self.body[-1:]
        return body

    def _refuse_expression(self, statement):
        refuse_list_mutation(self.parsed, statement, self.params, self.activity.varied)

    def copy_written_arguments(self):
        """Arguments written in place are copied first: the caller's arrays never change."""
        writes = {}
        for statement in walk_statements(self.body):
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Subscript):
                writes.setdefault(statement.targets[0].value.id, statement)
        return copies_of_written_arguments(self, writes)

    def _result_name(self, result, forward):
        if isinstance(result, gast.Name):
            return result.id
        name = self.namer.fresh("_result")
        forward.append(gast.copy_location(build.assign(name, result), result))
        self.local_names.add(name)
        if isinstance(result, gast.Tuple):
            self.activity.add_flow(name, loads(result))
        return name

    def _checked_reads(self, forward):
        """`forward` with `check_bound(y, 'y')` before each statement that reads a name a path
        may leave unbound (a zero-trip loop's result): the generated code may have bound it to
        None first (its tape or backward pass reads it), and the read must raise
        UnboundLocalError as Python's does, not a NumPy error about None. (Inside a loop, a
        name bound at an earlier step holds that value, not None: the check lets it pass.)
        Derivative code differentiated again (hvp) is left as it is: a value it saved may be
        one of its None stand-ins, read on purpose."""
        if self.parsed.generated:
            return forward      # derivative code differentiated again: its own None stand-ins
        def checked(statement):
            if not isinstance(statement, (gast.Assign, gast.Expr, gast.AugAssign)):
                return [statement]
            names = sorted({n.id for n in walk(statement) if id(n) in self.maybe_unbound})
            return [build.quote(f"{self.helper(runtime.check_bound)}({name}, {name!r})")[0]
                    for name in names] + [statement]
        return rewrite_blocks(forward, checked)

    def _seeded(self, emitter, out_name, seed, forward):
        """The backward pass's first statement: the output's adjoint from the seed, or only
        the seed's check where the output does not depend on what is differentiated."""
        d_out = None
        if out_name in self.activity.active or out_name in self.wrt:
            d_out = emitter.adjoint_name(out_name)      # named before the helper, as always
            emitter.nonzero.add(d_out)
        if not self.value and self.shapes.is_number(out_name) and not self.maybe_unbound and \
                out_name in set(self.params) | binds_on_every_path(forward):
            # a gradient alone of a real number: its seed is 1, and nothing needs the value
            # (where some path leaves it, or what it is made of, unbound, seed_like's check
            # says so: no zeros)
            return build.quote(f"{d_out} = 1.0") if d_out else []
        seeded = f"{self.helper(runtime.seed_like)}({out_name}, " \
                 f"{seed if self.value else None}, {self.parsed.name!r})"
        return build.quote(f"{d_out} = {seeded}" if d_out else seeded)

    def _keep_the_output(self, forward, backward, out_name):
        """The name the derivative returns its value from, with a copy appended to `forward`
        where the backward pass would change the output's array or rebind its name."""
        if self.views.shares_memory(out_name, forward, written_in_place(backward)):
            # the backward pass writes earlier entries back into the output's array: keep a copy
            value = self.namer.fresh("value")
            forward.append(build.assign(value, build.quote_expr(
                f"{self.helper(runtime.snapshot)}({out_name})")))
            return value
        if out_name in assigned_names(backward):
            # ... or restores earlier values of the output: keep the final one
            value = self.namer.fresh("value")
            forward.append(build.assign(value, build.name(out_name)))
            return value
        return out_name

    def _pure(self, value):
        """Computing `value` has no effect besides its result (and it is cheap to check). Not
        a call of the math module's, which raises where NumPy's function warns (`math.log(0)`):
        a gradient is not computed where the function raises."""
        if isinstance(value, (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Compare,
                              gast.Subscript, gast.Attribute)):
            return True
        if isinstance(value, gast.Call):
            key = classify(value, self.parsed, self.local_names).key
            module = getattr(key, "__module__", None) or ""
            return rules.adjoint_rule(key) is not None and not isinstance(key, rules.method) \
                and not module.startswith(runtime.__name__ + ".") and module != "math"
        return False

    def _is_range(self, value):
        return isinstance(value, gast.Call) and \
            classify(value, self.parsed, self.local_names).key is range

    def _function(self, forward, backward, out_name, seed, emitter):
        """`def vjp_<f>(*params, seed=None)`: forward, backward, return value and gradients
        (`def grad_<f>(*params)`: the gradients alone)."""
        # a gradient takes the type and shape of the argument, not of what the name holds last
        rebound = set(rebound_names(self.body)) & set(self.wrt)
        arguments = {p: self.namer.fresh(p + "_arg") for p in self.wrt if p in rebound}
        forward = [build.assign(arguments[p], build.name(p)) for p in self.wrt if p in arguments] \
            + forward
        gradients = self._gradients(emitter, arguments)
        ret = gast.Return(value=gast.Tuple(elts=[build.name(out_name), gradients],
                                           ctx=gast.Load()) if self.value else gradients)
        args = gast.arguments(
            args=[build.name(p, store=False) for p in self.params] +
                 ([build.name(seed)] if self.value else []),
            posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
            defaults=[gast.Constant(value=None, kind=None)] if self.value else [])
        for a in args.args:
            a.ctx = gast.Param()
        docstring = gast.Expr(value=gast.Constant(
            value=f"Value of {self.parsed.name} and its gradient with respect to "
                  f"{', '.join(self.wrt)}." if self.value else
            f"Gradient of {self.parsed.name} with respect to {', '.join(self.wrt)}.", kind=None))
        return gast.FunctionDef(
            name=self.function_name, args=args, body=[docstring] + forward + backward + [ret],
            decorator_list=[], returns=None, type_comment=None, type_params=[])

    def _gradients(self, emitter, arguments):
        """One gradient per `wrt` argument, shaped like it (`arguments`: copies of those the
        function rebinds); a tuple of them where there are several."""
        gradients = []
        for param in self.wrt:
            d_param = emitter.adjoints.get(param)
            value = build.name(d_param) if d_param in emitter.nonzero else gast.Constant(value=0.0, kind=None)
            gradients.append(build.quote_expr(
                f"{self.helper(runtime.gradient_like)}({{g}}, {arguments.get(param, param)})", g=value))
        return gradients[0] if len(gradients) == 1 else gast.Tuple(elts=gradients, ctx=gast.Load())
