"""From a user function to the source and the compiled code of its derivative."""
import functools
import types
from collections import Counter
import gc
from dataclasses import dataclass

import gast
import numpy as numpy_module

from . import build, cache, calls, closure_templates, emit, runtime
from . import optimize as optimizer
from .analysis.call_results import results_of_user_calls
from .analysis.container_kinds import container_kinds
from .analysis.dtypes import bindings
from .analysis.primitives import is_static, static_value
from .errors import TransformError
from .frontend import parse_function
from .naming import Namer
from .optimize.dead_stores import DeadStores
from .traversal import identifiers, loads, walk
from .passes.hoist_nested_functions import HoistNestedFunctions
from .passes.inline_factories import InlineFactories
from .passes.inline_helpers import InlineHelpers, inlined_so_far
from .passes.defer_lazy_iterators import DeferLazyIterators
from .passes.lower_comprehensions import LowerComprehensions
from .passes.lower_dict_views import LowerDictViews
from .passes.lower_for_loops import LowerForLoops
from .passes.lower_frozen_distributions import LowerFrozenDistributions
from .passes.lower_jumps import LowerJumps
from .passes.lower_live_list_loops import LowerLiveListLoops
from .passes.lower_loop_else import LowerLoopElse
from .passes.lower_unpacked_iterables import LowerUnpackedIterables
from .passes.lower_named_expressions import LowerNamedExpressions
from .passes.lower_neutral_statements import LowerNeutralStatements
from .passes.lower_strict_zips import LowerStrictZips
from .passes.lower_generators import GuardGeneratorCalls, LowerGenerators
from .passes.lower_zips import LowerZips
from .passes.name_called_lambdas import NameCalledLambdas
from .passes.lower_accumulations import LowerAccumulations
from .passes.lower_builtin_calls import LowerBuiltinCalls
from .passes.lower_no_grad import LowerNoGrad
from .passes.lower_record_constructors import LowerRecordConstructors
from .passes.lower_reduction_keywords import LowerReductionKeywords
from .passes.lower_sequence_updates import LowerSequenceUpdates
from .passes.lower_scope_statements import LowerScopeStatements
from .passes.lower_sequence_arithmetic import LowerSequenceArithmetic
from .passes.lower_ufunc_methods import LowerUfuncMethods
from .passes.lower_ufunc_where import LowerUfuncWhere
from .passes.read_sequences_as_arrays import (ReadSequencesAsArrays, array_parameters,
                                              sequence_names)
from .passes.use_definitions import UseDefinitions
from .passes.normal_form import ToNormalForm, tuple_lengths
from .passes.guard_aliased_updates import GuardAliasedUpdates
from .passes.write_back_views import WriteBackViews
from .passes.resync_container_aliases import ResyncContainerAliases
from .passes.in_place_conversions import InPlaceConversions
from .passes.name_out_arguments import NameOutArguments
from .passes.refuse_unsupported import RefuseUnsupported
from .analysis.activity import assigned_names
from .analysis.module_callees import module_attributes_called
from .modes.reverse import ReverseMode
from .modes.reverse.split import split_vjp


@dataclass
class Generated:
    """A derivative function together with the source it was compiled from."""

    function: object
    source: str
    name: str
    globals: dict
    params: list
    wrt: tuple
    # parameter -> the refusal to raise when its argument is complex (passes/refuse_complex.py)
    complex_refusals: dict = None
    # (name, function, code) of each helper inlined: stale once the name is bound to another
    inlined: tuple = ()
    # (module namespace, name, value) of each `module.name(...)` called: stale once rebound
    module_attributes: tuple = ()

    @property
    def checked(self):
        """Is there anything to check at each call (cache.inlined_current)?"""
        return bool(self.inlined or self.module_attributes)


def _collector_paused(transform):
    """Run `transform` with the cyclic garbage collector off: a long function's transform
    makes a million short-lived tree nodes, none in a cycle, and the collector would scan
    them over and over (a fifth of the time)."""
    @functools.wraps(transform)
    def paused(*args, **kwargs):
        enabled = gc.isenabled()
        gc.disable()
        try:
            return transform(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()
    return paused


def _helpers_inlined_or_called(transform):
    """Run `transform` with small helpers inlined (passes/inline_helpers.py); where that
    fails after inlining one, without: the error is then the one a call into it gives."""
    @functools.wraps(transform)
    def run(*args, **kwargs):
        before = inlined_so_far()
        try:
            return transform(*args, **kwargs)
        except TransformError:
            if inlined_so_far() == before:
                raise
            return transform(*args, inline=False, **kwargs)
    return run


def _parameters(node):
    args = node.args
    return [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]


def _name_out_arguments(parsed, params, wrt):
    """The body with each `out` array passed by position passed as `out=` (NameOutArguments)."""
    local_names = set(params) | set(assigned_names(parsed.node.body))
    return NameOutArguments(lambda node: _static_or_none(node, parsed, local_names),
                            parsed.out_positions, bindings(parsed.node.body, params),
                            wrt).run(parsed.node.body)


def normalize(parsed, namer, in_place_accumulation=True, wrt=(), kinds=None, inline=True):
    """Run the passes that bring a parsed function to normal form; returns (body, local names).
    Without `in_place_accumulation`, generated code's `add_at(d, i, g)` becomes an assignment
    (reverse mode has no rule for the in-place form; forward mode has). `kinds`: what the
    arguments are (analysis.kinds), or None. `inline`: copy small helpers' statements in
    (passes/inline_helpers.py)."""
    params = _parameters(parsed.node)

    def is_no_grad(item):
        try:
            return static_value(item.context_expr.func, parsed, set(params)) is runtime.no_grad
        except (LookupError, AttributeError):
            return False

    parsed.node.body = _name_out_arguments(parsed, params, wrt)
    masked = _lower_ufunc_where(parsed, namer, params)
    parsed.node.body = LowerStrictZips(parsed.namespace, namer, set(params) | set(
        assigned_names(parsed.node.body))).run(parsed.node.body)
    GuardGeneratorCalls(parsed, params).check(parsed.node.body)
    parsed.node.body = LowerGenerators(parsed, namer).run(parsed.node.body)
    parsed.node.body = _defer_lazy_iterators(parsed, namer, params)
    parsed.node.body = LowerNamedExpressions(parsed, namer).run(parsed.node.body)
    parsed.node.body = NameCalledLambdas(namer, parsed.namespace).run(parsed.node.body)
    body = _inline_callees(parsed, namer, params, inline)
    body, imported = LowerScopeStatements(parsed).run(body)
    body, hoisted = HoistNestedFunctions(parsed, namer).run(body, params)
    body = LowerNeutralStatements(parsed, namer, set(params) | set(assigned_names(body))).run(body)
    parsed.node.body = body
    RefuseUnsupported(parsed, allowed_with=[is_no_grad]).check()
    stop_gradient = namer.fresh("stop_gradient") if parsed.namespace.get("stop_gradient") \
        is not runtime.stop_gradient else "stop_gradient"
    parsed.namespace[stop_gradient] = runtime.stop_gradient
    lowering = LowerNoGrad(is_no_grad, stop_gradient)
    body = [lowering.visit(s) for s in body]
    body = [x for s in body for x in (s if isinstance(s, list) else [s])]
    body = _lower_iterables(parsed, namer, params, body)
    body = LowerComprehensions(namer, parsed.namespace).run(body)
    body = LowerSequenceUpdates(parsed, namer).run(body, params)
    body, library_functions = _lower_library_calls(parsed, namer, params, body,
                                                   in_place_accumulation)
    body, checks = _guard_aliases(parsed, namer, params, body)
    body = LowerLoopElse(namer).run(body)
    local_names = set(params) | set(assigned_names(body))
    dicts = {n for n, kind in container_kinds(body, params, parsed.namespace).items()
             if kind == "dict"}
    loops = LowerForLoops(parsed, namer, local_names, tuple_lengths(body), dicts)
    body = loops.keys_of_dicts(body)
    body = [x for s in body for x in (lambda r: r if isinstance(r, list) else [r])(loops.visit(s))]
    body = LowerJumps(namer).run(body)
    local_names = set(params) | set(assigned_names(body))
    conversions = InPlaceConversions(parsed, namer, params, wrt,
                                     lambda node: _static_or_none(node, parsed, local_names))
    anf = ToNormalForm(parsed, namer, lambda node: is_static(node, parsed, local_names),
                       conversions)
    body = anf.run(body)
    body, as_arrays = _sequences_as_values(parsed, namer, params, body, kinds)
    extra = {stop_gradient: runtime.stop_gradient, **checks, **conversions.bound,
             **masked, **library_functions, **imported, **hoisted, **as_arrays}
    return body, params, extra


def _inline_callees(parsed, namer, params, inline):
    """The body with the factories it calls inlined, and with `inline`, its small helpers."""
    body = InlineFactories(parsed, namer).run(parsed.node.body)
    if inline and not parsed.generated:
        body = InlineHelpers(parsed, namer, set(params) | set(assigned_names(body))).run(body)
    return body


def _sequences_as_values(parsed, namer, params, body, kinds):
    """The normal-form body with lists and tuples joined as the values they make
    (passes/lower_sequence_arithmetic.py) and each a ufunc reads spelled `np.asarray(xs)`
    (passes/read_sequences_as_arrays.py); and the names these bind."""
    local_names = set(params) | set(assigned_names(body))
    access = _LibraryAccess(parsed, namer, local_names)
    sequences = sequence_names(body, params, parsed.namespace, kinds)
    maybe = results_of_user_calls(body, parsed, local_names, sequences) - sequences
    if sequences:
        body = LowerSequenceArithmetic(
            sequences, lambda: access.bind("joined", runtime.joined)).run(body)
    else:
        body = LowerSequenceArithmetic().run(body)
    if sequences or maybe:
        body = ReadSequencesAsArrays(access.resolve, lambda: access.numpy("asarray"),
                                     lambda: build.name(access.bind("read_as_array",
                                                                    runtime.read_as_array)),
                                     namer, sequences, maybe,
                                     array_parameters(body, params, kinds)).run(body)
    return body, access.bound


def _reads_sequences_as_arrays(bound):
    """Did normalize read a name as an array (`np.asarray(xs)`, runtime.read_as_array,
    runtime.joined): there an array's kind changes what is read so (array_parameters)."""
    return any(v is numpy_module.asarray or v is runtime.read_as_array or v is runtime.joined
               for v in bound.values())


def _defer_lazy_iterators(parsed, namer, params):
    body = parsed.node.body
    dicts = {n for n, kind in container_kinds(body, params, parsed.namespace).items()
             if kind == "dict"}
    return DeferLazyIterators(parsed, namer, set(params) | set(assigned_names(body)),
                              dicts).run(body)


def _guard_aliases(parsed, namer, params, body):
    """`body` with the updates through a second name guarded (arrays) or followed (lists and
    dicts), and the run-time helpers it calls, by name: (body, {name: helper})."""
    check_rebinds = namer.fresh("check_rebinds")
    parsed.namespace[check_rebinds] = runtime.check_rebinds
    same_array = namer.fresh("same_array")
    parsed.namespace[same_array] = runtime.same_array
    written_through = namer.fresh("written_through")
    parsed.namespace[written_through] = runtime.written_through
    with_entry = namer.fresh("with_entry")
    parsed.namespace[with_entry] = runtime.with_entry
    body = WriteBackViews(parsed, written_through, with_entry, namer).run(body)
    guard = GuardAliasedUpdates(parsed, params, check_rebinds, same_array, namer)
    body = ResyncContainerAliases(parsed, params).run(guard.run(body))
    checks = {check_rebinds: runtime.check_rebinds, same_array: runtime.same_array,
              written_through: runtime.written_through, with_entry: runtime.with_entry}
    if guard.other_entries_name:
        checks[guard.other_entries_name] = runtime.other_entries
    return body, checks


def _lower_iterables(parsed, namer, params, body):
    """The passes that spell iterables (dict views, unpacked iterators, lists walked while
    they change, zips) as what the later passes read: lists, and loops over positions."""
    names = set(params) | set(assigned_names(body))
    kinds = container_kinds(body, params, parsed.namespace)
    body = LowerUnpackedIterables(parsed, namer, names, kinds).run(body)
    body = LowerDictViews(lambda node: static_value(node, parsed, names), namer).run(body)
    body = LowerLiveListLoops(parsed, namer, names, kinds).run(body)
    return LowerZips(parsed.namespace, namer, names, tuple_lengths(body)).run(body)


def _static_or_none(node, parsed, local_names):
    try:
        return static_value(node, parsed, local_names)
    except LookupError:
        return None


class _LibraryAccess:
    """What the passes that respell library calls share: `resolve(node)`, the global object a
    chain (`np.add`) stands for; `bind(name, value)`, `value` made reachable from generated code
    under a fresh name, which it returns (`bound` keeps them); `numpy(name)`, an expression for
    NumPy's `name`."""

    def __init__(self, parsed, namer, local_names):
        self.parsed, self.namer, self.local_names = parsed, namer, local_names
        self.bound = {}

    def bind(self, name, value):
        fresh = next((k for k, v in self.bound.items() if v is value), None) \
            or self.namer.fresh(name)
        self.parsed.namespace[fresh] = self.bound[fresh] = value
        return fresh

    def resolve(self, node):
        return static_value(node, self.parsed, self.local_names)

    def numpy(self, name):
        """`np.name` where the function's module reads NumPy as `np`, else a name of its own."""
        module = next((k for k, v in self.parsed.namespace.items() if v is numpy_module
                       and k not in self.local_names and k.isidentifier()), None)
        if module is not None:
            return gast.Attribute(value=build.name(module), attr=name, ctx=gast.Load())
        return build.name(self.bind(name, getattr(numpy_module, name)))


def _lower_ufunc_where(parsed, namer, params):
    """The function's ufunc calls with `where=` and a fresh `out=` spelled with what has rules
    (before named expressions are lowered: it writes some); the names it binds."""
    access = _LibraryAccess(parsed, namer, set(params) | set(assigned_names(parsed.node.body)))
    parsed.node.body = LowerUfuncWhere(access.resolve, access.bind, access.numpy, namer,
                                       parsed).run(parsed.node.body)
    return access.bound


def _lower_library_calls(parsed, namer, params, body, in_place_accumulation):
    """The body with ufunc methods, reduction keywords, `dict(k=v)` and `reversed(xs)` spelled
    with what has rules, and calls of NumPy functions defined by s2s_ad (np.cov) calling those
    definitions; and the names these are bound to."""
    access = _LibraryAccess(parsed, namer, set(params) | set(assigned_names(body)))
    resolve, bind = access.resolve, access.bind
    body = LowerFrozenDistributions(resolve, bind, namer).run(body)
    body = LowerUfuncMethods(resolve, bind).run(body)
    body = LowerReductionKeywords(resolve, access.numpy, bind).run(body)
    body = LowerBuiltinCalls(resolve, bind).run(body)
    body = LowerRecordConstructors(resolve, bind).run(body)
    if not in_place_accumulation:
        body = LowerAccumulations(resolve, bind).run(body)
    return UseDefinitions(resolve, bind).run(body), access.bound


def made_once(generated, key, make):
    """`make()`, once per generated derivative and `key`: the function `as_function` gives
    for it. A new function at each call would be a new function to the cache, differentiated
    again at each call of a function that makes `grad(f)` inside what is differentiated (a
    Newton step's `lambda r: grad(loglike)(r, p(r))`). `key` holds the ids of the defaults
    the function is given, which it keeps alive."""
    made = generated.__dict__.setdefault("made_once", {})
    found = made.get(key)
    if found is None:
        # a derivative made from a template (closure_templates) gets its function from the
        # one made first for the template's kind: the same code, so a cache key alike
        template = generated.__dict__.get("template", generated)
        first = template.__dict__.setdefault("first_made", {})
        found = made[key] = (_made_like(first[key], generated) if key in first else None) \
            or make()
        first.setdefault(key, (found, generated.function))
    return found


def _made_like(first, generated):
    """The function `first` (made, generated code calling `maker`) made again by its factory,
    calling `generated.function` in its place; made anew (`None`) where it binds anything
    else made for `maker`'s closure."""
    function, maker = first
    factory, names, values = function.__s2s_factory__
    if not all(v is maker or closure_templates.is_static(v) for v in values):
        return None
    values = tuple(generated.function if v is maker else v for v in values)
    made = factory(*values)
    made.__s2s_source__ = function.__s2s_source__
    made.__s2s_factory__ = (factory, names, values)
    made.__defaults__, made.__kwdefaults__ = function.__defaults__, function.__kwdefaults__
    return made


def defaults_of(signature):
    """The defaults of `signature`'s parameters, in order."""
    return tuple(p.default for p in signature.parameters.values() if p.default is not p.empty)


def nestable(generated, mode, signature, fn, direction=None, has_aux=False):
    """`grad_<f>(...)` (or `value_and_grad_`, `vjp_`, `jvp_`) as real Python source calling the
    generated `vjp_<f>` or `jvp_<f>`, so it can be differentiated. `direction` names the
    keyword the user passes the seed or tangent as (`seed`, `tangent`); without it the seed
    is None (a scalar output), or HAS_AUX for an `f` that returns (loss, aux). Made once per
    derivative and form (made_once)."""
    key = ("nestable", mode, tuple(signature.parameters), tuple(map(id, defaults_of(signature))),
           direction, has_aux)
    return made_once(generated, key, lambda: _nestable(generated, mode, signature, fn,
                                                       direction, has_aux))


def _nestable(generated, mode, signature, fn, direction, has_aux):
    params = list(signature.parameters)
    base = generated.name.split("_", 1)[1]
    name = f"{mode}_{base}" if f"{mode}_{base}" != generated.name else f"{mode}_of_{base}"
    picked = "gradients" if mode == "grad" else "(value, gradients)"
    if has_aux and mode == "grad":
        picked = "(gradients, value[1])"          # as grad(f, has_aux=True) returns it
    seed = direction or ("HAS_AUX" if has_aux else None)
    header = params + ([f"{direction}=None"] if direction else [])
    source = (f"def {name}({', '.join(header)}):\n"
              f"    value, gradients = {generated.name}({', '.join(params)}, {seed})\n"
              f"    return {picked}\n")
    defaults = defaults_of(signature)
    bound = {generated.name: generated.function}
    if has_aux:
        bound["HAS_AUX"] = runtime.HAS_AUX
    function = emit.compile_function(source, name, bound, fn.__globals__)
    if defaults:
        function.__defaults__ = tuple(defaults) + ((None,) if direction else ())
    return function


def nestable_jacobian(generated, signature, fn, wrt_names, single):
    """`jacobian_<f>(...)` as real Python source, one `jvp_<f>` per column (a unit tangent),
    so the Jacobian itself can be differentiated: `jacobian(jacobian(f))`. Made once per
    derivative and form (made_once)."""
    key = ("jacobian", tuple(signature.parameters), tuple(map(id, defaults_of(signature))),
           tuple(wrt_names), single)
    return made_once(generated, key, lambda: _nestable_jacobian(generated, signature, fn,
                                                                wrt_names, single))


def _nestable_jacobian(generated, signature, fn, wrt_names, single):
    params = list(signature.parameters)
    namer = Namer(params + [generated.name])
    np, columns, j, unit, value, column = (namer.fresh(n) for n in (
        "np", "columns", "j", "unit", "value", "column"))
    name = namer.fresh(f"jacobian_{generated.name[len('jvp_'):]}")
    lines = [f"def {name}({', '.join(params)}):"]
    results = []
    for k, wrt in enumerate(wrt_names):
        tangents = [f"{np}.zeros_like({w})" for w in wrt_names]
        tangents[k] = f"{np}.reshape({unit}, {np}.shape({wrt}))"
        tangent = tangents[0] if single else "(" + ", ".join(tangents) + ",)"
        results.append(namer.fresh(f"jacobian_{wrt}"))
        lines += [f"    {columns} = []",
                  f"    for {j} in range({np}.size({wrt})):",
                  f"        {unit} = {np}.zeros_like({np}.ravel({wrt}))",
                  f"        {unit}[{j}] = 1.0",
                  f"        {value}, {column} = {generated.name}({', '.join(params)}, {tangent})",
                  f"        {columns}.append({np}.ravel({column}))",
                  f"    {results[-1]} = {np}.reshape({np}.stack({columns}, axis=-1), "
                  f"{np}.shape({value}) + {np}.shape({wrt}))"]
    lines.append(f"    return {results[0] if single else '(' + ', '.join(results) + ',)'}")
    function = emit.compile_function("\n".join(lines) + "\n", name,
                                     {generated.name: generated.function, np: numpy_module},
                                     fn.__globals__)
    defaults = defaults_of(signature)
    if defaults:
        function.__defaults__ = defaults
    return function


def _finish(node, name, parsed, params, wrt_names, bound, optimize, reshape=None, shapes=None,
            token=None, returns_value=True):
    """Optimize, emit and compile a generated FunctionDef; `bound` maps the names it needs
    besides the user's module globals to their objects; `reshape` changes the optimized node;
    `shapes`: the analysis.shapes facts of the function, if known; `token(name)`: the shape
    token of a name of the generated code (by default, of the function's own names)."""
    if optimize:
        def resolve(identifier):
            return bound[identifier] if identifier in bound else parsed.resolve(identifier)
        node = optimizer.optimize(node, bound, shapes and shapes.entry_is_number,
                                  shapes and shapes.is_container, token or shapes and shapes.token,
                                  resolve, calls.split_positions, returns_value,
                                  shapes and shapes.passed_plain)
    if reshape is not None:
        node = reshape(node, bound)
    source = emit.to_source(node)
    candidates = {**bound, **parsed.closure}
    function = emit.compile_function(source, name, candidates, parsed.fn.__globals__)
    # the names the code reads from the factory around it are the free variables it closes over
    bound = {k: v for k, v in candidates.items() if k in function.__code__.co_freevars}
    generated = Generated(function, source, name, bound, params, tuple(wrt_names))
    generated.closure_names = frozenset(parsed.closure)
    generated.recompute_twin = None
    generated.inlined = tuple((called, helper, helper.__code__, cache.read_values(helper))
                              for called, helper in parsed.inlined)
    generated.module_attributes = module_attributes_called(parsed.node, parsed.resolve)
    function.__s2s_generated__ = generated
    return generated


@_helpers_inlined_or_called
@_collector_paused
def reverse_mode(fn, wrt_names, function_name=None, optimize=True, calls_once=True, split=False,
                 kinds=None, inline=True, value=True):
    """Generate `vjp_<f>(*params, seed=None) -> (value, gradients)` for `fn`; with `split`,
    `fwd_<f>(*params) -> (value, backward)` (modes/reverse/split.py); without `value`,
    `grad_<f>(*params) -> gradients`, which computes no more of the value than the gradient
    needs. With `calls_once`, a call into a user function runs once: the caller keeps the
    callee's backward pass. Such code holds closures, so where a derivative is itself
    differentiated, its recomputing twin (`calls_once=False`: the backward pass calls the
    callee's vjp) is read instead. `kinds` are what the arguments were at the first call
    (analysis.shapes.kind_of), or None."""
    parsed = parse_function(fn)
    namer = Namer(identifiers(parsed.node) | set(parsed.namespace))
    body, params, extra = normalize(parsed, namer, in_place_accumulation=False, wrt=wrt_names,
                                   kinds=kinds, inline=inline)
    prefix = "fwd" if split else "vjp" if value else "grad"
    name = function_name or namer.fresh(f"{prefix}_{parsed.name}")
    bound = dict(extra)
    callee = functools.partial(calls.adjoint_of_call, once=calls_once)
    transform = ReverseMode(parsed, body, params, list(wrt_names), namer, bound, callee=callee,
                            kinds=kinds, value=value)
    node = transform.build(name)
    reshape = (lambda node, names: split_vjp(node, transform.seed, namer.fresh("backward"), names,
                                             namer.fresh)) \
        if split else None
    generated = _finish(node, name, parsed, params, wrt_names, bound, optimize, reshape,
                        transform.shapes, returns_value=value)
    generated.inlined = _stale_with(generated.inlined, fn, bound)
    generated.complex_refusals = transform.complex_refusals
    # with no kinds, the parameters an array's kind would change the code for (CalleeSplit)
    generated.array_parameters_read = None if kinds is not None else \
        frozenset(params) if _reads_sequences_as_arrays(extra) else transform.array_parameters_read
    if calls_once and not split and value and calls.kept_backward_passes(bound):
        generated.recompute_twin = functools.partial(
            cache.derivative, fn, "reverse-recompute", tuple(wrt_names),
            functools.partial(reverse_mode, calls_once=False))
    return generated


@_helpers_inlined_or_called
@_collector_paused
def forward_mode(fn, wrt_names, function_name=None, optimize=True, kinds=None, reshape=None,
                 inline=True):
    """Generate `jvp_<f>(*params, tangent) -> (value, tangent of the value)` for `fn`;
    `kinds` as for reverse_mode; `reshape` changes the optimized node (hvp_mode)."""
    from .modes.forward import ForwardMode
    parsed = parse_function(fn)
    namer = Namer(identifiers(parsed.node) | set(parsed.namespace))
    body, params, extra = normalize(parsed, namer, wrt=wrt_names, kinds=kinds, inline=inline)
    name = function_name or namer.fresh(f"jvp_{parsed.name}")
    bound = dict(extra)
    transform = ForwardMode(parsed, body, params, list(wrt_names), namer, bound, kinds)
    node = transform.build(name)
    generated = _finish(node, name, parsed, params, wrt_names, bound, optimize, reshape,
                        token=transform.known_shapes and transform.known_shapes.token_of)
    generated.complex_refusals = transform.complex_refusals
    generated.inlined = _stale_with(generated.inlined + tuple(transform.made_from), fn, bound)
    return generated


def _stale_with(inlined, fn, bound):
    """`inlined` (Generated.inlined) with the helpers that the generated code `fn` is, calls
    from its closure (the readable function `grad(f)` gives, over `vjp_f`), or binds as a
    callee was made from: a derivative of a derivative is stale with them (`h.__defaults__`
    rebound under `grad(grad(f))`, hvp) and with what `f` reads and holds, each once: they
    are checked at every call."""
    sources = [fn] + [v for v in closure_templates.cell_values(fn)] + \
        [getattr(v, "callee", None) for v in bound.values()]
    made_from = inlined
    for source in sources:
        generated = getattr(source, "__s2s_generated__", None)
        made_from += tuple(getattr(generated, "inlined", None) or ())
        differentiated = (getattr(generated, "keepalive", None) or (None,))[0]
        if type(differentiated) is types.FunctionType:     # and the function it derives
            made_from += ((None, differentiated, differentiated.__code__,
                           cache.read_values(differentiated)),)
    distinct = {}
    for entry in made_from:
        distinct.setdefault((entry[0], id(entry[1])), entry)
    return tuple(distinct.values())


def hvp_mode(fn, wrt_names, function_name=None, optimize=True, kinds=None):
    """Forward mode over the generated `vjp_<f>`: `jvp_vjp_<f>(*params, seed, tangent)`,
    which returns the tangent of the gradient (the Hessian times `tangent`) alone, so that
    the gradient's own accumulation, which no tangent reads, is left out. `kinds` as for
    reverse_mode (the seed's is not known)."""
    reverse = cache.derivative(fn, "reverse-recompute", tuple(wrt_names),
                               functools.partial(reverse_mode, calls_once=False), kinds)
    kinds = None if kinds is None else tuple(kinds) + (None,)
    generated = forward_mode(reverse.function, wrt_names, function_name, optimize, kinds,
                             reshape=_the_product_only)
    # the user's lines first: the refusals of the reverse pass name them
    generated.complex_refusals = {**generated.complex_refusals, **reverse.complex_refusals}
    return generated


def _the_product_only(node, bound):
    """`return ((value, gradient), (d_value, d_gradient))` as `return d_gradient`, and the
    statements nothing returned reads any more dropped."""
    returned = node.body[-1].value
    if isinstance(returned, gast.Tuple) and len(returned.elts) == 2 and \
            isinstance(returned.elts[1], gast.Tuple) and len(returned.elts[1].elts) == 2:
        product = returned.elts[1].elts[1]
    else:
        product = build.quote_expr("{r}[1][1]", r=returned)
    # the gradient's own container (`dparams = scatter(...)`, `dparams['W1'] = d_item`) goes
    # with it, and the products only it read (X.T @ d_add: the mlp's largest)
    node.body = DeadStores().run(node.body[:-1], live_after=loads(product)) + \
        [gast.Return(value=product)]
    node.body = DeadStores(_written_only(node, bound)).run(node.body[:-1],
                                                           live_after=loads(product)) + \
        node.body[-1:]
    return node


_NEW_CONTAINERS = (runtime.scatter, runtime.scatter_entries, runtime.zeros_like, runtime.tangent_copy)


def _written_only(node, bound):
    """The names of `node` bound only to what a call of _NEW_CONTAINERS makes and read only
    as `name[key] = ...`'s target (see DeadStores)."""
    made, stores, loads_, stored_into = (Counter() for _ in range(4))
    for n in walk(node):
        if isinstance(n, gast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], gast.Name) and isinstance(n.value, gast.Call) and \
                isinstance(n.value.func, gast.Name) and \
                any(bound.get(n.value.func.id) is f for f in _NEW_CONTAINERS):
            made[n.targets[0].id] += 1
        elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and \
                isinstance(n.value, gast.Name):
            stored_into[n.value.id] += 1
        elif isinstance(n, gast.Name):
            (loads_ if isinstance(n.ctx, gast.Load) else stores)[n.id] += 1
    params = {a.id for a in node.args.args}
    return frozenset(name for name, count in made.items() if name not in params and
                     stores[name] == count and loads_[name] == stored_into[name])
