"""HoistNestedFunctions: a nested `def` (or a lambda bound to a name) becomes a callee of its own,
with the variables it captures passed as leading arguments, so gradients flow through them.

One passed to a call as an argument (`apply_twice(g, x)`) is passed as the hoisted function,
with what it captures bound first (`functools.partial(g_, c)`); the callee calls it as it
would any function it is given (dispatched as it runs, which refuses a function built from
values that carry a derivative: the callee's derivative would hold them constant). Bound
first, not when it is called as Python reads them: the same values where what it reads is
bound once, or where the callee (a function of yours) neither returns it nor stores it, so
calls it only while it runs; any other is refused at the call it is passed to."""
import ast
import copy
import functools

import gast

from .. import build
from ..analysis.call_results import _returned_parameters, is_user_function, mutated_parameters_of
from ..analysis.primitives import static_value
from ..frontend.parse import signature_of
from ..frontend.parse import ParsedFunction, register_synthetic
from ..traversal import loads, parameter_names, rewrite_blocks, walk


def _stores(node):
    return {n.id for n in walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, (gast.Store, gast.Param))}


def _statements(body):
    """Every statement of `body` at any depth, leaving out the bodies of nested functions."""
    for statement in body:
        yield statement
        if not isinstance(statement, gast.FunctionDef):
            for field in ("body", "orelse"):
                block = getattr(statement, field, None)
                if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                    yield from _statements(block)


def _bound_by(statement):
    """The names `statement` itself binds (a def its name; targets of assignments and loops)."""
    if isinstance(statement, gast.FunctionDef):
        return {statement.name}
    targets = getattr(statement, "targets", None) or [getattr(statement, "target", None)]
    return {n.id for t in targets if t is not None for n in walk(t)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def _stores_outside_functions(body):
    """The names the function binds, leaving out what its nested functions bind."""
    return set().union(set(), *(_bound_by(s) for s in _statements(body)))


def _binding_counts(body):
    """{name: how many statements of the function (nested functions left out) bind it}."""
    counts = {}
    for statement in _statements(body):
        for name in _bound_by(statement):
            counts[name] = counts.get(name, 0) + 1
    return counts


def _rebound(body, names, line):
    """Those of `names` the function binds more than once, in a loop (a loop's target too),
    or after `line`: a function reading one reads the value of the time it is called."""
    counts = _binding_counts(body)
    looped = set().union(set(), *(_stores_outside_functions([s]) for s in _statements(body)
                                  if isinstance(s, (gast.For, gast.While))))
    later = set().union(set(), *(_bound_by(s) for s in _statements(body)
                                 if (getattr(s, "lineno", 0) or 0) > line))
    return {n for n in names if counts.get(n, 0) > 1 or n in looped or n in later}


def _called(node):
    """The names `node` calls or passes to a call."""
    return {n.id for call in walk(node) if isinstance(call, gast.Call)
            for n in [call.func, *call.args, *(k.value for k in call.keywords)]
            if isinstance(n, gast.Name)}


class HoistNestedFunctions:
    """Move nested functions out of `parsed`'s body; returns (body, names to bind)."""

    def __init__(self, parsed, namer):
        self.parsed = parsed
        self.namer = namer

    def run(self, body, params):
        nested = self._nested(body)
        if not nested:
            return body, {}
        for node in nested.values():
            for inner in walk(node):
                if isinstance(inner, (gast.Nonlocal, gast.Global)):
                    keyword = "nonlocal" if isinstance(inner, gast.Nonlocal) else "global"
                    raise self.parsed.error(
                        inner, f"`{keyword}` in a nested function is not supported: it changes "
                        f"a variable of the enclosing function behind the transformer's back",
                        hint="return the new value from the nested function and assign it")
        outer_names = set(params) | set(self.parsed.closure) | _stores_outside_functions(body)
        hoistable = {name: node for name, node in nested.items()
                     if self._only_called_or_passed(name, body, nested, params)}
        defaults = {name: self._captured_defaults(node, outer_names)
                    for name, node in hoistable.items()}
        # a nested function that calls another one needs that one's captured variables too
        calls = {name: _called(node) & set(hoistable) - {name} for name, node in hoistable.items()}
        captured, hoisted_names, bound = {}, {}, {}
        partial = self.namer.fresh("partial")
        while True:
            ready = [n for n in hoistable if n not in hoisted_names and calls[n] <= set(captured)]
            if not ready:
                break                 # what is left calls itself round in a circle: refused later
            for name in ready:
                node = hoistable[name]
                inner = parameter_names(node) | _stores(gast.Module(body=node.body, type_ignores=[]))
                captured[name] = sorted(((loads(node) & outer_names) - inner - set(nested)).union(
                    *(captured[c] for c in calls[name])))
                hoisted_names[name] = name if name not in self.parsed.namespace \
                    else self.namer.fresh(name + "_")
                node = copy.deepcopy(node)
                # a recursive call passes on what it captured, as the calls from outside do
                recursive = [name] if captured[name] and not defaults[name] else []
                for callee in calls[name] | set(recursive):
                    node.body = [self._pass_captured(s, callee, hoisted_names[callee],
                                                     captured[callee], defaults[callee],
                                                     self._unpacked_call(callee), partial)
                                 for s in node.body]
                function = self._compile(node, hoisted_names[name], captured[name], {
                    partial: functools.partial,
                    **{hoisted_names[c]: bound[hoisted_names[c]] for c in calls[name]}})
                bound[hoisted_names[name]] = function
                self.parsed.namespace[hoisted_names[name]] = function
        hoisted = {id(getattr(nested[name], "replaces", nested[name])): [
            build.assign(held, default) for held, (_, default, _) in defaults[name].items()]
                   for name in hoisted_names}
        body = rewrite_blocks(body, lambda s: hoisted.get(id(s), [s]))
        for name, hoisted_name in hoisted_names.items():
            body = [self._pass_captured(s, name, hoisted_name, captured[name], defaults[name],
                                        self._unpacked_call(name), partial)
                    for s in body]
        if any(isinstance(n, gast.Name) and n.id == partial for s in body for n in walk(s)):
            bound[partial] = functools.partial
        return body, bound

    def _nested(self, body):
        """{name: the nested function (a lambda as a def)} of the nested functions and lambdas
        bound to a name, at any depth, whose name nothing else binds."""
        nested = {}
        for statement in _statements(body):
            if isinstance(statement, gast.FunctionDef) and not statement.decorator_list:
                nested[statement.name] = statement
            elif isinstance(statement, gast.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], gast.Name) \
                    and isinstance(statement.value, gast.Lambda):
                lam = statement.value
                node = gast.FunctionDef(name=statement.targets[0].id, args=lam.args,
                                        body=[gast.copy_location(gast.Return(value=lam.body), lam.body)],
                                        decorator_list=[], returns=None, type_comment=None,
                                        type_params=[])
                nested[statement.targets[0].id] = gast.copy_location(node, statement)
                node.replaces = statement
        bindings = _binding_counts(body)
        return {name: node for name, node in nested.items() if bindings.get(name) == 1}

    def _captured_defaults(self, node, outer_names):
        """`def g(v, s=s)`: a default is the enclosing function's `s` when `g` is defined. Such
        defaults become `None` in the hoisted function, their values are held in fresh names
        bound where `g` was defined, and calls that leave the parameter out pass that name:
        {held name: (parameter, default expression)}."""
        held = {}
        params = node.args.args[len(node.args.args) - len(node.args.defaults):]
        pairs = list(zip(params, node.args.defaults)) + [
            (p, d) for p, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None]
        positions = {p.id: k for k, p in enumerate(node.args.args)}
        for param, default in pairs:
            if loads(default) & outer_names:
                held[self.namer.fresh(f"{node.name}_{param.id}")] = (
                    param.id, default, positions.get(param.id))
        none = gast.Constant(value=None, kind=None)
        node.args.defaults = [none if any(d is h[1] for h in held.values()) else d
                              for d in node.args.defaults]
        node.args.kw_defaults = [none if any(d is h[1] for h in held.values()) else d
                                 for d in node.args.kw_defaults]
        return held

    def _only_called_or_passed(self, name, body, nested, params):
        """Is every use of `name` in `body` a call or an argument of one (besides the
        statement that binds it)? Not one passed to s2s_ad's own transforms (JAX's closure
        idiom, `ad.grad(inner)(w0)`), refused at the def with the rewrite that works."""
        binding = getattr(nested[name], "replaces", None)
        allowed = {id(binding.targets[0])} if binding is not None else set()
        module = gast.Module(body=body, type_ignores=[])
        for call in walk(module):
            if isinstance(call, gast.Call):
                passed = [] if self._transform(call.func, params) else \
                    [*call.args, *(k.value for k in call.keywords)]
                if any(isinstance(n, gast.Name) and n.id == name for n in passed):
                    self._refuse_a_late_read(call, name, nested[name], body, params)
                allowed |= {id(n) for n in [call.func, *passed]
                            if isinstance(n, gast.Name) and n.id == name}
        return all(id(n) in allowed for n in walk(module)
                   if isinstance(n, gast.Name) and n.id == name)

    def _refuse_a_late_read(self, call, name, node, body, params):
        """`call` is passed the nested function `name`: refuse where it reads a variable bound
        again (or in a loop) and the callee may keep it to call after that variable changes."""
        rebound = sorted(_rebound(body, loads(node) - parameter_names(node),
                                  getattr(call, "lineno", 0) or 0))
        if not rebound or not self._may_keep(call, name, params):
            return
        label = "the lambda" if isinstance(getattr(node, "replaces", None), gast.Assign) \
            and name not in self.parsed.fn.__code__.co_varnames else f"`{name}`"
        raise self.parsed.error(
            call, f"{label} is passed to this call, which may keep it and call it later, and it "
                  f"reads `{rebound[0]}`, which this function binds again: Python would read the "
                  f"value of that later time, where s2s_ad passes the value of this one",
            hint=f"make `{rebound[0]}` a parameter of {label} and pass it where it is called, "
                 f"or bind `{rebound[0]}` once")

    def _may_keep(self, call, name, params):
        """May the function `call` is passed as `name` outlive it: returned, or stored in an
        argument? No only for a function of yours that does neither with that parameter."""
        try:
            fn = static_value(call.func, self.parsed, set(params))
        except (LookupError, AttributeError):
            return True
        if not is_user_function(fn) or mutated_parameters_of(fn, fn.__code__):
            return True
        returned = _returned_parameters(fn, fn.__code__)
        try:
            bound = signature_of(fn).bind(*call.args, **{k.arg: k.value for k in call.keywords})
        except TypeError:
            return True
        receiving = {p for p, a in bound.arguments.items()
                     if isinstance(a, gast.Name) and a.id == name}
        return returned is None or bool(receiving & set(returned))

    def _transform(self, func, params):
        """Is `func` one of s2s_ad's transforms (ad.grad, s2s_ad.jvp, ...)?"""
        try:
            value = static_value(func, self.parsed, set(params))
        except (LookupError, AttributeError):
            return False
        return (getattr(value, "__module__", None) or "").startswith("s2s_ad.")

    def _compile(self, node, name, captured, callees):
        """The hoisted function, compiled in the user's file; the nested functions it calls
        are closure variables of it, as they were of the original."""
        node = copy.deepcopy(node)
        node.name = name
        leading = [build.name(c, store=False) for c in captured]
        for arg in leading:
            arg.ctx = gast.Param()
        if node.args.posonlyargs:            # `def g(v, /)`: the captured values come first
            node.args.posonlyargs = leading + node.args.posonlyargs
        else:
            node.args.args = leading + node.args.args
        factory = gast.FunctionDef(
            name="__hoist", args=gast.arguments(
                args=[gast.Name(id=c, ctx=gast.Param(), annotation=None, type_comment=None)
                      for c in callees], posonlyargs=[], vararg=None, kwonlyargs=[],
                kw_defaults=[], kwarg=None, defaults=[]),
            body=[copy.deepcopy(node), gast.Return(value=build.name(name))], decorator_list=[],
            returns=None, type_comment=None, type_params=[])
        tree = gast.gast_to_ast(gast.Module(body=[factory], type_ignores=[]))
        ast.fix_missing_locations(tree)
        ast.increment_lineno(tree, self.parsed.first_line - 1)
        scope = {}
        exec(compile(tree, self.parsed.filename, "exec"), self.parsed.fn.__globals__, scope)
        function = scope["__hoist"](*callees.values())
        register_synthetic(function, ParsedFunction(
            fn=function, node=node, filename=self.parsed.filename, first_line=self.parsed.first_line,
            indent=self.parsed.indent, namespace=self.parsed.namespace,
            # a recursive one calls itself through the factory's cell: its code names itself
            closure={**callees, name: function}))
        return function

    @staticmethod
    def _pass_captured(statement, name, hoisted_name, captured, defaults, unpacked, partial):
        """Calls of `name` call `hoisted_name` with the captured variables first, and the
        held values of captured defaults their call leaves out; `name` passed as an argument
        is `hoisted_name` with those bound by `partial` (functools.partial)."""
        def as_value(node):
            if not (isinstance(node, gast.Name) and node.id == name):
                return node
            if not captured and not defaults:
                return build.name(hoisted_name)
            return gast.Call(func=build.name(partial), args=[
                build.name(hoisted_name), *(build.name(c) for c in captured)], keywords=[
                gast.keyword(arg=param, value=build.name(held))
                for held, (param, _, _) in defaults.items()])

        class Rewrite(gast.NodeTransformer):
            def visit_Call(self, node):
                self.generic_visit(node)
                node.args = [as_value(a) for a in node.args]
                for keyword in node.keywords:
                    keyword.value = as_value(keyword.value)
                if isinstance(node.func, gast.Name) and node.func.id == name:
                    node.func = build.name(hoisted_name)
                    given = {k.arg for k in node.keywords}
                    starred = any(isinstance(a, gast.Starred) for a in node.args)
                    if defaults and (starred or None in given):
                        raise unpacked(node)
                    node.keywords += [
                        gast.keyword(arg=param, value=build.name(held))
                        for held, (param, _, position) in defaults.items()
                        if param not in given and not starred
                        and (position is None or position >= len(node.args))]
                    node.args = [build.name(c) for c in captured] + node.args
                return node

        return Rewrite().visit(statement)

    def _unpacked_call(self, name):
        """The refusal of a call `name(*args)` or `name(**kw)` whose defaults read variables of
        the enclosing function: which parameters it leaves to them shows only as it runs."""
        def refusal(call):
            return self.parsed.error(
                call, f"cannot differentiate this call of `{name}` with `*` or `**` arguments: a "
                f"default of its parameters reads a variable of the enclosing function",
                hint=f"pass the parameters by name, or pass that variable at the call")
        return refusal
