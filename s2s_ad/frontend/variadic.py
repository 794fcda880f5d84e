"""A helper that takes `*args`, read for one call that passes a known number of arguments.

`def concat_and_multiply(weights, *args)` called as `concat_and_multiply(W, x, h)` is
differentiated as if it had been written

    def concat_and_multiply(weights, _args_0, _args_1):
        args = (_args_0, _args_1)
        ...

so each argument the call passes gets its own derivative, and the body sees `args` as the
tuple Python would bind. A helper that takes `**kwargs` is read the same way for the keywords
the call passes that no parameter takes: `def wrapper(v, *args, **kwargs)` called as
`wrapper(x, k=3.0)` is read as `def wrapper(v, *, k)` with `args = ()` and `kwargs = {'k': k}`
bound first, and its `fn(v, *args, **kwargs)` spelled `fn(v, k=k)` (a decorator's wrapper
without `functools.wraps`, or with parameters of its own). The specialization is a function
object of its own (the same code, so it runs as the helper does), one per helper and form (the
count, and the keywords where it takes **kwargs), that names its helper and form in
`__s2s_variadic__`; the derivative cache tells the forms apart by it. A wrapper read by
wrappers.py, a call with `*xs` or `**kw` in it, and a keyword that is also a name the helper's
code uses are left as they are (and refused)."""
import inspect
import types
import weakref

import gast

from .. import build

_SPECIALIZED = weakref.WeakKeyDictionary()       # helper -> {count: specialization}


def variadic_call_form(fn, call):
    """`fn` as read for `call` (a gast.Call): its specialization where `fn` takes *args and
    `call` passes a known number of arguments, else `fn` itself."""
    from .wrappers import wrapped_signature
    code = getattr(fn, "__code__", None)
    if code is None or not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS) \
            or hasattr(fn, "__s2s_variadic__") or not isinstance(fn, types.FunctionType) \
            or wrapped_signature(fn) is not None \
            or any(isinstance(a, gast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return fn
    count = max(len(call.args) - code.co_argcount, 0)
    if count and not code.co_flags & inspect.CO_VARARGS:
        return fn                          # too many arguments: Python's error, as it is
    if not code.co_flags & inspect.CO_VARKEYWORDS:
        return specialized(fn, count)
    named = set(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    extra = tuple(k.arg for k in call.keywords if k.arg not in named)
    taken = set(code.co_varnames) | set(code.co_names) | set(code.co_freevars)
    if taken & set(extra):
        return fn
    return specialized(fn, (count, extra))


def _form(fn):
    """(count of *args, keywords in **kwargs) of a specialization."""
    form = fn.__s2s_variadic__[1]
    return form if isinstance(form, tuple) else (form, ())


def specialized(fn, count):
    """The specialization of `fn` for `count` arguments in its *args (made once); `count` is
    (that count, the keywords in its **kwargs) for a helper that takes **kwargs."""
    made = _SPECIALIZED.setdefault(fn, {})
    if count not in made:
        twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__,
                                  fn.__closure__)
        twin.__kwdefaults__ = fn.__kwdefaults__
        twin.__qualname__, twin.__module__ = fn.__qualname__, fn.__module__
        twin.__s2s_variadic__ = (fn, count)
        made[count] = twin
    return made[count]


def packed_names(fn):
    """The parameters that stand for the *args of a specialization: `_args_0`, ... (names the
    function's code does not use)."""
    helper, (count, _) = fn.__s2s_variadic__[0], _form(fn)
    code = helper.__code__
    if not code.co_flags & inspect.CO_VARARGS:
        return []
    taken = set(code.co_varnames) | set(code.co_names) | set(code.co_freevars)
    vararg = code.co_varnames[code.co_argcount + code.co_kwonlyargcount]
    prefix = f"_{vararg}_"
    while any(name.startswith(prefix) for name in taken):
        prefix = "_" + prefix
    return [f"{prefix}{k}" for k in range(count)]


def variadic_signature(fn):
    """The signature of a specialization: the helper's, with *args spelled out; None for any
    other function. With arguments in *args every positional parameter is passed, so their
    defaults are dropped."""
    if not hasattr(fn, "__s2s_variadic__"):
        return None
    signature = inspect.signature(fn.__s2s_variadic__[0], follow_wrapped=False)
    names = packed_names(fn)
    parameters = []
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.VAR_POSITIONAL:
            parameters += [inspect.Parameter(n, inspect.Parameter.POSITIONAL_ONLY)
                           for n in names]
        elif parameter.kind is parameter.VAR_KEYWORD:
            parameters += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY)
                           for n in _form(fn)[1]]
        elif names and parameter.kind in (parameter.POSITIONAL_ONLY,
                                          parameter.POSITIONAL_OR_KEYWORD):
            parameters.append(parameter.replace(kind=inspect.Parameter.POSITIONAL_ONLY,
                                                default=inspect.Parameter.empty))
        else:
            parameters.append(parameter)
    return signature.replace(parameters=parameters)


def with_packed_arguments(node, fn):
    """`node` (the helper's def) taking the specialization's parameters, with
    `args = (_args_0, ...)` bound first; `node` unchanged for any other function."""
    vararg, kwarg = node.args.vararg, node.args.kwarg
    if not hasattr(fn, "__s2s_variadic__") or vararg is None and kwarg is None:
        return node
    names, keywords = packed_names(fn), _form(fn)[1]
    packed = []
    if vararg is not None:
        packed.append(build.assign(vararg.id, gast.Tuple(
            elts=[build.name(n) for n in names], ctx=gast.Load())))
    if kwarg is not None:
        packed.append(build.assign(kwarg.id, gast.Dict(
            keys=[gast.Constant(value=k, kind=None) for k in keywords],
            values=[build.name(k) for k in keywords])))
    for part in (p for statement in packed for p in gast.walk(statement)):
        if isinstance(part, (gast.expr, gast.stmt)):
            gast.copy_location(part, vararg or kwarg)
    node.args = gast.arguments(
        args=node.args.args + [_param(n) for n in names], posonlyargs=node.args.posonlyargs,
        vararg=None, kwonlyargs=node.args.kwonlyargs + [_param(k) for k in keywords],
        kwarg=None, defaults=node.args.defaults if not names else [],
        kw_defaults=node.args.kw_defaults + [None] * len(keywords))
    _spell_out(node, vararg, kwarg, names, keywords)
    node.body = packed + node.body
    return node


def _param(name):
    return gast.Name(id=name, ctx=gast.Param(), annotation=None, type_comment=None)


def _spell_out(node, vararg, kwarg, names, keywords):
    """`fn(v, *args, **kwargs)` -> `fn(v, _args_0, k=k)` where the body never rebinds `args`
    and `kwargs` (normal form spells a known tuple's `*args` too; a dict's `**kwargs` not)."""
    from .wrappers import _spell_out_calls
    packed = {a.id for a in (vararg, kwarg) if a is not None}
    if any(isinstance(n, gast.Name) and n.id in packed and not isinstance(n.ctx, gast.Load)
           for statement in node.body for n in gast.walk(statement)):
        return
    _spell_out_calls(node, vararg, kwarg, [_Named(n) for n in names],
                     [_Named(k) for k in keywords])


class _Named:
    def __init__(self, name):
        self.name = name
