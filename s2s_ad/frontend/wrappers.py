"""A decorator's `def wrapper(*args, **kwargs)`, read with the parameters of the function it wraps.

`functools.wraps` wrappers pass their arguments on unchanged (`out = fn(*args, **kwargs)`), so
the wrapper is differentiated as if it had been written `def wrapper(a, b=2.0)`: the parameters
of `__wrapped__`, with `args = (a, b)` and `kwargs = {}` bound first, and every `fn(*args,
**kwargs)` spelled out as `fn(a, b)`. The wrapper's own code (the value it computes from the
result, its bookkeeping) stays as written. A wrapper that rebinds `args` or `kwargs`, or wraps a
function that itself takes *args or **kwargs, is left as it is (and refused)."""
import inspect

import gast

from .. import build
from ..traversal import walk


def wrapped_signature(fn):
    """The signature a variadic wrapper takes on (that of its `__wrapped__`), or None."""
    code = getattr(fn, "__code__", None)
    wrapped = getattr(fn, "__wrapped__", None)
    if code is None or wrapped is None or code.co_argcount or code.co_kwonlyargcount \
            or not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
        return None
    try:
        signature = inspect.signature(wrapped)
    except (TypeError, ValueError):
        return None
    kinds = {p.kind for p in signature.parameters.values()}
    if kinds & {inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD,
                inspect.Parameter.POSITIONAL_ONLY}:
        return None
    return signature


def with_wrapped_parameters(node, fn, namespace):
    """`node` (the wrapper's def) rewritten to take the wrapped function's parameters; the
    node unchanged where that would not mean the same."""
    signature = wrapped_signature(fn)
    if signature is None:
        return node
    packed = [a.id for a in (node.args.vararg, node.args.kwarg) if a is not None]
    if any(isinstance(n, gast.Name) and n.id in packed and not isinstance(n.ctx, gast.Load)
           for statement in node.body for n in walk(statement)):
        return node
    positional = [p for p in signature.parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
    keyword = [p for p in signature.parameters.values() if p.kind is p.KEYWORD_ONLY]
    _spell_out_calls(node, node.args.vararg, node.args.kwarg, positional, keyword)
    prefix = []
    if node.args.vararg is not None:
        prefix.append(build.assign(node.args.vararg.id, gast.Tuple(
            elts=[build.name(p.name) for p in positional], ctx=gast.Load())))
    if node.args.kwarg is not None:
        prefix.append(build.assign(node.args.kwarg.id, gast.Dict(
            keys=[gast.Constant(value=p.name, kind=None) for p in keyword],
            values=[build.name(p.name) for p in keyword])))
    for statement in prefix:
        for part in walk(statement):
            gast.copy_location(part, node.args.vararg or node.args.kwarg)
    node.args = gast.arguments(
        args=[_parameter(p) for p in positional], posonlyargs=[], vararg=None,
        kwonlyargs=[_parameter(p) for p in keyword], kwarg=None,
        defaults=[_default(p, namespace) for p in positional if p.default is not p.empty],
        kw_defaults=[_default(p, namespace) if p.default is not p.empty else None
                     for p in keyword])
    node.body = prefix + node.body
    return node


def _spell_out_calls(node, vararg, kwarg, positional, keyword):
    """`f(*args, **kwargs)` -> `f(a, b, k=k)` (any other use of args and kwargs stays)."""
    for call in walk(node):
        if not isinstance(call, gast.Call):
            continue
        if vararg is not None:
            call.args = [a for part in call.args for a in (
                [build.name(p.name) for p in positional]
                if isinstance(part, gast.Starred) and isinstance(part.value, gast.Name)
                and part.value.id == vararg.id else [part])]
        if kwarg is not None:
            call.keywords = [k for part in call.keywords for k in (
                [gast.keyword(arg=p.name, value=build.name(p.name)) for p in keyword]
                if part.arg is None and isinstance(part.value, gast.Name)
                and part.value.id == kwarg.id else [part])]


def _parameter(parameter):
    return gast.Name(id=parameter.name, ctx=gast.Param(), annotation=None, type_comment=None)


def _default(parameter, namespace):
    """The wrapped function's default, held in the namespace the derivative reads."""
    name = f"_wrapped_default_{parameter.name}"
    namespace[name] = parameter.default
    return build.name(name)
