"""Calls without a tangent rule: into a user function (`y, dy = jvp_g(a, b, (da, db))`), into
a callee known only at run time (`jvp_call`), and reverse-mode code's own run-time dispatch
(`vjp_call`, differentiated through `jvp_vjp_call`)."""
import inspect

import gast

from ... import build, cache, dispatch, rules
from ...analysis import call_results
from ...errors import TransformError
from ...calls import (CalleeDerivative, CalleeTangent, call_site_operands, default_argument,
                      resolver, takes_sequences)
from ...frontend.parse import signature_of
from ...frontend.variadic import variadic_call_form


def _none_constant():
    return gast.Constant(value=None, kind=None)


def _vjp_call_signature(fn, args, kwargs, seed, active, where=None):
    """The parameters of s2s_ad.dispatch.vjp_call, for binding a call site."""


def _resolve_callee(fn):
    """The user's function behind a finished recursive derivative or a generated wrapper."""
    if isinstance(fn, cache._Pending) and fn.key in cache._cache:
        return cache._cache[fn.key].function      # a recursive derivative, finished since
    if not isinstance(fn, type) and getattr(fn, "__s2s_generated__", None) is not None:
        return fn.__s2s_generated__.function      # a generated derivative, behind a wrapper
    return fn


def _known_only_at_run_time(fn):
    """A method, an unknown callee or a callable object: dispatched when the derivative runs."""
    return fn is None or isinstance(fn, rules.method) or (
        not inspect.isbuiltin(fn) and not isinstance(fn, type) and callable(fn)
        and not hasattr(fn, "__array_ufunc__"))


class CallEmitter:
    """Part of ForwardMode: the tangent of `y = g(...)` where g has no tangent rule."""

    def call(self, statement, variable, primitive, state):
        """`y = g(a, b)` for a user function g: `y, dy = jvp_g(a, b, (da, db))`; None when
        this is no call forward mode can follow."""
        fn = _resolve_callee(primitive.key)
        call = statement.value
        if not isinstance(call, gast.Call):
            return None
        if fn is dispatch.vjp_call:
            return self.tangent_of_vjp_call(statement, variable, state)
        if any(isinstance(a, gast.Starred) for a in call.args):
            raise self.parsed.error(call, "cannot differentiate a call with *args unpacking",
                                    hint="pass the arguments one by one")
        if not call_results.is_user_function(fn):
            if _known_only_at_run_time(fn):
                return self.dynamic_call(statement, variable, primitive, state)
            return None
        reverse = primitive.key if isinstance(primitive.key, CalleeDerivative) else None
        return self.user_call(statement, variable, fn, state, reverse)

    def user_call(self, statement, variable, fn, state, reverse=None):
        call = statement.value
        fn = variadic_call_form(fn, call)
        arguments, wanted, tangents = self._bound_arguments(call, fn, state)
        try:
            function = dispatch.derive(fn, "forward", wanted)
        except TransformError as exc:
            raise exc.called_from(f"{self.parsed.where(call)} (in {self.parsed.name})") from None
        # the callee's derivative as it is now, bound for good: stale with what it reads
        callee = reverse.callee if reverse is not None else fn
        self.made_from += [(None, callee, callee.__code__, cache.read_values(callee))] + list(
            getattr(getattr(function, "__s2s_generated__", None), "inlined", ()))
        if isinstance(call.func, gast.Attribute):
            # `module.f`: followed at each call, where `module.f = g` may rebind it
            function = CalleeTangent(fn, wanted, function, reverse,
                                     resolver(self, call.func, fn))
        elif reverse is not None:
            # reverse-mode code's callee, which follows `module.f = g` (hvp): followed too
            function = CalleeTangent(fn, wanted, function, reverse)
        elif takes_sequences(fn):
            function = next((v for v in self.globals.values() if isinstance(v, CalleeTangent)
                             and v.function is function), None) or \
                CalleeTangent(fn, wanted, function, reverse)
        label = fn.__name__ if fn.__name__.isidentifier() else "lambda"
        name = self.global_name(f"jvp_{label}", function)
        tangent = tangents[0] if len(tangents) == 1 else gast.Tuple(elts=tangents, ctx=gast.Load())
        invoke = gast.Call(func=build.name(name), args=arguments + [tangent], keywords=[])
        return self._value_and_tangent(statement, variable, invoke)

    def _bound_arguments(self, call, fn, state):
        """(every argument of fn at this call, defaults filled in; the parameters that get a
        tangent; those tangents)."""
        signature = signature_of(fn)
        operands = call_site_operands(self.parsed, call, fn, signature)
        arguments, wanted, tangents = [], [], []
        for name, parameter in signature.parameters.items():
            if name in operands:
                atom = build.clone(operands[name])
            else:
                atom = default_argument(self, fn, name)
            arguments.append(atom)
            found = self.tangent_of_atom(atom, state)
            if found is not None:
                wanted.append(name)
                tangents.append(found)
        return arguments, wanted, tangents

    def _value_and_tangent(self, statement, variable, invoke):
        """`v, dv = <invoke>`, at the user's line."""
        targets = gast.Tuple(elts=[build.name(variable, store=True),
                                   build.name(self.tangent_name(variable), store=True)],
                             ctx=gast.Store())
        return [gast.copy_location(build.assign(targets, invoke), statement)]

    def tangent_of_vjp_call(self, statement, variable, state):
        """Reverse-mode code's run-time dispatch `vjp_call(...)`: forward mode over the callee's
        vjp, through `jvp_vjp_call`."""
        call = statement.value
        try:
            bound = inspect.signature(_vjp_call_signature).bind(*call.args, **{
                k.arg: k.value for k in call.keywords})
        except TypeError:
            return None
        bound.apply_defaults()
        arguments = [build.clone(bound.arguments[n]) for n in ("fn", "args", "kwargs", "seed", "active")]
        tangents = [self.entry_tangents(bound.arguments[n], state) for n in ("args", "kwargs")]
        seed = self.tangent_of_atom(bound.arguments["seed"], state)
        tangents.append(seed or _none_constant())
        invoke = gast.Call(func=build.name(self.helper(dispatch.jvp_vjp_call)),
                           args=arguments + tangents, keywords=[])
        return self._value_and_tangent(statement, variable, invoke)

    def entry_tangents(self, atom, state):
        """The tangent of the arguments `atom` that run-time dispatch receives, None for an
        entry without one: a materialized zero would make the callee's derivative treat a
        constant as varied (`0 * log(x)` is nan for x < 0 in the power rule)."""
        literal = self.literals.get(atom.id) if isinstance(atom, gast.Name) else None
        def tangent_or_none(entry):
            return self.tangent_of_atom(entry, state) or _none_constant()
        if isinstance(literal, gast.Tuple):
            return gast.Tuple(elts=[tangent_or_none(e) for e in literal.elts], ctx=gast.Load())
        if isinstance(literal, gast.Dict):
            return gast.Dict(keys=[build.clone(k) for k in literal.keys],
                             values=[tangent_or_none(v) for v in literal.values])
        return tangent_or_none(atom)

    def dynamic_call(self, statement, variable, primitive, state):
        """A callee known only at run time (a method, a callable argument): `jvp_call`."""
        call = statement.value
        if primitive.key is not None and not isinstance(primitive.key, rules.method) \
                and not call_results.is_callable_instance(primitive.key) \
                and not call_results.reached_through_a_wrapper(primitive.key):
            return None         # named in the source, without a rule: refused now, with its line
        active, tangents = self._active_operands(call, state)
        if isinstance(primitive.key, rules.method) and \
                call_results.method_of_a_user_class(primitive, self.parsed):
            owner = self.tangent_of_atom(primitive.args[0], state)
            if owner is not None:           # `p.energy(x)`: `self` is numbered -1
                active, tangents = [gast.Constant(value=-1, kind=None)] + active, \
                    [owner] + tangents
        if not tangents:
            return None
        helper = self.helper(dispatch.jvp_call)
        invoke = gast.Call(func=build.name(helper), keywords=[], args=[
            build.clone(call.func), gast.Tuple(elts=[build.clone(a) for a in call.args],
                                                 ctx=gast.Load()),
            gast.Dict(keys=[gast.Constant(value=k.arg, kind=None) for k in call.keywords],
                      values=[build.clone(k.value) for k in call.keywords]),
            gast.Tuple(elts=tangents, ctx=gast.Load()), gast.Tuple(elts=active, ctx=gast.Load()),
            gast.Constant(value=self._where(call), kind=None)])
        return self._value_and_tangent(statement, variable, invoke)

    def _active_operands(self, call, state):
        """(positions and keywords of the arguments with a tangent, as constants; the tangents)."""
        active, tangents = [], []
        for position, atom in enumerate(call.args):
            found = self.tangent_of_atom(atom, state)
            if found is not None:
                active.append(gast.Constant(value=position, kind=None))
                tangents.append(found)
        for keyword in call.keywords:
            found = self.tangent_of_atom(keyword.value, state)
            if found is not None:
                active.append(gast.Constant(value=keyword.arg, kind=None))
                tangents.append(found)
        return active, tangents

    def _where(self, node):
        """'file:line:col' of `node` in the user's file, for run-time refusals."""
        line, col = self.parsed.location(node)
        return f"{self.parsed.filename}:{line}:{col + 1}"
