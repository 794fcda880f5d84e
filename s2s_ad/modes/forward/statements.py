"""The tangent emitter for straight-line statements: one visit method per statement kind
(`v = ...`, `x[i] = v`, an expression statement), each returning (code, state after)."""
import gast

from ... import build, rules
from ...analysis.call_results import is_user_function, method_of_a_user_class
from ...analysis.primitives import classify, passes_no_derivative
from ..common import no_rule_error
from ...traversal import loads, walk
from ...analysis.tapes import list_mutation


def bind(variable, state):
    state.maybe.add(variable)
    state.definite.add(variable)


class StatementEmitter:
    """Part of ForwardMode: the blocks and simple statements (control flow: ControlFlowEmitter)."""

    def block(self, statements, state):
        out = []
        last_line = None
        for statement in statements:
            if state is None:
                break                     # unreachable: after a break or continue
            code, state = self.statement(statement, state)
            if state is not None and isinstance(statement, (gast.Assign, gast.Expr)):
                self.track(code, state)
            if len(code) > 1 and isinstance(statement, (gast.Assign, gast.Expr)) \
                    and hasattr(statement, "lineno"):
                last_line = self._comment_line(statement, code, last_line)
            out += code
        return out, state

    def _comment_line(self, statement, code, last_line):
        """`# tangent of: <the user's line>` above the code of the first statement from it."""
        line = self.parsed.location(statement)[0]
        if line == last_line:
            return last_line
        text = self.parsed.source_line(statement).strip()
        if text:
            code.insert(0, build.comment(
                f"tangent of: {text}   [{self.parsed.filename.split('/')[-1]}:{line}]"))
        return line

    def statement(self, statement, state):
        if isinstance(statement, gast.Assign):
            target = statement.targets[0]
            if isinstance(target, gast.Name):
                return self.assign(statement, state)
            if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name):
                return self.setitem(statement, state)
            raise self.parsed.error(statement, "cannot differentiate this assignment",
                                    hint="assign to a name or to an element of a named array")
        if isinstance(statement, gast.Expr):
            return self.expression(statement, state)
        if isinstance(statement, gast.If):
            return self.branch(statement, state)
        if isinstance(statement, (gast.While, gast.For)):
            return self.loop(statement, state)
        if isinstance(statement, (gast.Break, gast.Continue)):
            return self.jump(statement, state)
        if isinstance(statement, (gast.Assert, gast.Pass)):
            return [statement], state
        if isinstance(statement, gast.Raise):
            return [statement], None      # what follows is unreachable
        if isinstance(statement, gast.Return):
            raise self.parsed.error(statement, "internal: return not lowered")
        raise self.parsed.error(statement, f"`{type(statement).__name__}` statements are not "
                                f"supported in forward mode")

    # v = ... ------------------------------------------------------------------------------
    def assign(self, statement, state):
        variable = statement.targets[0].id
        value = statement.value
        self._remember_literal(variable, value)
        primitive = classify(value, self.parsed, self.local_names)
        mutation = list_mutation(statement)
        if variable in self.tapes and isinstance(value, gast.List):
            state.nonzero.add(variable)
            state.owned.discard(variable)
            return [statement, build.assign(self.tangent_name(variable), gast.List(
                elts=[], ctx=gast.Load()))], state
        if variable not in self.activity.active:
            return self._inactive_assign(statement, variable, mutation, state), state
        before, primal, after = self.tangent_of_assign(statement, variable, primitive, mutation, state)
        bind(variable, state)
        state.owned.discard(variable)
        if after is None:
            state.nonzero.discard(variable)
            return before + primal, state
        state.nonzero.add(variable)
        return before + primal + after, state

    def _remember_literal(self, variable, value):
        """Keep `self.literals` to the tuple / dict literals whose name and entries still hold."""
        self.literals = {name: literal for name, literal in self.literals.items()
                         if name != variable and variable not in loads(literal)}
        if isinstance(value, (gast.Tuple, gast.Dict)):
            self.literals[variable] = value

    def _inactive_assign(self, statement, variable, mutation, state):
        """`v = xs.pop()` and the like on an inactive v: the list of tangents still follows."""
        state.nonzero.discard(variable)
        state.owned.discard(variable)
        code = [statement]
        if mutation is not None and mutation[0] in state.nonzero:
            code.append(gast.Expr(value=self.mirror_call(mutation, state)))
        bind(variable, state)
        return code

    def tangent_of_assign(self, statement, variable, primitive, mutation, state):
        """(code before, the primal statement(s), tangent code after or None for a zero)."""
        value = statement.value
        d_var = self.tangent_name(variable)       # named even when zero: later names follow
        if primitive.kind == "copy":
            source = self.tangent_of_atom(primitive.args[0], state)
            if source is None:
                return [], [statement], None
            return [], [statement], [build.assign(d_var, source)]
        if primitive.kind == "const" or passes_no_derivative(primitive) or \
                not self._reads_a_tangent(value, primitive, state):
            return [], [statement], None
        if primitive.kind == "opaque":
            raise self.parsed.error(value, f"cannot differentiate through a {primitive.label} "
                                    f"expression that depends on {', '.join(self.wrt)}",
                                    hint="write it with explicit loops and assignments")
        literal = self._literal_tangent(value, primitive, state)
        if literal is not None:
            return [], [statement], [build.assign(d_var, literal)]
        if mutation is not None and mutation[1] == "pop":
            if mutation[0] not in state.nonzero:
                return [], [statement], None
            return [], [statement], [build.assign(d_var, self.mirror_call(mutation, state))]
        rule = rules.tangent_rule(primitive.key) if primitive.key is not None and \
            not method_of_a_user_class(primitive, self.parsed) else None
        if rule is None:
            return [], self._call_without_rule(statement, variable, primitive, state), []
        return self.apply_rule(statement, variable, primitive, rule, state)

    @staticmethod
    def _reads_a_tangent(value, primitive, state):
        """Whether an operand has a tangent (an empty list literal always gets one); a
        starred operand (`zip(*pairs)`) is read whole."""
        operands = [a.value if isinstance(a, gast.Starred) else a for a in primitive.operands]
        operands = [a for a in operands if isinstance(a, gast.Name)]
        if primitive.key == rules.SUBSCRIPT:
            operands = [primitive.args[0]] if isinstance(primitive.args[0], gast.Name) else []
        return any(a.id in state.nonzero for a in operands) or (
            primitive.key == "list" and not isinstance(value, gast.Call))

    def _literal_tangent(self, value, primitive, state):
        """The tangent of a tuple, list or dict literal, entry by entry; else None."""
        if primitive.key in ("tuple", "list") and isinstance(value, (gast.Tuple, gast.List)):
            return type(value)(elts=[self.tangent_or_zero(e, state) for e in value.elts],
                               ctx=gast.Load())
        if primitive.key == "dict" and isinstance(value, gast.Dict):
            return gast.Dict(keys=[build.clone(k) for k in value.keys],
                             values=[self.tangent_or_zero(v, state) for v in value.values])
        return None

    def _call_without_rule(self, statement, variable, primitive, state):
        """A call into a user function (or run-time dispatch); refused when it is neither."""
        handled = self.call(statement, variable, primitive, state)
        if handled is not None:
            return handled
        raise no_rule_error(self.parsed, statement.value, primitive.label, "forward",
                                primitive.key)

    # x[i] = v -----------------------------------------------------------------------------
    def setitem(self, statement, state):
        """`x[i] = v`: a fresh tangent for x, with dv written at i."""
        target = statement.targets[0]
        container = target.value.id
        bind(container, state)
        if container not in self.activity.active:
            state.nonzero.discard(container)
            return [statement], state
        value = statement.value
        d_value = self.tangent_of_atom(value, state)
        if container not in state.nonzero and d_value is None:
            return [statement], state
        prepare = self.prepare_write(statement, container, state)
        write = gast.Subscript(value=build.name(self.tangent_name(container)),
                               slice=build.clone(target.slice), ctx=gast.Store())
        if d_value is not None:
            state.alias(value.id, container)          # containers of arrays hold dv itself
        return [statement] + prepare + [
            self.owned_write(build.assign(write, d_value or self.zero_of(value)))], state

    # expression statements ----------------------------------------------------------------
    def mirror_call(self, mutation, state):
        """`dxs.method(...)` mirroring `xs.method(...)` on the list of tangents."""
        owner, method, call = mutation
        args = list(call.args)
        if method == "append":
            value = args[0]
            if owner in self.stacks and not (isinstance(value, gast.Name)
                                             and value.id in self.activity.active):
                args = [gast.Constant(value=None, kind=None)]
            else:
                args = [self.tangent_or_zero(value, state)]
        elif method == "extend":
            args = [self.tangent_or_zero(args[0], state)]
        elif method == "insert":
            args = [build.clone(args[0]), self.tangent_or_zero(args[1], state)]
        else:
            args = [build.clone(a) for a in args]
        return gast.Call(func=gast.Attribute(value=self.tangent(owner), attr=method,
                                             ctx=gast.Load()),
                         args=args, keywords=[])

    def expression(self, statement, state):
        mutation = list_mutation(statement)
        if mutation is not None:
            return self._list_method(statement, mutation, state), state
        accumulated = self.accumulation(statement)
        if accumulated is not None:
            return self.accumulate_in_place(statement, *accumulated, state), state
        self._refuse_call_that_may_mutate(statement)
        return [statement], state

    def _list_method(self, statement, mutation, state):
        """`xs.append(v)` and the like: the same call on the list of tangents, where it has one."""
        owner, method, call = mutation
        if owner not in self.activity.active | self.tapes:
            return [statement]
        if method == "pop":
            if owner in state.nonzero:
                return [statement, gast.Expr(value=self.mirror_call(mutation, state))]
            return [statement]
        before = []
        if owner not in state.nonzero:
            if not any(isinstance(a, gast.Name) and a.id in state.nonzero for a in call.args):
                return [statement]
            before = self.materialize({owner}, state)
        return before + [statement, gast.Expr(value=self.mirror_call(mutation, state))]

    def _refuse_call_that_may_mutate(self, statement):
        """`f(x)` as a statement, without a tangent: it may change x in place unseen."""
        value = statement.value
        if not isinstance(value, gast.Call):
            return
        primitive = classify(value, self.parsed, self.local_names)
        # a function of yours is read: guard_argument_mutation refused, or checks when it runs,
        # what it writes into its arguments (`validate(x)` that only raises is fine)
        pure = passes_no_derivative(primitive) or is_user_function(primitive.key) or (
            primitive.key is not None and rules.tangent_rule(primitive.key) is not None)
        names = [n.id for n in walk(value) if isinstance(n, gast.Name)]
        if not pure and any(n in self.activity.varied for n in names):
            raise self.parsed.error(statement, f"cannot differentiate through "
                                    f"`{self.parsed.describe_expression(value.func)}` used "
                                    f"as a statement: it may change "
                                    f"its arguments in place",
                                    hint="assign its result to a name instead")

    def accumulate_in_place(self, statement, target, index, value, state):
        """`add_at(d, i, g)`: the same on a fresh copy of d's tangent."""
        if target not in self.activity.active:
            state.nonzero.discard(target)
            return [statement]
        d_value = self.tangent_of_atom(value, state)
        if d_value is None:
            return [statement]
        d_target = self.tangent_name(target)
        prepare = self.prepare_write(statement, target, state)
        if isinstance(value, gast.Name):
            state.alias(value.id, target)
        update = gast.Expr(value=gast.Call(func=build.clone(statement.value.func), keywords=[],
                                           args=[build.name(d_target), build.clone(index), d_value]))
        return [statement] + prepare + [self.owned_write(update)]
