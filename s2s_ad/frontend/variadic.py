"""A helper that takes `*args`, read for one call that passes a known number of arguments.

`def concat_and_multiply(weights, *args)` called as `concat_and_multiply(W, x, h)` is
differentiated as if it had been written

    def concat_and_multiply(weights, _args_0, _args_1):
        args = (_args_0, _args_1)
        ...

so each argument the call passes gets its own derivative, and the body sees `args` as the
tuple Python would bind. The specialization is a function object of its own (the same code,
so it runs as the helper does), one per helper and count, that names its helper and count in
`__s2s_variadic__`; the derivative cache tells the counts apart by it. A helper that also takes
`**kwargs`, a decorator's wrapper (read by wrappers.py) and a call with `*xs` or `**kw` in it
are left as they are (and refused)."""
import inspect
import types
import weakref

import gast

from .. import build

_SPECIALIZED = weakref.WeakKeyDictionary()       # helper -> {count: specialization}


def variadic_call_form(fn, call):
    """`fn` as read for `call` (a gast.Call): its specialization where `fn` takes *args and
    `call` passes a known number of arguments, else `fn` itself."""
    code = getattr(fn, "__code__", None)
    if code is None or not code.co_flags & inspect.CO_VARARGS \
            or code.co_flags & inspect.CO_VARKEYWORDS or hasattr(fn, "__wrapped__") \
            or hasattr(fn, "__s2s_variadic__") or not isinstance(fn, types.FunctionType) \
            or any(isinstance(a, gast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        return fn
    return specialized(fn, max(len(call.args) - code.co_argcount, 0))


def specialized(fn, count):
    """The specialization of `fn` for `count` arguments in its *args (made once)."""
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
    helper, count = fn.__s2s_variadic__
    code = helper.__code__
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
    signature = inspect.signature(fn.__s2s_variadic__[0])
    names = packed_names(fn)
    parameters = []
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.VAR_POSITIONAL:
            parameters += [inspect.Parameter(n, inspect.Parameter.POSITIONAL_ONLY)
                           for n in names]
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
    if not hasattr(fn, "__s2s_variadic__") or node.args.vararg is None:
        return node
    names = packed_names(fn)
    vararg = node.args.vararg
    packed = build.assign(vararg.id, gast.Tuple(elts=[build.name(n) for n in names],
                                                ctx=gast.Load()))
    for part in gast.walk(packed):
        if isinstance(part, (gast.expr, gast.stmt)):
            gast.copy_location(part, vararg)
    params = [gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None)
              for n in names]
    node.args = gast.arguments(
        args=node.args.args + params, posonlyargs=node.args.posonlyargs, vararg=None,
        kwonlyargs=node.args.kwonlyargs, kwarg=None,
        defaults=node.args.defaults if not names else [], kw_defaults=node.args.kw_defaults)
    node.body = [packed] + node.body
    return node
