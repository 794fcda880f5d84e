"""Run-time dispatch: the derivative of a call whose callee is known only when the derivative
runs (a method of an argument, a function passed in, a model object with `__call__`).

Generated code calls `vjp_call` (reverse mode) and `jvp_call` (forward mode). They need the
compiler to generate the callee's derivative, but code that derivatives run imports nothing
from the compiler: the engine installs itself here (`install`) when s2s_ad is imported.
"""
import functools
import inspect
import linecache
import types

import numpy as np

from . import errors, runtime
from .errors import NoDerivativeRule

__all__ = ["vjp_call", "split_call", "jvp_call", "jvp_vjp_call"]

_engine = None


def install(engine):
    """Called by s2s_ad.engine: `engine` has `derive(fn, mode, wrt, resolved)`,
    `find_rule(fn, mode)`, `rule_caller(fn, arity, keywords)`, `signature_of(fn)` and
    `split_callable(fn)`, `array_method_caller(fn, arity, keywords, mode)` (see there)."""
    global _engine
    _engine = engine


def specialized(fn, mode, wrt, kinds):
    """The generated derivative of `fn` for arguments of `kinds` (analysis.kinds), or None
    while `fn` is being generated further up the stack (a recursive function)."""
    found = _engine.generated(fn, mode, tuple(wrt), kinds)
    return None if found is None else found.function


def complex_refusals(fn, mode, wrt, kinds=None):
    """{parameter: the refusal its derivative raises if that argument is complex} of the
    generated derivative of `fn` in `mode` for `wrt` (for arguments of `kinds`: the same
    refusals, from the code that runs); None while it is being generated further up the
    stack (a recursive function)."""
    found = _engine.generated(fn, mode, tuple(wrt), kinds)
    return None if found is None else found.complex_refusals


def derive(fn, mode, wrt, resolved=False):
    """The generated derivative of `fn` ('reverse': vjp_<fn>, 'forward': jvp_<fn>) for `wrt`;
    a stand-in while it is still being generated, unless `resolved`."""
    if _engine is None:
        raise RuntimeError("s2s_ad's transformer is not loaded: import s2s_ad first")
    return _engine.derive(fn, mode, tuple(wrt), resolved)


class _Call:
    """A call site resolved at run time: the Python function to differentiate, its arguments
    bound to its parameters (the owner's first), and the parameters whose derivatives are
    wanted."""

    def __init__(self, fn, args, kwargs, active, mode, where):
        owner, self.function = _target(fn, args, kwargs, mode, where)
        kwargs = {**partial_keywords(fn), **kwargs} if isinstance(fn, functools.partial) else kwargs
        names = None if kwargs else _positional_names(self.function, len(owner) + len(args))
        if names is not None:           # the common case, kept cheap: every parameter given
            self.values, self.names = owner + tuple(args), names
        else:
            signature = _engine.signature_of(self.function)
            bound = signature.bind(*owner, *args, **kwargs)
            bound.apply_defaults()
            self.values = tuple(bound.arguments.values())
            self.names = list(signature.parameters)
        self.owned = len(owner)
        self.wanted = tuple(self.names[self.owned + a] if isinstance(a, int) else a
                            for a in active)


_PLAIN_FLAGS = inspect.CO_VARARGS | inspect.CO_VARKEYWORDS


def _positional_names(function, count):
    """The parameters of a plain Python function called with `count` positional arguments,
    one for each of them (no defaults to fill, no *args, no keyword-only, no wrapper whose
    signature is another's); else None, where the signature binds the call."""
    code = getattr(function, "__code__", None)
    if type(function) is not types.FunctionType or code.co_argcount != count or \
            code.co_flags & _PLAIN_FLAGS or code.co_kwonlyargcount or \
            "__wrapped__" in function.__dict__ or "__s2s_variadic__" in function.__dict__ or \
            "__signature__" in function.__dict__:
        return None
    return list(code.co_varnames[:count])


def partial_keywords(fn):
    """The keywords a `functools.partial` (or a partial of one) passes, the outer ones last."""
    found = {}
    while isinstance(fn, functools.partial):
        found = {**fn.keywords, **found}
        fn = fn.func
    return found


def _target(fn, args, kwargs, mode, where):
    """(owner arguments, Python function) differentiated for a call of `fn`: its source, or,
    for a callable with a rule but no source (a ctypes function held in a dict), a one-line
    caller whose derivative applies the rule. Refuses, naming the user's call `where`, a
    callable with neither."""
    if _engine is None:
        derive(fn, mode, ())                   # raises: the transformer is not loaded
    try:
        owner, function = _engine.split_callable(fn)
    except TypeError as error:            # a derivative object that cannot be nested
        if type(fn).__module__ != "s2s_ad.api":
            raise
        filename, line, col = (where or "<unknown>:0:1").rsplit(":", 2)
        raise NoDerivativeRule(
            f"cannot differentiate through the call of {fn!r} here: {error}",
            filename=filename, lineno=int(line), col=int(col) - 1,
            source_line=linecache.getline(filename, int(line)).rstrip("\n"),
            hint="compose the transforms instead, e.g. s2s_ad.jacobian(s2s_ad.grad(g)), "
                 "or call the derivative outside the differentiated function") from None
    if _engine.is_user_function(function):
        return owner, function
    if not owner and _engine.find_rule(function, mode) is not None:
        return (), _engine.rule_caller(function, len(args), tuple(kwargs))
    array_method = _engine.array_method_caller(function, len(args), tuple(kwargs), mode)
    if array_method is not None:    # `x.dot(w)` where a class of yours has a `dot` too
        return (function.__self__,), array_method
    filename, line, col = (where or "<unknown>:0:1").rsplit(":", 2)
    kind = "adjoint" if mode == "reverse" else "tangent"
    name = getattr(function, "__qualname__", None) or repr(function)
    message = (f"cannot differentiate through {name}, which this call reaches only when it "
               f"runs: it is not a function of yours and has no {kind} registered")
    hint = (f"register a rule for the callable with @s2s_ad.{kind}, or wrap it in a "
            f"Python function")
    if "_frozen." in name and (getattr(function, "__module__", "") or "").startswith("scipy.stats"):
        # passes/lower_frozen_distributions.py spells out the names it can follow
        message = (f"cannot differentiate `{name.rsplit('.', 1)[1]}` of a frozen scipy.stats "
                   f"distribution held in a name bound to different distributions (or to "
                   f"arguments of another form), or read other than by its methods")
        hint = ("bind the name to one distribution, with its arguments passed the same way, "
                "wherever it is bound, or call the distribution's own method with them "
                "(`stats.norm.logpdf(x, loc, scale)`)")
    raise NoDerivativeRule(message, filename=filename, lineno=int(line), col=int(col) - 1,
                           source_line=linecache.getline(filename, int(line)).rstrip("\n"),
                           hint=hint)


def _refuse_a_second_draw(call, where):
    """The callee's vjp runs it again: refuse a callee that draws random numbers, whose second
    run would draw other numbers than the value the caller holds was computed with."""
    found = _engine.random_draw(call.function, dict(zip(call.names, call.values)))
    if found is None:
        return
    at, text = found
    filename, line, col = (where or "<unknown>:0:1").rsplit(":", 2)
    raise errors.UnsupportedSyntax(
        f"the call of {call.function.__qualname__} here is known only when the derivative runs, "
        f"and the backward pass runs it again; it draws random numbers (`{text}` at {at}), so "
        f"the second run would draw other numbers than the value was computed with",
        filename=filename, lineno=int(line), col=int(col) - 1,
        source_line=linecache.getline(filename, int(line)).rstrip("\n"),
        hint="draw the numbers outside and pass them in (`eps = rng.normal(size=n)` in the "
             "caller, then `layer(x, eps)`)")


def vjp_call(fn, args, kwargs, seed, active, where=None):
    """The adjoints of the arguments at `active` (positions and keyword names), in that
    order, for a call `fn(*args, **kwargs)` whose result has the adjoint `seed`. `where`
    ('file:line:col') is the call in the user's source, for the error when `fn` cannot be
    differentiated."""
    call = _Call(fn, args, kwargs, active, "reverse", where)
    _refuse_a_second_draw(call, where)
    _, grads = derive(call.function, "reverse", call.wanted)(*call.values, seed)
    return grads if len(call.wanted) > 1 else (grads,)


def split_call(fn, args, kwargs, active, where=None):
    """(value, backward pass) of a call `fn(*args, **kwargs)` known only when the derivative
    runs: the callee runs once, here, and its backward pass maps the value's adjoint to the
    adjoints of the arguments at `active` (one, or a tuple of them), as `fwd_<callee>` does for
    a callee known at transform time."""
    call = _Call(fn, args, kwargs, active, "reverse", where)
    if not getattr(call.function, "__s2s_checkpoint__", False):
        return derive(call.function, "split", call.wanted)(*call.values)
    _refuse_a_second_draw(call, where)          # a checkpoint keeps nothing: it runs again
    vjp, values = derive(call.function, "reverse", call.wanted), call.values
    return call.function(*values), lambda seed: vjp(*values, seed)[1]


def vjp_call_adjoints(g, fn, args, kwargs, seed, active, where=None):
    """Adjoints of `args`, `kwargs` and `seed` in `y = vjp_call(fn, args, kwargs, seed,
    active)`, given `g`, the adjoint of y (one entry per gradient, None for a zero): reverse
    mode over the callee's generated vjp, itself dispatched through vjp_call. Every argument
    that can carry a derivative gets one, not only those at `active`: the gradient with
    respect to x depends on y, which the outer derivative may vary though f did not."""
    call = _Call(fn, args, kwargs, active, "reverse", where)
    _refuse_a_second_draw(call, where)
    vjp = derive(call.function, "reverse", call.wanted, resolved=True)
    entries = list(g) if isinstance(g, (list, tuple)) else [g]
    # the vjp returns (value, gradients): the value's adjoint is None, a zero
    outer_seed = runtime.GradList([None, entries[0] if len(call.wanted) == 1 else
                                   runtime.GradList(entries)])
    names = list(_engine.signature_of(vjp).parameters)
    keys = [k for k, v in list(enumerate(args)) + list(kwargs.items())
            if _may_carry_derivative(v)]
    positions = tuple(call.owned + k if isinstance(k, int) else names.index(k) for k in keys)
    found = vjp_call(vjp, call.values + (seed,), {}, outer_seed,
                     positions + (len(call.values),), where)
    d_args = [None] * len(args)
    d_kwargs = {}
    for key, adjoint in zip(keys, found):
        if isinstance(key, int):
            d_args[key] = adjoint
        else:
            d_kwargs[key] = adjoint
    return runtime.GradTuple(d_args), runtime.GradDict(d_kwargs), found[-1]


def _may_carry_derivative(value):
    """A float, an inexact array, or a container holding one (not an int, a string, a
    function)."""
    if isinstance(value, dict):
        return any(_may_carry_derivative(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_may_carry_derivative(v) for v in value)
    if isinstance(value, (bool, int)):
        return False
    if isinstance(value, (float, complex)):
        return True
    dtype = getattr(value, "dtype", None)
    return dtype is not None and np.issubdtype(dtype, np.inexact)


def jvp_call(fn, args, kwargs, tangents, active, where=None):
    """(value, tangent) of a call `fn(*args, **kwargs)` given the tangents of the arguments
    at `active` (positions and keyword names); `where` as for vjp_call."""
    call = _Call(fn, args, kwargs, active, "forward", where)
    tangent = tangents[0] if len(tangents) == 1 else tuple(tangents)
    return derive(call.function, "forward", call.wanted)(*call.values, tangent)


def jvp_vjp_call(fn, args, kwargs, seed, active, d_args, d_kwargs, d_seed):
    """Tangent of `vjp_call(fn, args, kwargs, seed, active)` (reverse-mode code's run-time
    dispatch): forward mode over the callee's generated vjp. An argument whose tangent is
    None has none (a constant): it is not differentiated. Returns (value, tangent)."""
    call = _Call(fn, args, kwargs, active, "reverse", None)
    _refuse_a_second_draw(call, None)
    vjp = derive(call.function, "reverse", call.wanted, resolved=True)
    given = {}
    for position in range(len(args)):
        if d_args is not None and d_args[position] is not None:
            given[call.names[call.owned + position]] = d_args[position]
    for key in kwargs:
        if d_kwargs is not None and d_kwargs.get(key) is not None:
            given[key] = d_kwargs[key]
    vjp_names = list(inspect.signature(vjp).parameters)
    if d_seed is not None:
        given[vjp_names[-1]] = d_seed
    wrt = tuple(n for n in vjp_names if n in given)
    (_, grads), (_, d_grads) = derive(vjp, "forward", wrt)(
        *call.values, seed, given[wrt[0]] if len(wrt) == 1 else tuple(given[n] for n in wrt))
    if len(call.wanted) > 1:
        return grads, d_grads
    return (grads,), (d_grads,)
