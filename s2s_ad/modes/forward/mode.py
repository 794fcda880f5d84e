"""Forward mode's assembly: the refusals and facts gathered before emission, the copies of
arguments written in place, and `jvp_<f>(*params, tangent) -> (value, tangent of the value)`
around the emitted body."""
import gast

from ... import build, runtime
from ...analysis.array_owners import surely_arrays
from ...analysis.activity import assigned_names
from ...analysis.liveness import Liveness
from ...analysis.memory import Views
from ...analysis.shapes import ShapeFacts
from ..number_shapes import DerivativeShapes, KnownShapes
from ...passes.guard_argument_mutation import guard_argument_mutation
from ...passes.guard_method_owners import guard_method_owners
from ...passes.guard_stale_views import GuardStaleViews
from ...passes.refuse_writes_through_views import WritesThroughViews
from ..common import Transform, copies_of_written_arguments, split_return
from ...calls import complex_refusals_at_call
from ...passes.refuse_complex import refuse_complex_values
from ...passes.refuse_misread_operations import refuse_misread_operations
from ...passes.refuse_unsupported import refuse_writes_into_arguments
from ...traversal import loads, walk_statements
from .body_facts import BodyFacts
from ...analysis.tapes import list_mutation, stacks
from .calls import CallEmitter
from .control_flow import ControlFlowEmitter
from .state import TangentState
from .statements import StatementEmitter
from .tangent_memory import TangentMemory
from .tangent_names import TangentNames
from .tangent_rule import TangentRuleEmitter


class ForwardMode(StatementEmitter, ControlFlowEmitter, CallEmitter, TangentRuleEmitter,
                  TangentMemory, TangentNames, BodyFacts, Transform):
    """Builds `jvp_<f>(*params, tangent) -> (value, tangent of the value)` from normal-form code."""

    def __init__(self, parsed, body, params, wrt, namer, globals_, kinds=None):
        super().__init__(parsed, body, params, wrt, namer, globals_, kinds)
        self.tangents = {}                # variable -> its tangent's name
        self.owners = {}                  # tangent's name -> variable
        self.loops = []
        self.none_init = set()            # names bound to None up front, so zeros can be made
        # tuple and dict literals (`_t = (a, b)`) by name, while neither they nor their entries
        # are rebound: run-time dispatch reads which entries have a tangent from them
        self.literals = {}
        self.stacks = set()               # lists used only through append / pop (a tape)
        self.tapes = set()                # reverse-mode tapes whose entries carry tangents
        self.owned_writes = set()         # ids of statements writing a tangent of its own
        self.tape_entries = {}
        self.known_shapes = None
        # (None, callee, its code, what it reads) of the callees' derivatives bound as they
        # are now (over reverse-mode code): stale with them (cache.inlined_current)
        self.made_from = []

    def build(self, function_name):
        self.function_name = function_name
        body, result = split_return(self.parsed, self.body)
        self._gather_facts(body, result)
        state = TangentState(set(self.wrt), self.params, self.params)
        copies = self.copy_written_arguments(body)
        state.owned |= {p for p in self.wrt if any(
            isinstance(c.targets[0], gast.Name) and c.targets[0].id == self.tangents.get(p)
            for c in copies)}
        code, state = self.block(body, state)
        if state is None:
            raise self.parsed.error(self.parsed.node, "internal: the end of the function is unreachable")
        tangent = self.namer.fresh("tangent")
        start = self._prologue(tangent)
        return self._function(function_name, tangent, start + copies + code,
                              self._return(result, state))

    def _analyze(self, body, outputs, again=True):
        """Activity (again, where the body has changed since) and the tapes that carry it."""
        if again:
            self.local_names |= set(assigned_names(body))
            self.activity = self.analyze(body, outputs)
        self.tapes = {s for s in self.tapes if self.tape_entries[s] & self.activity.active}

    def _gather_facts(self, body, result):
        """Everything emission reads, before it starts: tapes, activity, refusals, liveness."""
        outputs = sorted(loads(result) & self.local_names)
        self.stacks = stacks(body)
        self.activity = self.analyze(body, outputs)
        self._analyze(body, outputs, self.hoist_iterables(body))
        refuse_writes_into_arguments(
            self.parsed, body, self.local_names, self.activity.varied,
            handled=lambda s: list_mutation(s) is not None or self.accumulation(s) is not None,
            useful=self.activity.useful)
        self.complex_refusals = refuse_complex_values(
            self.parsed, body, self.activity.active, self.params, self.local_names,
            self.activity.varied, callee_refusals=lambda statement, fn: complex_refusals_at_call(
                self.parsed, statement, fn, self.activity.varied, "forward"))
        refuse_misread_operations(self.parsed, body, self.local_names, self.activity.varied)
        body[:] = guard_argument_mutation(self, body, self.activity.varied)
        body[:] = guard_method_owners(self.parsed, body, self.local_names, self.activity.varied,
                                      self.inserted_check,
                                      lambda: surely_arrays(self.parsed, body, self.params,
                                                            self.local_names, self.kinds))
        body[:] = self.guard_key_loops(body)
        self.memory = Views(self.parsed, body, self.local_names)
        guard = GuardStaleViews(self.parsed, self.memory, self.inserted_check,
                                matters=lambda view: view in self.activity.active)
        body[:] = guard.run(body)
        WritesThroughViews(self.parsed, self.local_names, self.memory,
                           getattr(guard, "at_writes", None)).run(body)
        if self.walk_by_index(body):
            self._analyze(body, outputs)
            self.memory = Views(self.parsed, body, self.local_names)
        self.liveness = Liveness()
        self.liveness.block(body, loads(result))
        shapes = ShapeFacts(self.parsed, body, self.params, self.local_names, self.kinds)
        self.known_shapes = KnownShapes(DerivativeShapes(shapes, self.owners.get),
                                        self.resolve_global, (runtime.broadcast_like,))

    def copy_written_arguments(self, body):
        """Arguments written in place are copied first: the caller's values never change."""
        writes = {}
        for statement in walk_statements(body):
            if isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Subscript):
                writes.setdefault(statement.targets[0].value.id, statement)
            mutation = list_mutation(statement)
            if mutation is not None:
                writes.setdefault(mutation[0], statement)
        code = []
        for param in self.params:
            if param not in writes:
                continue
            code += copies_of_written_arguments(self, {param: writes[param]})
            if param in self.wrt:
                d_param = self.tangent_name(param)
                code.append(build.assign(d_param,
                                         self._call_helper(runtime.tangent_copy, d_param)))
        return code

    def _call_helper(self, helper, name):
        return gast.Call(func=build.name(self.helper(helper)), args=[build.name(name)], keywords=[])

    def _prologue(self, tangent):
        """`dx = tangent` (or unpacking it), then the names a zero is made from set to None."""
        names = [self.tangent_name(p) for p in self.wrt]
        targets = build.name(names[0], store=True) if len(names) == 1 else gast.Tuple(
            elts=[build.name(n, store=True) for n in names], ctx=gast.Store())
        start = [build.assign(targets, build.name(tangent))]
        for variable in sorted(self.none_init):
            start.append(build.assign(variable, gast.Constant(value=None, kind=None)))
        return start

    def _return(self, result, state):
        """`return (value, its tangent)`, a zero where the value has none."""
        if isinstance(result, gast.Tuple):
            result_tangent = gast.Tuple(elts=[self.tangent_or_zero(e, state) for e in result.elts],
                                        ctx=gast.Load())
        else:
            result_tangent = self.tangent_or_zero(result, state)
        return gast.Return(value=gast.Tuple(elts=[build.clone(result), result_tangent],
                                            ctx=gast.Load()))

    def _function(self, function_name, tangent, body, ret):
        args = gast.arguments(
            args=[build.name(p) for p in self.params] + [build.name(tangent)],
            posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
        for a in args.args:
            a.ctx = gast.Param()
        along = self.wrt[0] if len(self.wrt) == 1 else "(" + ", ".join(self.wrt) + ")"
        docstring = gast.Expr(value=gast.Constant(
            value=f"Value of {self.parsed.name} and its derivative along `{tangent}`, a tangent "
                  f"of {along}.", kind=None))
        return gast.FunctionDef(
            name=function_name, args=args, body=[docstring] + body + [ret],
            decorator_list=[], returns=None, type_comment=None, type_params=[])
