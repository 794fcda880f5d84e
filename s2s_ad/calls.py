"""Calls into the user's own functions: each runs once.

The forward pass runs `y, back = fwd_callee(...)`, the callee's value and its backward pass
(a closure over the values it needs), and the backward pass calls `back(dy)`. A checkpoint, and
the recomputing twin that second derivatives read, call `vjp_<callee>` in the backward pass
instead, which runs the callee again (one that draws random numbers is refused there). A
callee known when the caller is transformed is generated then (errors name the call chain);
one only known at run time (a method of an argument, a function passed in, a model object
with `__call__`) goes through dispatch's `split_call` (or `vjp_call`, where recomputed).
"""
import builtins
import functools
import inspect

import gast
import numpy as np

from . import build, cache, dispatch, rules, runtime
from .analysis.kinds import Array, DescribedContainers, kinds_of, NUMBER_KINDS as _NUMBER_KINDS
from .analysis.passed_kinds import NO_KIND, OPEN, passed_kinds, surely_read
from .analysis.shapes import indexed_parameters_of
from .analysis.call_results import is_callable_instance, is_user_function, \
    method_of_a_user_class, reached_through_a_wrapper
from .analysis.primitives import is_plain_array, is_random_draw, static_value
from .analysis.random_draws import DRAW_METHODS, draws_through_parameters, first_random_draw
from .errors import NoDerivativeRule, TransformError
from .frontend import parse_function
from .frontend.parse import signature_of
from .frontend.variadic import specialized, variadic_call_form
from .passes.lower_dict_views import view_hint
from .passes.read_sequences_as_arrays import reads_operands_as_arrays
from .passes.refuse_complex import CalleeRefusals
from .passes.refuse_unsupported import variadic_wrapper_error
from .traversal import walk


class SequenceKinds:
    """Part of a derivative bound in generated code: a call passing a list or a tuple, to a
    callee that reads a parameter as one (`takes_sequences`), runs code specialized to the
    arguments' kinds (analysis.kinds), where that parameter is known to hold one: joined by
    `+` (runtime.joined) or read by a ufunc as `np.asarray` of it
    (passes/read_sequences_as_arrays.py). Other calls ask no kinds. `trailing`: how many of
    the last arguments are no argument of the callee (a seed, the tangents)."""
    trailing = 1
    takes_sequences = None                # asked at the first call passing a list or tuple
    by_sequence_kinds = None

    def with_sequences(self, args):
        """The derivative specialized to `args`, or None where the general one runs them."""
        kinds = self.sequence_kinds(args[:len(args) - self.trailing])
        return None if kinds is None else self.specialized_for(self.callee, kinds)

    def sequence_kinds(self, values):
        """The kinds of `values` where a list or a tuple among them is read as one, else None."""
        if not any(type(v) is list or type(v) is tuple for v in values):
            return None
        if self.takes_sequences is None:
            self.takes_sequences = takes_sequences(self.callee)
        return kinds_of(values) if self.takes_sequences else None

    def specialized_for(self, callee, kinds):
        """The derivative of `callee` (in this mode) for arguments of `kinds`, kept."""
        if self.by_sequence_kinds is None:
            self.by_sequence_kinds = {}
        function = self.by_sequence_kinds.get((callee, kinds))
        if function is None:
            function = dispatch.specialized(callee, self.mode, self.wrt, kinds) \
                or self.function          # recursion: the general code
            if len(self.by_sequence_kinds) >= cache.Recent.MOST:
                self.by_sequence_kinds.clear()
            self.by_sequence_kinds[(callee, kinds)] = function
        return function


class CalleeDerivative(SequenceKinds):
    """`vjp_<callee>` as bound in generated code: it follows the callee if it is redefined.

    The forward pass calls the callee by name, so it sees a redefinition at once; this makes
    the backward pass see the same function, rather than the one first differentiated.
    """
    mode = "reverse"

    def __init__(self, callee, wrt, resolve):
        self.follow(callee, wrt, resolve)
        self.function = dispatch.derive(callee, self.mode, wrt)

    def follow(self, callee, wrt, resolve):
        self.callee = callee
        self.wrt = wrt
        self.resolve = resolve            # () -> the object the name refers to now
        # a function the callee calls by name, rebound (`act = np.sin`), makes its derivative
        # another: made again (the cache finds it) and what was kept for it dropped
        self.read_names = cache.ReadNames(getattr(callee, "__s2s_variadic__", (callee,))[0])
        self.by_sequence_kinds = None

    def made(self):
        """The generated code that runs (its helpers copied in are checked as current)."""
        return getattr(self.function, "__s2s_generated__", None)

    def for_callee(self, callee):
        """The same for another closure of the callee's code, bound where this one's callee
        was (closure_templates: a closure whose cells hold the callee, made again)."""
        return type(self)(callee, self.wrt, lambda: callee)

    def current_callee(self):
        """Is the callee the one the name refers to, reading the same names as when its
        derivative was made? Else made again for what they hold now."""
        current = self.resolve()
        helper = getattr(self.callee, "__s2s_variadic__", (self.callee,))[0]
        if current is not self.callee and current is not helper:
            return False
        generated = self.made()
        if not self.read_names.current() or generated is not None and generated.checked and \
                not cache.inlined_current(generated):      # a helper it copied in, rebound
            self.remake()
        return True

    def remake(self):
        type(self).__init__(self, self.callee, self.wrt, self.resolve)

    def __call__(self, *args):
        if self.current_callee():
            return (self.with_sequences(args) or self.function)(*args)
        return self.replaced()(*args)

    def replaced(self):
        """The derivative of what the callee's name is bound to now: that of a function of
        yours, else (`act = np.sin`) run-time dispatch's, which applies its rule."""
        current = self.resolve()
        helper, count = getattr(self.callee, "__s2s_variadic__", (self.callee, None))
        if count is not None and is_user_function(current):
            current = specialized(current, count)     # a helper with *args, redefined
        return dispatch.derive(_replacing(self.callee, current), self.mode, self.wrt)

    def wrt_positions(self):
        """The positions of the parameters differentiated, in the callee's signature."""
        params = list(signature_of(self.callee).parameters)
        return [params.index(name) for name in self.wrt]

    @property
    def __s2s_generated__(self):
        self.current_callee()                   # what is differentiated again: hvp
        found = getattr(self.function, "__s2s_generated__", None)
        if found is None and isinstance(self.function, cache._Pending):
            found = cache._cache.get(self.function.key)
        return found


class CalleeSplit(CalleeDerivative):
    """`fwd_<callee>` as bound in generated code: (value, backward pass) of the callee.

    Like a transform called by the user, it runs code specialized to what its arguments are
    (analysis.kinds): a layer called with arrays of known shapes needs no `unbroadcast` and
    calls matmul directly. A callee whose code the first arguments' kinds leave as it is
    (nothing to specialize) is not asked again: reading kinds costs at every call.

    With the `kinds` the caller's shape facts say the call passes (kinds_passed), the code
    for them is the one made first, and the general code only when another call needs it.
    Where the call runs before anything in the caller could change an argument (`surely`,
    analysis.entry_values), that code runs without reading kinds; elsewhere the kinds are
    read at each call: the facts of the caller's arguments hold only while nothing changes
    them in place, which an alias or a callee may do unseen."""
    mode = "split"
    trailing = 0

    def __init__(self, callee, wrt, resolve, kinds=None, surely=False):
        self.kinds, self.surely, self._general, self.for_kinds = kinds, surely, None, None
        made = dispatch.specialized(callee, self.mode, wrt, kinds) if kinds is not None else None
        self.containers = None
        if made is not None:
            self.follow(callee, wrt, resolve)
            self.by_kinds = {kinds: made}
            self.for_kinds = made if surely else None
            return
        super().__init__(callee, wrt, resolve)
        general = getattr(self.function, "__s2s_generated__", None)
        # kinds -> the specialized fwd_<callee>; None: not specialized, where the general
        # code calls none of the helpers that shape facts leave out (generating it is time)
        self.by_kinds = {} if general is not None and any(
            any(v is h for h in _SHAPE_HELPERS) for v in general.globals.values()) else None

    @property
    def function(self):
        """The general fwd_<callee>, made when first asked for."""
        if self._general is None:
            self._general = dispatch.derive(self.callee, self.mode, self.wrt)
        return self._general

    @function.setter
    def function(self, function):
        self._general = function

    def made(self):
        if self._general is None and self.by_kinds:
            return getattr(self.by_kinds.get(self.kinds), "__s2s_generated__", None)
        return super().made()

    def remake(self):
        self.__init__(self.callee, self.wrt, self.resolve, self.kinds, self.surely)

    def for_callee(self, callee):
        return type(self)(callee, self.wrt, lambda: callee, self.kinds, self.surely)

    def __call__(self, *args):
        # (for_kinds read again: current_callee may have made the code again)
        if self.for_kinds is not None and self.current_callee() and self.for_kinds is not None:
            return self.for_kinds(*args)
        if self.by_kinds is None or not self.current_callee():
            return super().__call__(*args)
        with_sequences = self.with_sequences(args)     # their entries' kinds too
        if with_sequences is not None:
            return with_sequences(*args)
        if self.containers is None:
            self.containers = DescribedContainers(_indexed_positions(self.callee))
        kinds = kinds_of(args, self.containers.positions)
        function = self.by_kinds.get(kinds)
        if function is None:
            self.containers.made(kinds)
            function = self._specialize(kinds)
        return function(*args)

    def _specialize(self, kinds):
        general = getattr(self.function, "__s2s_generated__", None)
        if _change_nothing(kinds, general) and not self.by_kinds:
            self.by_kinds = None          # as below, known without making the code
            return self.function
        function = dispatch.specialized(self.callee, self.mode, self.wrt, kinds)
        if function is None or general is None:
            return self.function          # recursion: the general code, as before
        if function.__s2s_generated__.source == general.source and not self.by_kinds:
            self.by_kinds = None          # the kinds change nothing here
            return self.function
        if len(self.by_kinds) >= cache.Recent.MOST:
            self.by_kinds.clear()
        self.by_kinds[kinds] = function
        return function


def _change_nothing(kinds, general):
    """Would the code made for `kinds` be the `general` code: is each kind unknown or an
    array's, passed for a parameter whose kind the general code's facts would not read?"""
    read = getattr(general, "array_parameters_read", None)
    return read is not None and all(kind is None or type(kind) is Array and name not in read
                                    for name, kind in zip(general.params, kinds))


class CalleeTangent(SequenceKinds):
    """`jvp_<callee>` as bound in forward-mode code: a call passing a list or a tuple may run
    code specialized to the arguments' kinds (SequenceKinds). Over reverse-mode code (hvp),
    `reverse` is the CalleeDerivative that code calls: its code for those kinds is the one
    differentiated."""
    mode = "forward"

    def __init__(self, callee, wrt, function, reverse=None, resolve=None):
        self.callee, self.wrt, self.function, self.reverse = callee, wrt, function, reverse
        # () -> what `module.f` names now, for a callee reached through an attribute (one
        # called by its name alone is followed by the caller's own check of what it reads)
        self.resolve = resolve

    def __call__(self, *args):
        if self.resolve is not None and self.resolve() is not self.callee:
            return self._replaced()(*args)
        if self.reverse is not None and not self.reverse.current_callee():
            return self._over_the_replaced()(*args)
        return (self._with_sequences(args) or self.function)(*args)

    def _over_the_replaced(self):
        """Over reverse-mode code (hvp) whose callee's name is bound to another function now
        (`module.f = g`): the forward derivative of the new one's reverse derivative."""
        current = _replacing(self.reverse.callee, self.reverse.resolve())
        reverse = dispatch.derive(current, self.reverse.mode, self.reverse.wrt, resolved=True)
        before, after = list(signature_of(self.callee).parameters), \
            list(signature_of(reverse).parameters)
        return dispatch.derive(reverse, self.mode, tuple(after[before.index(n)] for n in self.wrt))

    def _replaced(self):
        """The forward derivative of what the callee's name is bound to now."""
        return dispatch.derive(_replacing(self.callee, self.resolve()), self.mode, self.wrt)

    def _with_sequences(self, args):
        if self.reverse is None:
            return self.with_sequences(args)
        values = args[:-1]
        kinds = self.reverse.sequence_kinds(values[:len(values) - self.reverse.trailing])
        if kinds is None:
            return None
        backward = self.reverse.specialized_for(self.reverse.callee, kinds)
        return self.specialized_for(backward, kinds_of(values))

    @property
    def __s2s_generated__(self):
        return getattr(self.function, "__s2s_generated__", None)


def _replacing(callee, current):
    """`current`, what a callee's name is bound to now, where the code made for the callee can
    call it: a function of yours taking the same parameters (the call passes every argument
    by position, defaults filled in as the callee's). Else a TypeError that says so (a name
    the caller reads as `module.f` or a global is followed before the call, by making the
    caller's derivative again: analysis/module_callees.py; this is what that cannot see)."""
    if is_user_function(current) and \
            list(signature_of(current).parameters) == list(signature_of(callee).parameters) and \
            current.__defaults__ == callee.__defaults__:
        return current
    raise TypeError(f"{callee.__qualname__} was replaced by {current!r} after the derivative was "
                    f"made, reached where s2s_ad cannot make the caller's derivative again; "
                    f"rebind it before the first call of the derivative, or replace it by a "
                    f"function of yours with the same parameters")


def takes_sequences(fn):
    """Does `fn` read a parameter as a list or tuple: an operand of `+`, or handed to a NumPy
    function that reads it as an array (SequenceKinds)?"""
    code = getattr(fn, "__code__", None)
    return _takes_sequences(fn, code) if code is not None else False


@functools.lru_cache(maxsize=256)
def _takes_sequences(fn, code):
    try:
        parsed = parse_function(fn)
    except TransformError:
        return False
    params = {a.id for a in parsed.node.args.args + parsed.node.args.posonlyargs +
              parsed.node.args.kwonlyargs}

    def is_param(node):
        return isinstance(node, gast.Name) and node.id in params
    for node in walk(parsed.node):
        if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add) and \
                (is_param(node.left) or is_param(node.right)):
            return True
        if isinstance(node, gast.Call) and any(is_param(a) for a in node.args):
            try:
                function = static_value(node.func, parsed, params)
            except LookupError:
                continue
            if reads_operands_as_arrays(function):
                return True
    return False


def split_positions(obj):
    """For a `fwd_<callee>` bound in generated code (a CalleeSplit), the positions in its
    call (one argument per parameter of the callee, in order) of the arguments its backward
    pass returns gradients for, in the order it returns them; None for anything else."""
    if not isinstance(obj, CalleeSplit):
        return None
    try:
        return obj.wrt_positions()
    except (TypeError, ValueError):     # no signature, or a parameter not in it
        return None


_SHAPE_HELPERS = (runtime.unbroadcast, runtime.unreduce, runtime.scatter,
                  runtime.matmul_grad_a, runtime.matmul_grad_b, runtime.reduction_count)


def _indexed_positions(fn):
    """The positions of `fn`'s parameters whose entries kinds describe (as the API's)."""
    try:
        indexed = indexed_parameters_of(fn)
    except TransformError:
        return frozenset()
    return frozenset(k for k, name in enumerate(signature_of(fn).parameters) if name in indexed)


def keep_backward_passes(transform):
    """Rewrite the forward pass's calls whose callee runs once: `y, back = fwd_callee(...)`."""
    for statement, back, call in transform.kept_backward.values():
        statement.targets = [gast.Tuple(elts=[statement.targets[0], build.name(back, store=True)],
                                        ctx=gast.Store())]
        statement.value = call
    for statement, listed in getattr(transform, "generator_calls", {}).values():
        statement.value = gast.Call(func=build.name(listed), args=[statement.value], keywords=[])


def kept_backward_passes(names):
    """Does generated code with these globals run a callee once and keep its backward pass
    (one known at transform time, or one dispatched when it runs)?"""
    return any(isinstance(value, CalleeSplit) or value is dispatch.split_call
               for value in names.values())


def _keep_the_backward_pass(transform, statement, forward_call, wanted_atoms, incoming, label):
    """`y = callee(...)` becomes `y, back = fwd_callee(...)` in the forward pass (once the
    backward pass is emitted: see `keep_backward_passes`); the backward pass calls `back(dy)`.
    `forward_call()` makes the call that gives (y, back)."""
    kept = transform.kept_backward
    if id(statement) not in kept:           # a loop's body is emitted more than once
        back = transform.namer.fresh(f"backward_{label}")
        transform.local_names.add(back)
        kept[id(statement)] = (statement, back, forward_call())
    back = kept[id(statement)][1]
    code = _unpack(transform, wanted_atoms, gast.Call(
        func=build.name(back), args=[build.name(incoming)], keywords=[]), label)
    first = code[0]
    first.targets = [first.targets[0].elts[1]]      # the backward pass returns the gradients
    # in a loop, each step's backward pass comes back off the tape, as any rebound value does
    return code + [transform.restore(statement, build.name(back))]


def _generated_function(key):
    """Derivatives called from generated code, as the plain generated functions they wrap
    (so that a second transform reads their source)."""
    if isinstance(key, (CalleeDerivative, CalleeTangent)):
        key = key.function
    if isinstance(key, cache._Pending):
        generated = cache._cache.get(key.key)
        key = generated.function if generated is not None else key
    return key


def resolver(transform, func_node, fallback):
    """Re-evaluates a callee's name (`helper` or `module.helper`) in the caller's globals."""
    path = []
    node = func_node
    while isinstance(node, gast.Attribute):
        path.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name) or node.id in transform.parsed.closure:
        return lambda: fallback
    module_globals = transform.parsed.fn.__globals__
    root = node.id
    path.reverse()

    def resolve():
        obj = module_globals.get(root, fallback if not path else None)
        for attr in path:
            obj = getattr(obj, attr, None)
        return fallback if obj is None else obj

    return resolve


_RULE_CALLERS = rules.CallableTable()      # callable -> {(arity, keywords): caller}


def rule_caller(primal, arity, keywords):
    """`def call_<name>(_arg0, ..., k): return primal(_arg0, ..., k=k)`, made once per callable
    and call shape: a Python function the transformer reads, whose one call the rule covers."""
    callers = _RULE_CALLERS.setdefault(primal, {})
    shape = (arity, tuple(keywords))
    if shape not in callers:
        callers[shape] = _make_rule_caller(primal, arity, keywords)
    return callers[shape]


def array_method_caller(bound, arity, keywords, mode):
    """For a method bound to an array, a list, a dict or a tuple whose name has a rule
    (`x.dot`, `d.get`, reached at run time where a class of yours defines a method of that
    name too), `def call_dot(_self, _arg0): return _self.dot(_arg0)`, whose derivative
    applies the rule; else None (a subclass of ndarray, a masked array, is none of these:
    its methods mean other things)."""
    owner, name = getattr(bound, "__self__", None), getattr(bound, "__name__", "")
    if not (is_plain_array(owner) or type(owner) in (list, dict, tuple)) or \
            not name.isidentifier():
        return None
    key = rules.method(name)
    if (rules.adjoint_rule(key) if mode == "reverse" else rules.tangent_rule(key)) is None:
        return None
    return rule_caller(key, arity, keywords)


def _make_rule_caller(primal, arity, keywords):
    import linecache

    from .frontend.parse import ParsedFunction, register_synthetic
    method = primal.name if isinstance(primal, rules.method) else None
    name = method or getattr(primal, "__name__", "")
    name = f"call_{name}" if name.isidentifier() else "call"
    positional = [f"_arg{k}" for k in range(arity)]
    arguments = positional + [f"{k}={k}" for k in keywords]
    called = f"_self.{method}" if method else "_primal"
    header = (["_self"] if method else []) + positional + list(keywords)
    source = (f"def {name}({', '.join(header)}):\n"
              f"    return {called}({', '.join(arguments)})\n")
    filename = f"<s2s_ad {name} of {primal!r}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"_primal": primal}
    exec(compile(source, filename, "exec"), namespace)
    function = namespace[name]
    register_synthetic(function, ParsedFunction(
        fn=function, node=gast.parse(source).body[0], filename=filename, first_line=1,
        indent=0, namespace=namespace))
    return function


def adjoint_of_call(transform, statement, primitive, incoming, once=False):
    """Reverse-mode code for `y = callee(...)`, or None when the callee is not user code.
    With `once`, the forward pass keeps the callee's backward pass (`y, back = fwd_callee(...)`)
    and the backward pass calls it, rather than the callee's vjp, which runs it again."""
    key = _generated_function(primitive.key)
    call = statement.value
    if not isinstance(call, gast.Call):
        return None
    refuse_unpacked_arguments(transform.parsed, call)
    if key is None or isinstance(key, rules.method) or is_callable_instance(key) \
            or reached_through_a_wrapper(key):
        return _dynamic(transform, statement, primitive, incoming, once)
    if not is_user_function(key):
        return None
    return _static(transform, statement, key, incoming, once)


def complex_refusals_at_call(parsed, statement, fn, wanted_names, mode, facts=None):
    """CalleeRefusals for the call `y = g(...)` of a function of yours g: the refusals of g's
    own parameters (passes/refuse_complex), bound to this call's operands, and whether g
    writes a complex value itself; None where they are not known (g is no function of yours,
    or is being generated further up the stack: a recursive call). They are read from g's
    derivative, made here for the kinds the caller's shape `facts` say the call passes (the
    code its run-time dispatch then finds made), where they say."""
    call = statement.value
    fn = _generated_function(fn)         # a derivative's callee, differentiated again
    if not isinstance(call, gast.Call) or not is_user_function(fn):
        return None
    fn = variadic_call_form(fn, call)
    operands = call_site_operands(parsed, call, fn, signature_of(fn))
    wanted = tuple(name for name, atom in operands.items()
                   if isinstance(atom, gast.Name) and atom.id in wanted_names)
    if not wanted:
        return CalleeRefusals([], False)   # nothing is differentiated through g here
    kinds = kinds_passed(facts, parsed, call, fn)[0] if mode == "split" else None
    try:
        refusals = dispatch.complex_refusals(fn, mode, wanted, kinds)
    except TransformError as exc:
        raise exc.called_from(f"{parsed.where(call)} (in {parsed.name})") from None
    if refusals is None:
        return None
    where = f"{parsed.where(call)} (in {parsed.name})"
    return CalleeRefusals([(operands[name], refusal.called_from(where))
                           for name, refusal in refusals.items() if name in operands],
                          getattr(refusals, "written", True))


def kinds_passed(facts, parsed, call, fn):
    """(the kinds of the arguments the call `call` of the user function `fn` passes, as
    CalleeSplit reads them when it runs (analysis.passed_kinds), from the caller's shape
    `facts`; would it read them so at every call, the arguments being the caller's as they
    were at entry (analysis.entry_values)?), or (None, False) where the facts do not say."""
    if facts is None or takes_sequences(fn):
        return None, False              # such a callee reads its sequences' entries' kinds
    signature = signature_of(fn)
    operands = call_site_operands(parsed, call, fn, signature)
    kinds = []
    for name, parameter in signature.parameters.items():
        atom = operands.get(name)
        if atom is None:                # the default, as it is now (made again if rebound)
            value = parameter.default
            kinds.append(NO_KIND if value is None else _NUMBER_KINDS.get(type(value), OPEN))
        elif isinstance(atom, gast.Constant):
            kinds.append(facts.of(atom) if type(atom.value) in (int, float, bool) else NO_KIND)
        else:
            kinds.append(facts.of(atom))
    passed = passed_kinds(kinds, _indexed_positions(fn))
    return passed, passed is not None and facts.at_entry(call) and all(map(surely_read, kinds))


def _active(transform, atom):
    return isinstance(atom, gast.Name) and atom.id in transform.activity.active


def _unpack(transform, wanted_atoms, call_expression, label):
    """`_, (da, db) = call`, accumulating into adjoints that already hold a value."""
    targets, code, seen = [], [], set()
    for atom in wanted_atoms:
        d_name = transform.adjoint_name(atom.id)
        if d_name not in transform.nonzero and atom.id not in seen:
            targets.append(d_name)
            transform.nonzero.add(d_name)
        else:
            part = transform.namer.fresh(f"{d_name}_{label}")
            targets.append(part)
            code.append((atom.id, part))
        seen.add(atom.id)
    ignored = transform.namer.fresh("_")
    grads = build.name(targets[0], store=True) if len(targets) == 1 else gast.Tuple(
        elts=[build.name(t, store=True) for t in targets], ctx=gast.Store())
    unpack = build.assign(gast.Tuple(elts=[build.name(ignored, store=True), grads], ctx=gast.Store()),
                          call_expression)
    return [unpack] + [transform.accumulate(variable, build.name(part)) for variable, part in code]


def refuse_unpacked_arguments(parsed, call):
    """`g(*xs)` or `g(**options)` left in place by the passes that unpack what they can: which
    parameter each operand reaches is not known before the call runs."""
    if any(isinstance(a, gast.Starred) for a in call.args):
        raise parsed.error(call, "cannot differentiate a call with *args unpacking",
                           hint="pass the arguments one by one")
    if any(k.arg is None for k in call.keywords):
        raise parsed.error(call, "cannot differentiate a call with **kwargs unpacking",
                           hint="pass the keyword arguments one by one")


def call_site_operands(parsed, call, fn, signature):
    """{parameter of fn: the operand this call passes it}, refusing a call that does not match
    fn's signature or a fn that takes *args / **kwargs (both modes follow the call through)."""
    refuse_unpacked_arguments(parsed, call)
    placeholders = [object() for _ in call.args]
    atoms = {id(p): a for p, a in zip(placeholders, call.args)}
    keyword_placeholders = {k.arg: object() for k in call.keywords}
    atoms.update({id(keyword_placeholders[k.arg]): k.value for k in call.keywords})
    try:
        bound = signature.bind(*placeholders, **keyword_placeholders)
    except TypeError as exc:
        raise parsed.error(call, f"call to {fn.__qualname__} does not match its "
                           f"signature: {exc}") from None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in signature.parameters.values()):
        wrapper = variadic_wrapper_error(parse_function(fn))
        if wrapper is not None:
            raise wrapper.called_from(f"{parsed.where(call)} (in {parsed.name})")
        raise parsed.error(call, f"cannot differentiate {fn.__qualname__}: it takes "
                           f"*args or **kwargs", hint="name each keyword parameter it reads "
                           "(`def g(x, *, scale=1.0)`); *args is fine where the call passes "
                           "its arguments one by one")
    return {name: atoms[id(placeholder)] for name, placeholder in bound.arguments.items()}


def _static(transform, statement, fn, incoming, once=False):
    call = statement.value
    fn = variadic_call_form(fn, call)
    signature = signature_of(fn)
    operands = call_site_operands(transform.parsed, call, fn, signature)
    arguments, wanted_params, wanted_atoms = [], [], []
    for name, parameter in signature.parameters.items():
        if name in operands:
            atom = operands[name]
        else:
            atom = default_argument(transform, fn, name)
        arguments.append(atom)
        if _active(transform, atom):
            wanted_params.append(name)
            wanted_atoms.append(atom)
    if not wanted_params:
        return []
    once = once and isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name) \
        and not getattr(fn, "__s2s_checkpoint__", False)
    kind = CalleeSplit if once else CalleeDerivative
    options = kinds_passed(transform.shape_of.shapes, transform.parsed, call, fn) \
        if once else ()
    key = (kind, fn, tuple(wanted_params)) + options
    proxies = transform.callee_derivatives
    try:
        function = proxies.get(key)
        if function is None:
            function = kind(fn, tuple(wanted_params), resolver(transform, call.func, fn),
                            *options)
            proxies[key] = function
    except TransformError as exc:
        raise exc.called_from(f"{transform.parsed.where(call)} (in {transform.parsed.name})") from None
    label = fn.__name__ if fn.__name__.isidentifier() else "lambda"
    if once:
        return _keep_the_backward_pass(
            transform, statement, lambda: gast.Call(
                func=build.name(transform.global_name(f"fwd_{label}", function)), keywords=[],
                args=[_copy(a) for a in arguments]), wanted_atoms, incoming, label)
    _refuse_a_second_draw(transform, call, fn, operands)
    if inspect.isgeneratorfunction(fn) and isinstance(statement, gast.Assign):
        # the user's generator gives an iterator, used up where it is read; the callee's vjp
        # takes the adjoints of its items as a list, as the lowered generator returns them
        transform.generator_calls.setdefault(
            id(statement), (statement, transform.global_name("list", builtins.list)))
    name = transform.global_name(f"vjp_{label}", function)
    call_expression = gast.Call(func=build.name(name), keywords=[],
                                args=[_copy(a) for a in arguments] + [build.name(incoming)])
    return _unpack(transform, wanted_atoms, call_expression, label)


def _refuse_a_second_draw(transform, call, fn, operands):
    """The backward pass runs `fn` again here: refuse it where it draws random numbers, itself
    or through an argument (`r.normal(...)` on its parameter `r`: the operand the call passes,
    where transform time can see it, else any call named as a Generator's draws are)."""
    found = first_random_draw(fn) or next(
        ((parsed, draw) for param, chain, parsed, draw in draws_through_parameters(fn)
         if _draws(transform, operands.get(param), chain)), None)
    if found is None:
        return
    parsed, draw = found
    why = "it is a checkpoint" if getattr(fn, "__s2s_checkpoint__", False) else \
        "second derivatives run the functions a function calls again"
    raise transform.parsed.error(
        call, f"`{fn.__name__}(...)` runs again in the backward pass ({why}), and it draws "
              f"random numbers (`{parsed.describe_expression(draw)}` at {parsed.where(draw)}): "
              f"the second run would draw other numbers than the value was computed with",
        hint="draw the numbers outside and pass them in (`eps = rng.normal(size=n)` in the "
             "caller, then `f(x, eps)`)")


def _draws(transform, operand, chain):
    """Does `operand.<chain>(...)` draw random numbers (an operand of unknown value: may it)?"""
    try:
        value = static_value(operand, transform.parsed, transform.local_names)
    except LookupError:
        return chain[-1] in DRAW_METHODS
    for attr in chain:
        value = getattr(value, attr, None)
    return is_random_draw(value)


def _dynamic(transform, statement, primitive, incoming, once=False):
    call = statement.value
    owner_active = isinstance(primitive.key, rules.method) and \
        _active(transform, primitive.args[0])
    if owner_active and not method_of_a_user_class(primitive, transform.parsed):
        receiver = primitive.args[0].id
        described, operand = transform.parsed.describe(receiver), \
            transform.parsed.describe_operand(receiver)
        raise transform.parsed.error(
            call, f"cannot differentiate through `{operand}.{primitive.key.name}(...)`: the "
            f"method has no adjoint, and `{described}` depends on {', '.join(transform.wrt)}",
            hint=view_hint(primitive.key, f"where `{operand}` is an object of a class of "
                                          f"yours, name the class in this module (`from models "
                                          f"import Params`): its method is then differentiated; "
                                          f"else use a NumPy function with a registered rule, "
                                          f"or register one with @s2s_ad.adjoint"),
            kind=NoDerivativeRule)
    active = [gast.Constant(value=-1, kind=None)] if owner_active else []
    wanted_atoms = [primitive.args[0]] if owner_active else []
    for position, atom in enumerate(call.args):
        if _active(transform, atom):
            active.append(gast.Constant(value=position, kind=None))
            wanted_atoms.append(atom)
    for keyword in call.keywords:
        if _active(transform, keyword.value):
            active.append(gast.Constant(value=keyword.arg, kind=None))
            wanted_atoms.append(keyword.value)
    if not wanted_atoms:
        return []
    if isinstance(call.func, gast.Name) and call.func.id not in transform.local_names \
            and not is_callable_instance(primitive.key) and not reached_through_a_wrapper(primitive.key):
        raise transform.parsed.error(call, f"cannot differentiate through {primitive.label} "
                                     f"(no adjoint registered and no Python source)",
                                     hint="register one with @s2s_ad.adjoint, or wrap the value "
                                          "in s2s_ad.stop_gradient(...) if it is a constant",
                                     kind=NoDerivativeRule)
    def dispatched(helper, *middle):
        """`helper(fn, (args...), {kwargs...}, *middle, active, 'file:line:col')`."""
        line, col = transform.parsed.location(call)
        return gast.Call(func=build.name(transform.global_name(helper.__name__, helper)),
                         keywords=[], args=[
            _copy(call.func), gast.Tuple(elts=[_copy(a) for a in call.args], ctx=gast.Load()),
            gast.Dict(keys=[gast.Constant(value=k.arg, kind=None) for k in call.keywords],
                      values=[_copy(k.value) for k in call.keywords]),
            *middle, gast.Tuple(elts=active, ctx=gast.Load()),
            gast.Constant(value=f"{transform.parsed.filename}:{line}:{col + 1}", kind=None)])
    if once and isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name):
        # the callee runs once, in the forward pass, as a callee known here does
        return _keep_the_backward_pass(transform, statement, lambda: dispatched(
            dispatch.split_call), wanted_atoms, incoming, "call")
    expression = dispatched(dispatch.vjp_call, build.name(incoming))
    code = _unpack(transform, wanted_atoms, expression, "call")
    first = code[0]
    first.targets[0].elts[1] = gast.Tuple(elts=[first.targets[0].elts[1]], ctx=gast.Store()) \
        if len(wanted_atoms) == 1 else first.targets[0].elts[1]
    first.targets[0] = first.targets[0].elts[1]
    first.value = first.value
    return code


def default_argument(transform, fn, name):
    """`fn`'s default for the parameter `name` as an operand: a literal, or a name bound in
    generated globals. The code is made with it, so stale once `fn`'s defaults are rebound
    (recorded as a helper it was made from, cache.inlined_current)."""
    if (None, fn) not in transform.parsed.inlined:
        transform.parsed.inlined.append((None, fn))
    value, label = signature_of(fn).parameters[name].default, f"{fn.__name__}_{name}"
    if value is None or isinstance(value, (bool, int, float, str)):
        return gast.Constant(value=value, kind=None)
    return build.name(transform.global_name(label, value))


def _copy(node):
    return build.clone(node)
