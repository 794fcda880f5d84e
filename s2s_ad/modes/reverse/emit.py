"""The adjoint emitter: walks the recorded forward pass backwards, one visit per statement
kind, filling in the adjoint rules.

Adjoints are tracked statically as zero or non-zero: the first contribution assigns
(`dx = ...`), later ones add (`dx = dx + ...`), and zeros are only materialized
(`dx = zeros_like(x)`) where control flow joins paths that disagree. After each statement's
adjoint it leaves a `Restore` marker where the statement's earlier values may be needed;
the tape plan decides which of them to keep.
"""
import io
import tokenize

import gast

from ... import build, rules, runtime
from ...analysis.activity import assigned_names, target_names
from ...analysis.call_results import method_of_a_user_class
from ...analysis.primitives import classify, passes_no_derivative
from ...analysis.dims import NUMBER
from ..number_shapes import DerivativeShapes, KnownShapes
from ..common import binding_error, no_rule_error, refuse_ignored_derivatives
from ...generated_globals import GlobalNames
from ...instantiate import BindingError, bind, instantiate
from ...traversal import loads, walk_statements
from ...analysis.flow import bound_names
from ...analysis.container_kinds import container_kinds
from .blocks import appended, inserted, popped, written_in_place
from .container_adjoints import ContainerAdjoints
from .record import is_active
from .tape import Restore, is_marker


def range_counters(body, parsed, local_names):
    """Variables of `for` loops over a range that nothing else binds: an index made of them
    names each position once."""
    bound = {}
    for statement in walk_statements(body):
        for variable in bound_names(statement):
            bound[variable] = bound.get(variable, 0) + 1
    return {s.target.id for s in walk_statements(body)
            if isinstance(s, gast.For) and isinstance(s.target, gast.Name)
            and bound.get(s.target.id) == 1
            and classify(s.iter, parsed, local_names).key is range}


class AdjointEmitter(ContainerAdjoints, GlobalNames):
    """Emits the backward pass. Calls into user functions go through `callee(emitter,
    statement, primitive, incoming)`, which reads the emitter's names and adjoints."""

    def __init__(self, mode, activity, recorded, range_counters):
        self.parsed = mode.parsed
        self.wrt = mode.wrt
        self.namer = mode.namer
        self.globals = mode.globals
        self.local_names = mode.local_names
        self.function_name = mode.function_name
        self.callee = mode.callee
        self.arrays = mode.views.arrays    # names that always hold a NumPy array
        # names that always hold a list, tuple or dict: `v = xs.pop(i)` takes a position, not
        # a dict's key, and `d[k] = v` stores one entry, not NumPy's positions that may repeat
        self.containers = container_kinds(mode.body, mode.params, mode.parsed.namespace)
        self.lists = {name for name, kind in self.containers.items() if kind == "list"}
        self.activity = activity
        self.range_counters = range_counters
        self.adjoints = {}                # variable -> its adjoint's name
        self.nonzero = set()              # adjoint names that currently hold a value
        self.restores = []                # Restore markers, in the order they were made
        self.reverse_loops = {}           # id of a forward loop -> its backward loop
        self.materialized = set()         # variables whose adjoint is set to zeros like them
        self.recorded = recorded          # id of a recorded `if` / loop -> its record.Recorded
        self.adjoint_owners = {}          # adjoint's name -> variable
        # where a value and its adjoint's terms have one shape, no unbroadcast between them
        self.shape_of = DerivativeShapes(mode.shapes, self.adjoint_owners.get)
        self.known_shapes = KnownShapes(self.shape_of, self.resolve_global, (runtime.unbroadcast,),
                                        self.helper, mode.shapes and mode.shapes.distinct_positions,
                                        mode.shapes and mode.shapes.range_part)
        # calls into the user's functions (s2s_ad.calls): the derivative bound for each
        # (kind, callee, wrt), and the forward statements that keep a callee's backward pass
        self.callee_derivatives = {}
        self.kept_backward = {}
        self.generator_calls = {}        # id -> `y = gen(...)` whose items are kept as a list

    def adjoint_name(self, variable):
        if variable not in self.adjoints:
            self.adjoints[variable] = self.namer.adjoint(variable)
            self.adjoint_owners[self.adjoints[variable]] = variable
        return self.adjoints[variable]

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
            container = popped(statement)
            if container is not None and (not statement.value.args or container in self.lists):
                return self.adjoint_of_pop(statement, container)
            code = []
            if is_active(statement, self.activity.active):
                code += self.adjoint_of_assign(statement)
            return code + [self.restore(statement, statement.targets[0])]
        if isinstance(statement, (gast.If, gast.While, gast.For)):
            if not is_active(statement, self.activity.active):
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
        append = appended(statement)
        if append is not None:
            return self.adjoint_of_append(statement, *append)
        insert = inserted(statement)
        if insert is not None:
            return self.adjoint_of_insert(statement, *insert)
        return []

    def restore(self, statement, target):
        marker = Restore(statement, target)
        self.restores.append(marker)
        return marker.node

    def materialize(self, adjoints):
        """`dx = zeros_like(x)` for adjoints that must hold a value from here on (`dx = 0.0`
        for a number: then x need not be kept for its shape)."""
        by_adjoint = {v: k for k, v in self.adjoints.items()}
        code = []
        for adjoint in sorted(adjoints):
            if self.shape_of(adjoint) == NUMBER:
                code.append(build.assign(adjoint, gast.Constant(value=0.0, kind=None)))
                continue
            self.materialized.add(by_adjoint[adjoint])
            code.append(build.quote(f"{adjoint} = {self.helper(runtime.zeros_like)}"
                                    f"({by_adjoint[adjoint]})")[0])
        return code

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
        return [gast.If(test=build.name(self.recorded[id(statement)].cond), body=body or [gast.Pass()], orelse=orelse)]

    def backward_loop(self, statement):
        before = set(self.nonzero)
        entry = set(before)
        saved_restores = len(self.restores)
        while True:
            del self.restores[saved_restores:]
            self.nonzero = set(entry)
            body = self.backward_block([s for s in statement.body
                                        if not self._is_counter(s, self.recorded[id(statement)])])
            exit_ = set(self.nonzero)
            if exit_ <= entry:
                break
            entry |= exit_
        body += self.materialize(entry - exit_)
        self.nonzero = entry
        recorded = self.recorded[id(statement)]
        if isinstance(statement, gast.While):
            header = build.quote_expr(f"range({recorded.counter})")
            target = build.name(self.namer.fresh("_"), store=True)
        else:
            # a slice, not reversed(): it is a sequence, so differentiating this code again
            # can index it (a loop whose target is active walks its sequence by index)
            steps = recorded.steps
            if recorded.counter:
                header = build.quote_expr(f"{steps}[:{recorded.counter}][::-1]")
            else:
                header = build.quote_expr(f"{steps}[::-1]")
            target = build.clone(statement.target)
            target.ctx = gast.Store()
        loop = gast.For(target=target, iter=header, body=body or [gast.Pass()], orelse=[],
                        type_comment=None)
        self.reverse_loops[id(statement)] = loop
        # the backward loop rebinds a `for` target: statements before the loop read the value
        # it had there (an outer loop's `i`, when an inner loop reuses the name)
        restored = [] if isinstance(statement, gast.While) else [
            self.restore(statement, build.name(v)) for v in target_names(statement.target)]
        return self.materialize(entry - before) + [loop] + restored

    @staticmethod
    def _is_counter(statement, recorded):
        counter = recorded.counter
        return (counter is not None and isinstance(statement, gast.AugAssign)
                and statement.target.id == counter)

    # one assignment -----------------------------------------------------------------------
    def accumulate(self, variable, expression):
        d_var = self.adjoint_name(variable)
        if d_var in self.nonzero and self._negated(expression, variable):
            value = gast.BinOp(left=build.name(d_var), op=gast.Sub(), right=expression.operand)
        elif d_var in self.nonzero:
            value = gast.BinOp(left=build.name(d_var), op=gast.Add(), right=expression)
        else:
            value = expression
            self.nonzero.add(d_var)
        return build.assign(d_var, value)

    def _negated(self, expression, variable):
        """Is `expression` `-E` added to the adjoint of a number or an array (`-` is defined
        for them; a container's adjoint only adds)? Then `d - E` says it in one step."""
        return isinstance(expression, gast.UnaryOp) and isinstance(expression.op, gast.USub) \
            and self.shape_of.shapes.token(variable) is not None

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
        rule = rules.adjoint_rule(primitive.key) if primitive.key is not None and \
            not method_of_a_user_class(primitive, self.parsed) else None
        if rule is None and self.callee is not None:
            handled = self.callee(self, statement, primitive, incoming)
            if handled is not None:
                return handled
        if rule is None:
            raise no_rule_error(self.parsed, statement.value, primitive.label, "reverse",
                                primitive.key)
        args = list(primitive.args)
        if primitive.key == rules.SUBSCRIPT:
            args[1] = build.to_index_value(args[1])
        try:
            bindings = bind(rule, args, primitive.keywords)
        except BindingError as exc:
            raise binding_error(self.parsed, statement.value, primitive, exc) from None
        refuse_ignored_derivatives(self.parsed, statement.value, primitive, rule, bindings,
                                   self._varied_atom, "reverse")
        bindings[rule.result] = build.name(statement.targets[0].id)
        instance = instantiate(rule, bindings, lambda param: build.name(incoming), self.namer,
                               self.global_name, wanted=self._active_atom)
        code = []
        known = {incoming: self.shape_of(statement.targets[0].id)}
        for step in instance.steps:
            if step[0] == "local":
                code.append(step[1])
            else:
                _, atom, expression = step
                expression = self.known_shapes.simplified(expression, known)
                code.append(self.accumulate(atom.id, expression))
        return _drop_unused_locals(code)

    def _varied_atom(self, atom):
        return isinstance(atom, gast.Name) and atom.id in self.activity.varied

    def _active_atom(self, atom):
        return isinstance(atom, gast.Name) and atom.id in self.activity.active

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
