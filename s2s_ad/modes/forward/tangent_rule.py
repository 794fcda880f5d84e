"""A registered tangent rule filled in at one assignment: `y = op(a, b)` -> `dy = <terms>`,
one term per input that has a tangent."""
import gast

from ... import build, runtime
from ...instantiate import BindingError, bind, instantiate
from ..common import binding_error, refuse_ignored_derivatives
from ...traversal import loads, walk
from .rule_terms import (ZERO, FillZeros, OmitDefaults, RenameVariable, contains_zero,
                         default_marker,
                         defaulted_parameters, drop_unused_locals, mentions, split_terms,
                         sum_terms)


class TangentRuleEmitter:
    """Part of ForwardMode: instantiates tangent rules (reads the tangent-name table)."""

    def apply_rule(self, statement, variable, primitive, rule, state):
        """(code before, [statement], the tangent code or None for a zero tangent)."""
        bindings = self._bind_rule(statement, primitive, rule)
        refuse_ignored_derivatives(
            self.parsed, statement.value, primitive, rule, bindings,
            lambda atom: self.tangent_of_atom(atom, state) is not None, "forward")
        # `x = f(x)`: the rule reads the old x, so it is kept under another name
        old = self.namer.fresh(variable + "_old") if variable in loads(statement.value) else None
        substituted = _renamed(bindings, variable, old)
        substituted[rule.result] = build.name(variable)
        defaults = defaulted_parameters(rule, list(primitive.args), primitive.keywords)
        for name in defaults:
            substituted[name] = default_marker(name)
        zeros, live = {}, set()
        instance = instantiate(rule, bindings=substituted,
                               derivative_of=self._derivative_lookup(bindings, state, zeros, live),
                               namer=self.namer, global_name=self.global_name)
        locals_, expression = _rule_steps(instance, defaults)
        if expression is None:
            raise self.parsed.error(statement.value, f"the tangent rule for {primitive.label} "
                                    f"does not assign d[{rule.result}]")
        locals_, expression = self._zeros_filled(locals_, expression, zeros, live)
        code = self._surviving_terms(variable, locals_, expression)
        if code is None:
            return [], [statement], None
        before = []
        if old is not None and any(isinstance(n, gast.Name) and n.id == old
                                   for s in code for n in walk(s)):
            before.append(build.assign(old, build.name(variable)))
        return before, [statement], code

    def _bind_rule(self, statement, primitive, rule):
        try:
            return bind(rule, list(primitive.args), primitive.keywords)
        except BindingError as exc:
            raise binding_error(self.parsed, statement.value, primitive, exc,
                                "tangent rule") from None

    def _derivative_lookup(self, bindings, state, zeros, live):
        """`d[param]` in the rule: the bound operand's tangent, or a ZERO marker where it has
        none (`zeros`: marker -> the operand; `live`: the tangents found)."""
        def zero(atom):
            marker = f"{ZERO}{len(zeros)}"
            zeros[marker] = atom
            return build.name(marker)

        def derivative_of(param):
            atom = bindings.get(param)
            if isinstance(atom, list):
                parts = [self.tangent_of_atom(a, state) for a in atom]
                if all(p is None for p in parts):
                    return zero(gast.Tuple(elts=list(atom), ctx=gast.Load()))
                live.update(*(loads(p) for p in parts if p is not None))
                return gast.Tuple(elts=[p or gast.Constant(value=None, kind=None) for p in parts],
                                  ctx=gast.Load())
            found = self.tangent_of_atom(atom, state) if atom is not None else None
            if found is None:
                return zero(atom)
            live.update(loads(found))
            return found
        return derivative_of

    def _zeros_filled(self, locals_, expression, zeros, live):
        """A term is linear in the tangents it reads together: one that reads a missing
        tangent beside a present one (`put_entry(d[g], i, d[v])`, `f(d[a] + d[b])`) gets the
        missing one's zero, not dropped; a term that reads only missing ones is zero."""
        live = set(live)
        for statement in locals_:
            if mentions(statement.value, live):
                live |= {t.id for t in statement.targets if isinstance(t, gast.Name)}
        fill = FillZeros(zeros, self.zero_of)

        def filled(node):
            return fill.visit(node) if contains_zero(node) and mentions(node, live) else node
        return [filled(s) for s in locals_], sum_terms(
            [(sign, filled(term)) for sign, term in split_terms(expression)])

    def _surviving_terms(self, variable, locals_, expression):
        """The rule's locals and `dv = <sum>` without the terms (and locals) that read a zero;
        None when no term survives."""
        zero_locals = {s.targets[0].id for s in locals_ if contains_zero(s)
                       and isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)}

        def is_zero(node):
            return contains_zero(node) or mentions(node, zero_locals)
        terms = split_terms(expression)
        kept = [(s, t) for s, t in terms if not is_zero(t)]
        if not kept:
            return None
        if len(kept) == len(terms) and len(terms) > 1:
            kept = [(s, self._unwrap_broadcast(t)) for s, t in kept]
        kept = [(s, self.known_shapes.simplified(t)) for s, t in kept]
        code = [s for s in locals_ if not is_zero(s)]
        code.append(build.assign(self.tangent_name(variable), sum_terms(kept)))
        return drop_unused_locals(code)

    def _unwrap_broadcast(self, term):
        """`broadcast_like(t, z)` -> `t` when every term of the sum survives."""
        if isinstance(term, gast.Call) and isinstance(term.func, gast.Name) and \
                self.globals.get(term.func.id) is runtime.broadcast_like:
            return term.args[0]
        return term


def _renamed(bindings, variable, old):
    """The rule's bindings with `variable` read as `old` (None: unchanged)."""
    if old is None:
        return dict(bindings)
    rename = RenameVariable(variable, old)
    substituted = {}
    for name, atom in bindings.items():
        if isinstance(atom, list):
            substituted[name] = [rename.visit(build.clone(a)) for a in atom]
        elif isinstance(atom, dict):
            substituted[name] = {k: rename.visit(build.clone(a)) for k, a in atom.items()}
        else:
            substituted[name] = rename.visit(build.clone(atom))
    return substituted


def _rule_steps(instance, defaults):
    """(the rule's local statements, the expression it assigns to d[result] or None)."""
    if defaults:
        omit = OmitDefaults(defaults)
        instance.steps = [(step[0], omit.visit(step[1])) if step[0] == "local" else
                          (step[0], step[1], omit.visit(step[2])) for step in instance.steps]
    locals_, expression = [], None
    for step in instance.steps:
        if step[0] == "local":
            locals_.append(step[1])
        else:
            expression = step[2]
    return locals_, expression
