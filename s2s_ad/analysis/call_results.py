"""What a call's result may share memory with: the arguments a user function may hand back.

`def pick(a, b): return a` makes `c = pick(x, y)` the very array `x`, so `c += 1` or `c[0] = 1`
changes `x`. A NumPy function makes a new array (or a view, as `aliasing` lists); a function of
the user's is summarized from its source (`returned_parameters`); a container's method
(`d.get(k)`, `xs.pop()`) may return what the container holds, and a builtin (`sorted`, `next`)
or a callable whose source is not known may return any of its arguments.
"""
import builtins
import copy
import functools
import itertools
import numbers
import sys
import types

import numpy as np

from .. import rules, runtime
from ..errors import TransformError
from ..frontend.parse import signature_of
from .activity import assigned_names
import gast

from .aliasing import is_module_source, mutated_parameters, returned_parameters, returns_new_arrays
from .numpy_writes import written_arguments
from .primitives import classify
from ..traversal import walk_statements

# s2s_ad's own run-time functions that return a record or tuple holding what they are given
# (`Point(y, 0)` is make_record(Point, (y, 0)); a write into a tuple's array binds the tuple to
# with_entry(t, k, v)): their result holds those arrays, never copies of them
_RETURN_AN_ARGUMENT = rules.CallableSet([builtins.max, builtins.min, runtime.make_record,
                                         runtime.with_entry])
# builtins whose result is a new value (a number, a string, a sum), never an object given them
_NEW_VALUE_BUILTINS = rules.CallableSet([
    len, abs, float, int, bool, complex, range, round, sum, pow, divmod, isinstance, issubclass,
    hasattr, print, str, repr, format, hash, id, type, callable, any, all, ord, chr,
    copy.deepcopy])
# builtins that make a new container (or iterator) of the objects they are given: a result
# that holds them, not one that is any of them
CONTAINER_MAKERS = rules.CallableSet([list, tuple, dict, set, frozenset, sorted, zip, enumerate,
                                      map, filter, reversed, iter, itertools.chain, copy.copy])
# modules whose functions make new values (or views that aliasing.VIEW_FUNCTIONS lists)
_NEW_VALUE_MODULES = ("numpy", "cupy", "scipy", "dask", "math", "cmath", "random", "s2s_ad")
# methods of lists and dicts that hand back an object the container holds, or one they are
# given (not `copy`, an array's too: aliasing.MayAlias tells a list's shallow copy apart)
CONTAINER_METHODS = frozenset({"get", "pop", "setdefault", "popitem", "items", "values", "keys",
                               "__getitem__"})


# Libraries whose Python functions are primitives, never read: a rule covers a call of one, and
# one without a rule is refused at the user's call (SciPy's sources change between versions and
# use what s2s_ad does not differentiate, so a refusal deep inside them would help nobody)
LIBRARIES = ("numpy", "cupy", "scipy", "s2s_ad.")
DEFINITIONS = ("s2s_ad.definitions", "s2s_ad.scipy_definitions")


def is_user_function(fn):
    """A Python function of the user's (not NumPy's, CuPy's, SciPy's or ours), or one of
    s2s_ad's definitions of NumPy functions (differentiated from their source)."""
    if not isinstance(fn, types.FunctionType):
        return False
    module = getattr(fn, "__module__", "") or ""
    return not module.startswith(LIBRARIES) or module in DEFINITIONS


def is_callable_instance(obj):
    """An instance of a user class with a Python `__call__` (a model object, a layer)."""
    return not isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)) and \
        isinstance(getattr(type(obj), "__call__", None), types.FunctionType)


def reached_through_a_wrapper(obj):
    """A callee named in the source that reaches user code through a bound method or a
    `functools.partial`: run-time dispatch unwraps it (split_callable)."""
    if isinstance(obj, types.MethodType):
        return is_user_function(obj.__func__)
    if isinstance(obj, functools.partial):
        inner = obj.func
        return is_user_function(inner) or is_callable_instance(inner) or \
            reached_through_a_wrapper(inner)
    return False


def split_callable(fn):
    """(owner arguments, Python function) for what a call reaches when it runs: a function; a
    bound method (its instance first); a callable object (`type(obj).__call__`, the object
    first); or a derivative made by s2s_ad (`ad.grad(g)`), as the Python function that
    `ad.grad(ad.grad(g))` differentiates."""
    if type(fn).__module__ == "s2s_ad.api" and hasattr(fn, "as_function"):
        fn = fn.as_function()
    if isinstance(fn, types.MethodType):
        return (fn.__self__,), fn.__func__
    if isinstance(fn, functools.partial):        # its keywords: dispatch.partial_keywords
        owner, function = split_callable(fn.func)
        return owner + fn.args, function
    if not isinstance(fn, types.FunctionType) and callable(fn) and \
            isinstance(getattr(type(fn), "__call__", None), types.FunctionType):
        return (fn,), type(fn).__call__
    return (), fn


def result_arguments(call, parsed, local_names):
    """The argument expressions whose objects `call`'s result may be, hold or view; None for
    a call that makes a new value or a view the aliasing rules know."""
    fn = classify(call, parsed, local_names).key
    arguments = list(call.args) + [k.value for k in call.keywords]
    generated = getattr(fn, "__s2s_generated__", None) \
        if not isinstance(fn, (type, types.FunctionType)) else None
    if generated is not None and is_user_function(generated.function):
        fn = generated.function       # a derivative behind the object that binds it (calls.py)
    if is_user_function(fn):
        return _returned_arguments(fn, list(call.args), call, arguments)
    if is_callable_instance(fn):                  # a model object: `self` comes first
        method = type(fn).__call__
        return _returned_arguments(method, [_SELF] + list(call.args), call, arguments)
    if fn is None or fn in _RETURN_AN_ARGUMENT:
        return arguments
    if isinstance(fn, rules.method) or _bound_to_an_object(fn):
        # an array's method with a rule computes (`x.sum()`); a container's hands back what it
        # holds (`d.get(k)`), and one without a rule may do either
        key = fn if isinstance(fn, rules.method) else rules.method(fn.__name__)
        if key.name in CONTAINER_METHODS or rules.adjoint_rule(key) is None:
            return [call.func.value] + arguments
        return None
    if isinstance(fn, rules.attribute) or fn in _NEW_VALUE_BUILTINS or isinstance(fn, type) \
            and issubclass(fn, numbers.Number) or isinstance(fn, np.ufunc) or \
            (getattr(fn, "__module__", None) or "").split(".")[0] in _NEW_VALUE_MODULES:
        return None
    # `sorted`, `next`, `dict`, `getattr`, `itertools.chain`, `copy.copy`, ...: what it is
    # given may come back (`sorted([a])[0]` is `a`)
    return arguments


def _bound_to_an_object(fn):
    """A builtin method of an object a global name holds (`BUF.reshape`, `CACHE.get`)."""
    return isinstance(fn, types.BuiltinMethodType) and \
        not isinstance(getattr(fn, "__self__", None), (types.ModuleType, type(None)))


def _returned_arguments(fn, positional, call, arguments):
    returned = _returned_parameters(fn, fn.__code__)
    try:
        bound = signature_of(fn).bind(*positional, **{k.arg: k.value for k in call.keywords})
    except TypeError:
        return arguments
    if returned is None:
        return arguments
    found = []
    for param in returned:
        if is_module_source(param):               # `return BUF`: the callee's module array
            found.append(gast.Name(id=param, ctx=gast.Load(), annotation=None, type_comment=None))
            continue
        argument = bound.arguments.get(param)
        if isinstance(argument, tuple):
            found += argument
        elif isinstance(argument, dict):
            found += argument.values()
        elif argument is not None and argument is not _SELF:
            found.append(argument)
    return found


_SELF = object()          # stands for the instance a `__call__` is bound to


def hook(parsed, local_names):
    """`result_arguments` for the calls in `parsed`, as `MayAlias(call_results=...)` takes it."""
    return lambda call: result_arguments(call, parsed, local_names)


def function_locals(parsed):
    """A parsed function's parameters and assigned names."""
    args = parsed.node.args
    local_names = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    local_names |= {a.id for a in (args.vararg, args.kwarg) if a is not None}
    return local_names | set(assigned_names(parsed.node.body))


def function_hook(parsed):
    """`hook` for a whole parsed function: its parameters and assigned names are local."""
    return hook(parsed, function_locals(parsed))


def is_outer_array(value):
    """An array (or a list or dict) that a module (or an enclosing function) holds."""
    return hasattr(value, "__array_interface__") or hasattr(value, "__cuda_array_interface__") \
        or isinstance(value, (list, dict))


def module_arrays(parsed, local_names):
    """`MayAlias(module_arrays=...)` for `parsed`: its free names that hold outer arrays."""
    return lambda name: name not in local_names and is_outer_array(parsed.namespace.get(name))


@functools.lru_cache(maxsize=256)
def _returned_parameters(fn, code):
    """`returned_parameters` of a user function; None (any of them) where it cannot be read.
    A recursive function meets itself while being summarized: that inner call gets None."""
    if code in _summarizing:
        return None
    _summarizing.add(code)
    try:
        from ..frontend.parse import parse_for_reading
        parsed = parse_for_reading(fn)
        return frozenset(returned_parameters(parsed.node, function_hook(parsed),
                                             module_arrays(parsed, function_locals(parsed))))
    except (TransformError, OSError, TypeError):
        return None
    finally:
        _summarizing.discard(code)


def returns_new_elements(call, parsed, local_names):
    """Is `call` one of the user's functions that returns a tuple of new arrays, none another's
    (`aliasing.returns_new_arrays`)?"""
    fn = classify(call, parsed, local_names).key
    return is_user_function(fn) and _returns_new_arrays(fn, fn.__code__)


@functools.lru_cache(maxsize=256)
def _returns_new_arrays(fn, code):
    if code in _summarizing:
        return False
    _summarizing.add(code)
    try:
        from ..frontend.parse import parse_for_reading
        parsed = parse_for_reading(fn)
        return returns_new_arrays(parsed.node, function_hook(parsed),
                                  module_arrays(parsed, function_locals(parsed)))
    except (TransformError, OSError, TypeError):
        return False
    finally:
        _summarizing.discard(code)


@functools.lru_cache(maxsize=256)
def mutated_parameters_of(fn, code):
    """`mutated_parameters` of a user function ({} where its source cannot be read), and the
    parameters it passes on to a function of yours that changes them (`h(out, v)` where `h`
    appends to its `out`): {parameter: the statement that changes it, or the call}."""
    if code in _following_changes:      # a recursive call: its own changes count already
        return {}
    _following_changes.add(code)
    try:
        from ..frontend.parse import parse_for_reading
        parsed = parse_for_reading(fn)
        local_names = function_locals(parsed)
        found = mutated_parameters(parsed.node, function_hook(parsed), lambda call: written_arguments(
            call, classify(call, parsed, local_names).key))
        return {**_passed_on_to_a_change(parsed), **found}
    except TransformError:
        return {}
    finally:
        _following_changes.discard(code)


_following_changes = set()


def _passed_on_to_a_change(parsed):
    """{parameter: the statement whose call hands it to a function of yours that changes
    that argument in place}, for parameters the function never binds to another value."""
    args = parsed.node.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    params -= set(assigned_names(parsed.node.body))
    local_names = function_locals(parsed)
    found = {}
    for statement in _simple_statements(parsed.node.body):
        for call in (n for n in gast.walk(statement) if isinstance(n, gast.Call)):
            callee = classify(call, parsed, local_names).key
            if not is_user_function(callee):
                continue
            changed = mutated_parameters_of(callee, callee.__code__)
            try:
                bound = signature_of(callee).bind(*call.args,
                                                  **{k.arg: k.value for k in call.keywords})
            except (TypeError, ValueError):
                continue
            for name, update in changed.items():
                if isinstance(update, gast.AugAssign) and isinstance(update.target, gast.Name):
                    continue     # `a op= v`: checked when it runs, where the callee is called
                argument = bound.arguments.get(name)
                if isinstance(argument, gast.Name) and argument.id in params:
                    found.setdefault(argument.id, statement)
    return found


def _simple_statements(body):
    for statement in body:
        if isinstance(statement, (gast.If, gast.For, gast.While, gast.With, gast.Try)):
            for field in ("body", "orelse", "finalbody"):
                yield from _simple_statements(getattr(statement, field, None) or [])
        elif not isinstance(statement, (gast.FunctionDef, gast.ClassDef)):
            yield statement


_summarizing = set()




def results_of_user_calls(body, parsed, local_names, sequences=frozenset()):
    """The names `body` binds to what a function of the user's returns where that may be a
    list or a tuple (it makes one, or it passes on or joins its arguments and a list or tuple
    is among them: `sequences` are the names known to hold one), or a callable the function
    holds returns; and copies of those names. Whether they hold one is known when it runs."""
    bindings = [(s.targets[0].id, s.value) for s in walk_statements(body)
                if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)]
    names, grown = set(), True
    while grown:
        found = {name for name, value in bindings
                 if _may_hold_a_sequence(value, parsed, local_names, names | set(sequences))}
        grown = not found <= names
        names |= found
    return names


def _may_hold_a_sequence(value, parsed, local_names, sequences):
    """May `value`, a normal-form binding, hold a list or a tuple (results_of_user_calls)?"""
    if isinstance(value, gast.Name):
        return value.id in sequences         # `a = _concatenated`: the same object
    if not isinstance(value, gast.Call):
        return False
    if isinstance(value.func, gast.Name) and value.func.id in local_names:
        return True
    fn = classify(value, parsed, local_names).key
    if not is_user_function(fn):
        return False
    returned = _returned_sequences(fn, fn.__code__)
    return returned == "made" or returned == "passed" and any(
        isinstance(a, gast.Name) and a.id in sequences
        for a in value.args + [k.value for k in value.keywords])


@functools.lru_cache(maxsize=256)
def _returned_sequences(fn, code):
    """'made' where `fn` may return a list or a tuple it makes (a display, `list(...)`, a name
    bound to one), 'passed' where it may return one it was given (a parameter, a `+` of such
    values, which joins them where they are lists), else None."""
    from ..frontend.parse import parse_for_reading
    from .container_kinds import container_kinds
    try:
        parsed = parse_for_reading(fn)
    except (TransformError, OSError, TypeError):
        return "made"
    args = parsed.node.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    kinds = container_kinds(parsed.node.body, params, parsed.namespace)
    def made(value):
        return isinstance(value, (gast.List, gast.Tuple, gast.ListComp)) or \
            isinstance(value, gast.Name) and kinds.get(value.id) in ("list", "tuple") or \
            isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
            value.func.id in ("list", "tuple")

    def passed(value):                  # a list given, or two joined: `a + b`, `a + [v]`
        return isinstance(value, gast.Name) and value.id in params or \
            isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add) and \
            all(made(o) or passed(o) for o in (value.left, value.right))
    found = None
    for statement in walk_statements(parsed.node.body):
        value = statement.value if isinstance(statement, gast.Return) else None
        if value is not None and made(value):
            return "made"
        if value is not None and passed(value):
            found = "passed"
    return found


def method_of_a_user_class(primitive, parsed):
    """`p.m(...)` whose name `m` a class of the user's that the function's module can see
    defines in Python (a dataclass's `energy`, a parser's `get`): dispatched when it runs,
    where `p` is known, with `p` as the first argument (dispatch._Call numbers `self` -1),
    not read as the array method of that name, whose rule would take `p` for an array.
    Any other method of a value that carries a derivative (a library object's,
    `d.logpdf(x)`) has no rule and is refused now, at its line. Classes of the standard
    library do not count, nor a call passing `*args` or `**kwargs` (its rule reads them)."""
    key = primitive.key
    if not isinstance(key, rules.method) or None in primitive.keywords or \
            any(isinstance(a, gast.Starred) for a in primitive.args):
        return False
    names = parsed.__dict__.get("user_methods")
    if names is None:
        names = parsed.__dict__["user_methods"] = {
            name for value in _classes_in_view(parsed.namespace)
            for klass in value.__mro__ for name, attr in vars(klass).items()
            if is_user_function(attr)}
    return key.name in names


def _classes_in_view(namespace):
    """The classes of yours the module names, directly or as an attribute of a module of
    yours it imports (`other.Lin`); not those of the standard library or of libraries."""
    for value in list(namespace.values()):
        if isinstance(value, types.ModuleType) and not _of_a_library(value.__name__):
            yield from (c for c in list(vars(value).values()) if isinstance(c, type)
                        and c.__module__ == value.__name__)
        elif isinstance(value, type) and not _of_a_library(value.__module__ or ""):
            yield value


def _of_a_library(module):
    package = module.split(".")[0]
    return package in sys.stdlib_module_names or package in _OTHER_LIBRARIES or \
        module.startswith(LIBRARIES)


_OTHER_LIBRARIES = frozenset({"builtins", "autograd", "jax", "torch"})
