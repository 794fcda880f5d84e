"""The public transforms: grad, value_and_grad, vjp, source, check_grad."""
import copy
import inspect
import linecache
import os
import sys
import types

import gast
import numpy as np

from . import cache, emit, engine, numeric, pipeline, rules, runtime, traversal
from .naming import Namer
from .random_states import RandomStates
from .errors import FULL_TRACEBACK, SourceUnavailable, TransformError, user_facing
from .frontend.parse import _unwrap, parse_function, signature_of
from .analysis.kinds import DescribedContainers, call_key, describes_all, kinds_of
from .gradients_returned import REAL_TANGENTS, as_returned, plain
from .analysis.random_draws import first_random_draw, first_unseeded_generator
from .analysis.shapes import indexed_parameters_of
from .passes.refuse_unsupported import variadic_wrapper_error
from .runtime.arrays import _xp

def clear_cache():
    """Forget every generated derivative (they are regenerated on next use)."""
    cache.clear()


def _user_call_site():
    """(file, line) of the first frame outside s2s_ad: where the user called grad(...)."""
    frame = sys._getframe(1)
    package = os.path.dirname(__file__)
    while frame is not None and os.path.dirname(frame.f_code.co_filename) == package:
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else None


def _generate(fn, mode, wrt_names, call_site=None, kinds=None):
    if inspect.isgeneratorfunction(_unwrap(fn)):
        _refuse_generator(fn)
    if not hasattr(_unwrap(fn), "__code__"):
        try:
            parse_function(fn)             # raises SourceUnavailable with the reason
        except SourceUnavailable as exc:
            if exc.lineno or call_site is None:
                raise
            # a builtin has no file of its own: point at the line that asked for its derivative
            filename, line = call_site
            raise SourceUnavailable(exc.message, filename=filename, lineno=line, col=0,
                                    source_line=linecache.getline(filename, line),
                                    hint=exc.hint) from None
    return engine.generated(fn, mode, wrt_names, kinds)


def _refuse_generator(fn):
    """A generator differentiated itself has no value to differentiate (its items come as
    they are taken); one that your function calls is differentiated (passes/lower_generators)."""
    parsed = parse_function(fn)
    found = next(n for n in traversal.walk(parsed.node) if isinstance(n, (gast.Yield, gast.YieldFrom)))
    keyword = "yield from" if isinstance(found, gast.YieldFrom) else "yield"
    raise parsed.error(found, f"generators (`{keyword}`) cannot be differentiated themselves: "
                       f"their items come one at a time as they are taken",
                       hint="differentiate a function that takes the items (`W, b = "
                            "pieces(v)`, `sum(pieces(v))`): a generator it calls is "
                            "differentiated")


def _parameters(fn):
    fn = _unwrap(fn)
    try:
        return list(signature_of(fn).parameters.values())
    except (TypeError, ValueError):
        return []


def _split_bound(fn):
    """(function, leading arguments) for what the user asked to differentiate.

    A bound method `m.loss` is `Model.loss` with `m` as its first argument, and an object with
    a Python `__call__` is `type(m).__call__` with `m` first: the derivative is generated for
    the function, which takes the instance as an ordinary (inactive) argument, so one
    generated derivative serves every instance and the instance is passed at each call.
    """
    if isinstance(fn, types.MethodType):
        return fn.__func__, (fn.__self__,)
    if not isinstance(fn, (types.FunctionType, types.BuiltinFunctionType, type, _Transformed)) and \
            callable(fn) and not hasattr(fn, "__wrapped__") and \
            isinstance(inspect.getattr_static(type(fn), "__call__", None), types.FunctionType):
        return type(fn).__call__, (fn,)
    return fn, ()


def _calling_a_rule(fn):
    """A function that has a rule (`ad.grad(np.sin)`, `ad.grad(np.sum)`, a function of yours
    with `@ad.adjoint`), as a one-line Python function calling it with its required
    parameters, so that the rule is what is differentiated, as where f calls it; None for
    anything else."""
    if not callable(fn) or isinstance(fn, type) or getattr(fn, "__s2s_generated__", None) or \
            rules.adjoint_rule(fn) is None and rules.tangent_rule(fn) is None:
        return None
    arity = fn.nin if isinstance(fn, np.ufunc) else len(getattr(fn, "argtypes", None) or ()) \
        or None                                   # a ufunc, a ctypes function
    if arity is not None:
        params = ["x"] if arity == 1 else [f"x{k + 1}" for k in range(arity)]
    else:
        try:
            parameters = list(inspect.signature(fn).parameters.values())
        except (TypeError, ValueError):
            return None
        required = [p for p in parameters if p.default is p.empty
                    and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        if not required:
            return None
        params = [p.name for p in required]          # np.sum(a): its options keep defaults
    name = getattr(fn, "__name__", "f")
    name = name if name.isidentifier() and name not in params else "f"
    source = f"def {name}({', '.join(params)}):\n    return {name}_({', '.join(params)})\n"
    return emit.compile_function(source, name, {f"{name}_": fn}, {})


def _default_tails(signature):
    """[k] -> the defaults of the parameters after the first k, where k positional arguments
    and those defaults fill a plain signature; None where they do not."""
    parameters = list(signature.parameters.values())
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD for p in parameters):
        return []
    defaults = [p.default for p in parameters]
    return [None if any(d is inspect.Parameter.empty for d in defaults[k:]) else tuple(defaults[k:])
            for k in range(len(parameters) + 1)]


def _wrt_names(fn, wrt, skip=0):
    """Normalize `wrt` (index, name, or tuple of those) to (names, is_tuple).

    Indices and names refer to the parameters after the first `skip` (those a bound method's
    instance fills), as `inspect.signature` of the bound method shows them.
    """
    params = [p.name for p in _parameters(fn)][skip:]
    if not params and not hasattr(_unwrap(fn), "__code__"):
        return (), not isinstance(wrt, (tuple, list))   # no source: refused when it is called
    label = getattr(fn, "__qualname__" if skip else "__name__", None) or fn
    single = not isinstance(wrt, (tuple, list))
    items = [wrt] if single else list(wrt)
    if not items:
        raise ValueError("wrt is empty: name at least one parameter")
    names = []
    for item in items:
        if isinstance(item, (bool, np.bool_)) or not isinstance(item, (int, np.integer, str)):
            raise TypeError(f"wrt must be a parameter index or name, got {item!r}")
        if isinstance(item, (int, np.integer)):
            item = int(item)
            if not -len(params) <= item < len(params):
                raise ValueError(f"wrt={item} is out of range: {label} has "
                                 f"{len(params)} parameter(s) ({', '.join(params)})")
            names.append(params[item])
        else:
            if item not in params:
                bound = " (the instance is bound already)" if skip and item in \
                    [p.name for p in _parameters(fn)][:skip] else ""
                raise ValueError(f"wrt={item!r} is not a parameter of "
                                 f"{label} ({', '.join(params)}){bound}")
            names.append(item)
    if len(set(names)) != len(names):
        raise ValueError(f"wrt names a parameter twice: {names}")
    return tuple(names), single


_check_differentiable = runtime.check_differentiable


def _refuse_variadic_wrapper(fn):
    fn = _unwrap(fn)
    if getattr(fn, "__wrapped__", None) is not None:
        error = variadic_wrapper_error(parse_function(fn))
        if error is not None:
            raise error


def _refuse_draws_per_column(fn):
    """A jacobian differentiated again runs `fn` once per column inside the derivative,
    where no state can be put back between the columns: each would draw other numbers."""
    found = first_random_draw(fn)
    if found is not None:
        parsed, node = found
        raise parsed.error(
            node, f"a jacobian of `{getattr(fn, '__name__', 'f')}` inside a derivative runs it "
                  f"once per column, and it draws random numbers here: each column would see "
                  f"other draws", hint="draw the numbers outside and pass them in "
                                       "(`eps = rng.normal(size=n)`, then `f(x, eps)`)")


class _Transformed:
    """A derivative function: callable, with the generated source at `.source`."""

    generator = "reverse"

    def __init__(self, fn, mode, wrt, has_aux=False, verbose=False):
        self.inner = fn if isinstance(fn, _Transformed) else None
        if self.inner is not None:
            fn = fn.as_function()        # higher order: differentiate the generated code
        fn, self.bound_args = _split_bound(fn)   # m.loss: Model.loss, called with m first
        fn = _calling_a_rule(fn) or fn               # ad.grad(np.sin): a ufunc with a rule
        self.fn = fn
        self.mode = mode
        self.call_site = _user_call_site()
        _refuse_variadic_wrapper(fn)     # before wrt is read against `*args, **kwargs`
        self.wrt_names, self.single = _wrt_names(fn, wrt, skip=len(self.bound_args))
        self.has_aux = has_aux
        if mode == "grad" and not has_aux:
            self.generator = "gradient"     # code that computes the value only where it must
        self.verbose = verbose
        self._read_signature()
        self.param_names = list(self.signature.parameters)
        self.wrt_positions = [self.param_names.index(n) for n in self.wrt_names]
        self.has_source = hasattr(_unwrap(fn), "__code__")
        # no __wrapped__: that would make a second transform differentiate `fn` itself
        for attribute in ("__module__", "__doc__", "__qualname__"):
            setattr(self, attribute, getattr(fn, attribute, None))
        self.__name__ = f"{mode}_{getattr(fn, '__name__', 'f')}"
        self.kinds = None                 # what the latest call's arguments were: `source`
        self.containers = None            # DescribedContainers: whose entries the kinds describe
        self.recent = cache.Recent(fn)    # the derivatives its calls got, by call_key

    def _read_signature(self):
        """The signature and the tails of defaults that fill a call (`_default_tails`), read
        again where the function's defaults were rebound since (`f.__defaults__ = ...`)."""
        fn = _unwrap(self.fn)
        try:
            self.signature = signature_of(fn)
        except (TypeError, ValueError):    # a builtin that shows none: refused when called
            self.signature = inspect.Signature()
        self.default_tails = _default_tails(self.signature)
        self.defaults_seen = (fn, fn.__defaults__, fn.__kwdefaults__) \
            if type(fn) is types.FunctionType else None

    def _follow_defaults(self):
        seen = self.defaults_seen
        if seen is not None and (seen[0].__defaults__ is not seen[1] or
                                 seen[0].__kwdefaults__ is not seen[2]):
            self._read_signature()

    @property
    def generated(self):
        """The derivative for arguments like those of the latest call (see `kinds`)."""
        return self._shown(_generate(self.fn, self.generator, self.wrt_names, self.call_site,
                                     self.kinds))

    def _shown(self, generated):
        """`generated`, its source printed first if the user asked to see it (once)."""
        if self.verbose and not getattr(self, "_printed", False):
            print(generated.source)
            self._printed = True
        return generated

    @property
    @user_facing
    def source(self):
        return self.generated.source

    @user_facing
    def as_function(self):
        """A plain Python function with readable source that calls the generated code.

        Differentiating it differentiates the derivative: `grad(grad(f))`.
        """
        self._follow_defaults()
        if self.mode == "jacobian":
            _refuse_draws_per_column(self.fn)
            generated = engine.generated(self.fn, "forward-nestable", self.wrt_names)
            function = pipeline.nestable_jacobian(generated, self.signature, self.fn,
                                                  self.wrt_names, self.single)
        elif self.mode not in ("grad", "value_and_grad", "vjp"):
            raise TypeError(f"cannot differentiate {self!r} again: only grad, value_and_grad, "
                            f"vjp and jacobian can be nested; for second derivatives use "
                            f"s2s_ad.hessian(f) or s2s_ad.hvp(f)")
        else:
            generated = engine.generated(self.fn, "reverse-nestable", self.wrt_names)
            function = pipeline.nestable(generated, self.mode, self.signature, self.fn,
                                         "seed" if self.mode == "vjp" else None, self.has_aux)
        if self.bound_args:              # bound to the same instance: wrt still skips it
            return types.MethodType(function, self.bound_args[0])
        return function

    def _positional(self, args, kwargs):
        """(every argument's value in the order of the parameters, the positions of the wrt
        arguments that hold float arrays alone: differentiable, and nothing complex)."""
        if self.bound_args:
            args = self.bound_args + args
        seen = self.defaults_seen       # _follow_defaults, written out: every call asks
        if seen is not None and (seen[0].__defaults__ is not seen[1] or
                                 seen[0].__kwdefaults__ is not seen[2]):
            self._read_signature()
        defaults = self.default_tails[len(args)] if len(args) < len(self.default_tails) else None
        if not kwargs and defaults is not None:
            # the common case, kept cheap: positional arguments, then the defaults
            values = args + defaults
        else:
            bound = self.signature.bind(*args, **kwargs)
            bound.apply_defaults()
            values = tuple(bound.arguments.values())
        real = []           # the positions of float arguments, differentiable and real
        for name, k in zip(self.wrt_names, self.wrt_positions):
            if runtime.float_arrays(values[k]):
                real.append(k)
            else:
                _check_differentiable(name, values[k])
        if "cupy" in sys.modules:           # else no two arguments' arrays can clash
            runtime.check_backends(dict(zip(self.param_names, values)))
        return values, real

    def _specialized(self, values, real=()):
        """The derivative for arguments like `values`: the code is specialized to what they
        are (numbers, arrays of a rank, lists of numbers; analysis/shapes.py)."""
        if self.containers is None:
            self.containers = DescribedContainers(self._indexed_containers())
        key = call_key(values, self.containers.positions)
        recent = self.recent.get(key)
        if recent is None:
            self._follow_the_inner_derivative()
            kinds = kinds_of(values, self.containers.positions)
            self.containers.made(kinds)
            kinds = kinds if any(k is not None for k in kinds) else None
            stamp = self.recent.stamp()
            found = _generate(self.fn, self.generator, self.wrt_names, self.call_site, kinds)
            recent = found, (kinds, describes_all(kinds))
            self.recent.keep(stamp, key, *recent)
        found, (self.kinds, described) = recent
        if not described:                   # else no argument holds a complex value
            _refuse_complex_arguments(found, self.param_names, values, real)
            _refuse_arrays_of_other_meanings(self.param_names, values, real)
        return self._shown(found)

    def _follow_the_inner_derivative(self):
        """`grad(grad(f))` differentiates the readable function of `grad(f)`'s derivative: made
        again where that derivative is (`h.__defaults__` rebound under `f`, a cell rebound)."""
        if self.inner is None:
            return
        fresh = self.inner.as_function()
        if fresh is not self.fn:
            self.fn, self.recent = fresh, cache.Recent(fresh)

    def _indexed_containers(self):
        try:
            indexed = indexed_parameters_of(_unwrap(self.fn))
        except SourceUnavailable:
            indexed = set()
        return frozenset(k for k, name in enumerate(self.param_names) if name in indexed)

    def _vjp(self, args, kwargs, seed=None):
        """(value, gradients as the user gets them)."""
        if not self.has_source:
            self.generated                  # no source and no rule: refused, saying so
        values, real = self._positional(args, kwargs)
        found = self._specialized(values, real)
        token = runtime.COMPLEX_CONTEXT.set(
            (getattr(found.complex_refusals, "written", True), values))
        try:
            if self.generator == "gradient":
                value, grads = None, found.function(*values)
            else:
                value, grads = found.function(*values, seed)
        finally:
            runtime.COMPLEX_CONTEXT.reset(token)
        if type(grads) is np.ndarray:
            return value, grads                 # the common case, first: nothing to convert
        wrt = [values[k] for k in self.wrt_positions]
        return value, as_returned(grads, wrt[0] if len(wrt) == 1 else tuple(wrt))

    def __call__(self, *args, **kwargs):
        # user_facing written out (a frame less at every call of every derivative): a
        # refusal is raised from here, without the transformer's frames
        try:
            if self.mode == "vjp":
                seed = kwargs.pop("seed", None)
                value, grads = self._vjp(args, kwargs, seed)
                if not self.single and len(self.wrt_names) == 1:
                    grads = (grads,)
                return value, grads
            value, grads = self._vjp(args, kwargs, runtime.HAS_AUX if self.has_aux else None)
            if not self.single and len(self.wrt_names) == 1:
                grads = (grads,)         # wrt=(0,) asks for a tuple
            if self.mode == "grad":
                return (grads, value[1]) if self.has_aux else grads
            return value, grads
        except TransformError as exc:
            if os.environ.get(FULL_TRACEBACK):
                raise
            raise exc.with_traceback(None) from None

    def __repr__(self):
        return f"<s2s_ad.{self.mode} of {getattr(self.fn, '__qualname__', self.fn)} wrt {self.wrt_names}>"


def _transform(mode, f, wrt, **options):
    if f is None:
        return lambda fn: _Transformed(fn, mode, wrt, **options)
    return _Transformed(f, mode, wrt, **options)


def grad(f=None, wrt=0, *, has_aux=False, verbose=False):
    """Gradient of scalar-valued `f` with respect to the parameter(s) `wrt`."""
    return _transform("grad", f, wrt, has_aux=has_aux, verbose=verbose)


def value_and_grad(f=None, wrt=0, *, has_aux=False, verbose=False):
    """`g(*args) -> (f(*args), gradient)`."""
    return _transform("value_and_grad", f, wrt, has_aux=has_aux, verbose=verbose)


def vjp(f=None, wrt=0, *, verbose=False):
    """`g(*args, seed=dy) -> (f(*args), cotangent(s) of wrt)`; seed defaults to 1 for scalars."""
    return _transform("vjp", f, wrt, verbose=verbose)


@user_facing
def source(df):
    """The generated Python source of a derivative function."""
    if isinstance(df, _Transformed):
        return df.source
    text = getattr(df, "__s2s_source__", None)
    if text is None:
        raise TypeError(f"{df!r} is not a derivative made by s2s_ad")
    return text


@user_facing
def check_grad(f, *args, wrt=0, eps=1e-6, **kwargs):
    """Max relative error between `grad(f)` and central finite differences at `args`.

    A dict, list or tuple argument (nested too) is checked leaf by leaf: the result is the
    largest relative error over all its arrays and floats.
    """
    fn, owner = _split_bound(f)
    names, single = _wrt_names(fn, wrt, skip=len(owner))
    grads = grad(f, wrt=wrt)(*args, **kwargs)
    if runtime.holds_complex(grads):
        raise TypeError("check_grad compares with central differences along real directions "
                        "only; for a complex argument compare grad(f) with differences along "
                        "its real part a and imaginary part b: df/da - 1j * df/db (README, "
                        "'Complex numbers')")
    grads = (grads,) if single else grads
    signature = signature_of(_unwrap(fn))
    bound = signature.bind(*owner, *args, **kwargs)
    bound.apply_defaults()
    for name, value in bound.arguments.items():
        bound.arguments[name] = numeric.on_host(value)
    worst = 0.0
    for name, g in zip(names, grads):
        for path, _ in numeric.leaves(bound.arguments[name]):
            expected = numeric.central_difference(fn, bound, name, eps, path)
            found = numeric.entry_at(g, path)
            found = np.zeros_like(expected) if found is None else found
            worst = max(worst, numeric.relative_error(found, expected))
    return worst


# Forward mode and second order ---------------------------------------------------------------

def _coerce_tangent(name, t, x, keyword="tangent"):
    """The `keyword=` value (jvp's tangent=, hvp's vector=) the user passed for parameter
    `name`, checked against its value `x`; errors name the keyword the user wrote."""
    if _taken_as_is(t, x) or _all_taken_as_is(t, x):
        return t                        # the common case, first: nothing to check or convert
    if isinstance(x, dict):
        if not isinstance(t, dict) or set(t) != set(x):
            raise TypeError(f"{keyword}= for {name!r} must be a dict with the keys {sorted(x)}")
        return {k: t[k] if _taken_as_is(t[k], v) else
                _coerce_tangent(f"{name}[{k!r}]", t[k], v, keyword) for k, v in x.items()}
    fields = runtime.record_fields(x) if type(x) is not list and type(x) is not tuple else None
    if fields is not None and not isinstance(x, tuple):        # a dataclass: its fields in order
        if type(t) is not type(x):
            raise TypeError(f"{keyword}= for {name!r} must be a {type(x).__name__} like it")
        return tuple(_coerce_tangent(f"{name}.{field}", getattr(t, field), getattr(x, field),
                                     keyword) for field in fields)
    if isinstance(x, (list, tuple)):
        if not isinstance(t, (list, tuple)) or len(t) != len(x):
            raise TypeError(f"{keyword}= for {name!r} must be a {type(x).__name__} of "
                            f"{len(x)} entries")
        entries = [a if _taken_as_is(a, b) else _coerce_tangent(f"{name}[{i}]", a, b, keyword)
                   for i, (a, b) in enumerate(zip(t, x))]
        return type(x)(*entries) if hasattr(x, "_fields") else type(x)(entries)   # namedtuple
    if t is None:
        return runtime.zero_tangent(x)
    if runtime.is_complex(t) and not runtime.is_complex(x):
        raise TypeError(f"the tangent for {name!r} is complex, but {name!r} is real; pass a "
                        f"real tangent")
    if np.shape(t) != np.shape(x):
        raise ValueError(f"{keyword}= for {name!r} has shape {np.shape(t)} but {name!r} has "
                         f"shape {np.shape(x)}; {keyword}= must have its argument's shape")
    if isinstance(x, (float, int)) and not isinstance(x, bool):
        return float(t)
    if isinstance(x, complex):
        return complex(t)
    dtype = getattr(x, "dtype", None)
    t = _xp(x).asarray(t)
    if dtype is not None and np.issubdtype(dtype, np.inexact) and t.dtype != dtype:
        t = t.astype(dtype)
    return t


def _all_taken_as_is(t, x):
    """Is `t` a list, tuple or dict of x's type and length whose leaves are each _taken_as_is
    for x's, two levels down (a list of (W, b) layers)? (Loops: this runs at every call.)"""
    kind = type(x)
    if type(t) is not kind or not (kind is list or kind is tuple or kind is dict) or \
            len(t) != len(x):
        return False
    if kind is dict:
        if tuple(t) != tuple(x):
            return False                # (other keys, or the same in another order: made anew)
        t, x = t.values(), x.values()
    leaves = []
    for a, b in zip(t, x):
        if type(a) is np.ndarray:
            leaves.append((a, b))
        elif type(a) is type(b) and (type(a) is tuple or type(a) is list) and len(a) == len(b):
            leaves += zip(a, b)
        else:
            return False
    for a, b in leaves:                 # _taken_as_is, without a call a leaf
        if type(a) is not np.ndarray or type(b) is not np.ndarray or a.shape != b.shape:
            return False
        kind = a.dtype
        if kind is not b.dtype and kind != b.dtype or kind.kind != "f":
            return False
    return True


def _taken_as_is(t, x):
    """Is the tangent `t` a real array of `x`'s type, dtype and shape (nothing to convert)?"""
    return type(t) is np.ndarray and type(x) is np.ndarray and t.dtype == x.dtype and \
        t.dtype.kind == "f" and t.shape == x.shape


def _refuse_complex_arguments(generated, names, values, real=()):
    """Raise the refusal transform time left for a parameter whose argument is complex: the
    complex value would meet a rule that holds for real values only. The arguments at the
    positions `real` are known to hold float arrays alone."""
    refusals = generated.complex_refusals
    if not refusals:
        return
    for k, (name, value) in enumerate(zip(names, values)):
        if name in refusals and k not in real and runtime.holds_complex(value):
            raise copy.copy(refusals[name])


# NumPy's array subclasses whose operations mean something the rules do not: their gradient
# would be silently wrong -> (what it is, what to pass instead)
_OTHER_MEANINGS = ((np.ma.MaskedArray, "a masked array, whose reductions leave out its masked "
                    "entries", "{0}.filled(0.0), or np.where({0}.mask, 0.0, {0}.data)"),
                   (np.matrix, "a np.matrix, whose `*` is a matrix product", "np.asarray({0})"))


def _refuse_arrays_of_other_meanings(names, values, plain=()):
    """Refuse an argument holding a masked array or a np.matrix (s2s_ad differentiates their
    operations as those of plain arrays). Asked only of arguments the kinds do not describe:
    a plain array never is one, nor are the arguments at the positions `plain` (holding
    plain float arrays alone)."""
    for k, (name, value) in enumerate(zip(names, values)):
        if k in plain or not _of_other_meaning(value):
            continue                        # the common case, first
        for path, leaf in numeric.leaves(value):
            for kind, what, instead in _OTHER_MEANINGS:
                if type(leaf) not in _PLAIN_ARGUMENTS and isinstance(leaf, kind):
                    shown = name + "".join(f"[{p!r}]" for p in path)
                    raise TypeError(f"cannot differentiate with `{shown}` holding {what}: "
                                    f"s2s_ad differentiates NumPy's plain arrays, and the "
                                    f"gradient would be wrong; pass {instead.format(shown)}")


_PLAIN_ARGUMENTS = frozenset({np.ndarray, float, int, bool, type(None), str})


def _of_other_meaning(value):
    """Does `value` hold a masked array or a np.matrix (leaves of dicts, lists, tuples)?"""
    kind = type(value)
    if kind in _PLAIN_ARGUMENTS:
        return False
    if kind is dict:
        value = value.values()
    elif kind is not list and kind is not tuple:
        return isinstance(value, (np.ma.MaskedArray, np.matrix))
    for entry in value:             # (a loop, not any() of a generator: asked at every call)
        if type(entry) not in _PLAIN_ARGUMENTS and _of_other_meaning(entry):
            return True
    return False


def _refuse_complex_tangent(fn, t, value):
    """A tangent that came out complex for a real value: a complex value that transform time
    did not see (one a callee returns, an attribute of an object) met a differentiated one in
    `fn`. The generated code has returned, so the refusal names `fn`'s definition."""
    if type(t) in REAL_TANGENTS or type(t) is np.ndarray and t.dtype.kind != "c":
        return                          # the common case, first: nothing complex
    if not any(runtime.is_complex(leaf) and not runtime.is_complex(v) for (_, leaf), (_, v)
               in zip(numeric.leaves(t), numeric.leaves(value))):
        return
    from .errors import ComplexValue
    fn = _unwrap(fn)
    lines, first = inspect.getsourcelines(fn)
    offset = next((k for k, line in enumerate(lines) if line.lstrip().startswith("def ")), 0)
    source_line = lines[offset].rstrip("\n")
    raise ComplexValue(
        f"a complex value met a value being differentiated in {fn.__name__} where "
        f"s2s_ad could not see it before the derivative ran (a value a function you call "
        f"returns, an attribute of an object); its derivative is not known to be right",
        filename=fn.__code__.co_filename, lineno=first + offset,
        col=len(source_line) - len(source_line.lstrip()), source_line=source_line,
        hint=runtime.COMPLEX_HINT)


class _Forward(_Transformed):
    """A forward-mode derivative (`jvp`, `hvp`, `jacobian`, `hessian`): callable, with `.source`."""

    generator = "forward"

    @property
    def generated(self):
        kinds = self.kinds if self.generator in ("forward", "hvp") else None
        return self._shown(_generate(self.fn, self.generator, self.wrt_names, self.call_site,
                                     kinds))

    def _bind(self, args, kwargs):
        generated = self.generated   # a refusal of the function first, before its arguments
        self._follow_defaults()
        bound = self.signature.bind(*self.bound_args, *args, **kwargs)
        bound.apply_defaults()
        for name in self.wrt_names:
            _check_differentiable(name, bound.arguments[name])
            if runtime.is_complex(bound.arguments[name]):
                raise TypeError(f"{self.mode} takes real arguments, and {name!r} is complex; "
                                f"use s2s_ad.vjp or s2s_ad.jvp for complex arguments")
        _refuse_complex_arguments(generated, list(bound.arguments), bound.arguments.values())
        _refuse_arrays_of_other_meanings(list(bound.arguments), bound.arguments.values())
        runtime.check_backends(bound.arguments)
        return bound

    def _refuse_fresh_entropy(self):
        """`jacobian` and `hessian` run the function once per column, each seeing the draws
        of one call (random_states.py); a generator made without a seed inside it draws
        fresh numbers from the system each time, which no held state can give again."""
        if getattr(self, "_entropy_checked", False):
            return
        found = first_unseeded_generator(self.fn)
        if found is not None:
            parsed, node = found
            raise parsed.error(
                node, f"{self.mode} runs `{getattr(self.fn, '__name__', 'f')}` once per column, "
                f"and this generator, made without a seed, draws other numbers each time: the "
                f"columns would belong to different draws",
                hint="make the generator outside and pass it in (`rng = np.random.default_rng()`"
                     " then `f(x, rng)`), or give it a seed")
        self._entropy_checked = True

    def _bind_arrays(self, args, kwargs):
        """`_bind`, for a transform whose result is built from one column per entry of each
        `wrt` argument: those must be arrays. Returns (bound, their values)."""
        bound = self._bind(args, kwargs)
        self._refuse_fresh_entropy()
        xs = [bound.arguments[n] for n in self.wrt_names]
        for name, x in zip(self.wrt_names, xs):
            if isinstance(x, (dict, list, tuple)):
                raise TypeError(f"{self.mode} needs array arguments; {name!r} is a "
                                f"{type(x).__name__} (differentiate with respect to one entry)")
        return bound, xs

    def _with_direction(self, args, kwargs, keyword):
        """(the argument values, the positions of float ones (see _positional), the direction
        passed as `keyword=`, checked against them)."""
        direction = kwargs.pop(keyword)
        try:
            values, real = self._positional(args, kwargs)     # the common case kept cheap
        except TypeError:
            self.generated           # a refusal of the function first, before its arguments
            raise
        return values, real, self._directions(values, direction, keyword)

    def _directions(self, values, direction, keyword):
        """`direction` checked against the wrt arguments among `values` (the parameters')."""
        if self.single:                 # the common case, first: one parameter
            return _coerce_tangent(self.wrt_names[0], direction, values[self.wrt_positions[0]],
                                   keyword)
        if direction is None or not isinstance(direction, (tuple, list)) or \
                len(direction) != len(self.wrt_names):
            raise TypeError(f"pass {keyword}= with one entry per parameter in wrt "
                            f"({', '.join(self.wrt_names)})")
        coerced = tuple(_coerce_tangent(name, t, values[k], keyword) for name, k, t
                        in zip(self.wrt_names, self.wrt_positions, direction))
        return coerced[0] if len(coerced) == 1 else coerced


class _JVP(_Forward):
    """`g(*args, tangent=dx) -> (f(*args), df·dx)`."""

    def __call__(self, *args, **kwargs):
        # user_facing written out, as _Transformed.__call__ does (a frame less at every call)
        try:
            if "tangent" not in kwargs:
                raise TypeError(f"{self.__name__}() needs tangent=: the direction to "
                                f"differentiate along (shaped like {', '.join(self.wrt_names)})")
            values, real, direction = self._with_direction(args, kwargs, "tangent")
            value, t = self._specialized(values, real).function(*values, direction)
            _refuse_complex_tangent(self.fn, t, value)
            return value, plain(runtime.tangent_out(t, value))
        except TransformError as exc:
            if os.environ.get(FULL_TRACEBACK):
                raise
            raise exc.with_traceback(None) from None


    @user_facing
    def as_function(self):
        """`jvp_<f>(*params, tangent=None)` as readable source calling the generated code, so
        that a derivative of a function calling `jvp(g)(x, tangent=v)` reads through it."""
        self._follow_defaults()
        function = pipeline.nestable(self.generated, "jvp", self.signature, self.fn, "tangent")
        if self.bound_args:
            return types.MethodType(function, self.bound_args[0])
        return function


class _HVP(_Forward):
    """`g(*args, vector=v) -> Hessian(f) @ v`, by forward mode over `vjp_<f>`."""

    generator = "hvp"

    @user_facing
    def __call__(self, *args, **kwargs):
        if "vector" not in kwargs:
            raise TypeError(f"{self.__name__}() needs vector=: the vector to multiply the "
                            f"Hessian with (shaped like {', '.join(self.wrt_names)})")
        values, real, direction = self._with_direction(args, kwargs, "vector")
        hv = self._specialized(values, real).function(*values, runtime.HVP, direction)
        wrt = [values[k] for k in self.wrt_positions]
        like = wrt[0] if len(wrt) == 1 else tuple(wrt)
        hv = as_returned(runtime.tangent_out(hv, like), like)
        return (hv,) if len(self.wrt_names) == 1 and not self.single else hv

    @user_facing
    def as_function(self):
        """`hvp_<f>(*params, vector=None)`: the tangent of `jvp(grad(f))` along `vector`, as
        readable source, so that a derivative of a function calling `hvp(g)(x, vector=v)`
        reads through it (third order: forward over forward over reverse)."""
        wrt = self.wrt_names[0] if self.single else self.wrt_names
        jvp = _JVP(_Transformed(self.fn, "grad", wrt), "jvp", wrt)
        defaults = pipeline.defaults_of(self.signature)
        key = ("hvp", tuple(self.signature.parameters), tuple(map(id, defaults)))
        function = pipeline.made_once(jvp.generated, key,
                                      lambda: self._nestable(jvp.as_function(), defaults))
        if self.bound_args:
            return types.MethodType(function, self.bound_args[0])
        return function

    def _nestable(self, inner, defaults):
        params = list(self.signature.parameters)
        namer = Namer(params + ["vector"])
        called, value, product = (namer.fresh(n) for n in ("jvp_grad", "value", "product"))
        keyword = "vector" if "vector" not in params else namer.fresh("vector")
        name = namer.fresh(f"hvp_{getattr(self.fn, '__name__', 'f')}")
        source = (f"def {name}({', '.join(params + [f'{keyword}=None'])}):\n"
                  f"    {value}, {product} = {called}({', '.join(params)}, tangent={keyword})\n"
                  f"    return {product}\n")
        function = emit.compile_function(source, name, {called: inner}, self.fn.__globals__)
        function.__defaults__ = defaults + (None,)
        return function


def _size(x):
    """The number of entries of `x` (np.size, which Dask arrays do not implement)."""
    return int(np.prod(np.shape(x), dtype=np.intp))


def _basis(x):
    """Unit tangents for `x`, one per element, in C order (on x's backend)."""
    xp = _xp(x)
    dtype = getattr(x, "dtype", None)
    dtype = dtype if dtype is not None and np.issubdtype(dtype, np.inexact) else np.float64
    for i in range(_size(x)):
        e = xp.zeros(_size(x), dtype=dtype)
        e[i] = 1        # written flat: a reshaped Dask array is a new array, not a view of e
        yield e.reshape(np.shape(x))


def _blocks(rows, columns, like):
    """A zero matrix for one block of a Jacobian or Hessian, on the backend of `like`."""
    # the arguments' own precision (float16 stays float16); integers differentiate as float64
    dtypes = [d if np.issubdtype(d, np.inexact) else np.float64
              for d in (np.dtype(getattr(v, "dtype", np.float64)) for v in like)]
    return _xp(like[0]).zeros((rows, columns), dtype=np.result_type(*dtypes))


class _Jacobian(_Forward):
    """`g(*args) -> df/dx` of shape out.shape + x.shape."""

    @user_facing
    def __call__(self, *args, **kwargs):
        bound, xs = self._bind_arrays(args, kwargs)
        values = list(bound.arguments.values())
        states = RandomStates(self.fn, values)   # every pass sees the draws of this call
        out = self.fn(*bound.args, **bound.kwargs)
        if isinstance(out, (dict, list, tuple)):
            raise TypeError(f"jacobian needs {getattr(self.fn, '__name__', 'f')} to return one "
                            f"array, but it returned a {type(out).__name__}")
        sizes = [_size(x) for x in xs]
        blocks = [_blocks(_size(out), n, [out, x]) for n, x in zip(sizes, xs)]
        # a complex output's rows would need a second, imaginary seed each: by columns
        by_rows = _size(out) < sum(sizes) and not runtime.is_complex(out)
        if by_rows:
            try:
                reverse = _generate(self.fn, "reverse", self.wrt_names).function
            except TransformError:
                by_rows = False
        if by_rows:
            for k, seed in enumerate(_basis(out)):
                states.restore()
                _, grads = reverse(*values, seed)
                grads = (grads,) if len(self.wrt_names) == 1 else grads
                for block, g in zip(blocks, grads):
                    block[k, :] = _xp(block).ravel(_xp(block).asarray(g))
        else:
            function = self.generated.function
            zeros = [_coerce_tangent(n, None, x) for n, x in zip(self.wrt_names, xs)]
            for i, x in enumerate(xs):
                for j, e in enumerate(_basis(x)):
                    direction = list(zeros)
                    direction[i] = _coerce_tangent(self.wrt_names[i], e, x)
                    states.restore()
                    _, t = function(*values, direction[0] if len(direction) == 1 else tuple(direction))
                    _refuse_complex_tangent(self.fn, t, _)
                    blocks[i][:, j] = _xp(blocks[i]).ravel(_xp(blocks[i]).asarray(t))
        shaped = tuple(block.reshape(np.shape(out) + np.shape(x)) for block, x in zip(blocks, xs))
        return shaped[0] if self.single else shaped


class _Hessian(_Forward):
    """`g(*args) -> d2f/dx2` of shape x.shape + x.shape, one column per hvp."""

    generator = "hvp"

    @user_facing
    def __call__(self, *args, **kwargs):
        bound, xs = self._bind_arrays(args, kwargs)
        values = list(bound.arguments.values())
        function = self.generated.function
        sizes = [_size(x) for x in xs]
        blocks = [[_blocks(a, b, [xa, xb]) for b, xb in zip(sizes, xs)] for a, xa in zip(sizes, xs)]
        zeros = [_coerce_tangent(n, None, x) for n, x in zip(self.wrt_names, xs)]
        states = RandomStates(self.fn, values)   # every column sees the draws of one call
        for k, x in enumerate(xs):
            for j, e in enumerate(_basis(x)):
                direction = list(zeros)
                direction[k] = _coerce_tangent(self.wrt_names[k], e, x)
                states.restore()
                hv = function(*values, runtime.HESSIAN,
                              direction[0] if len(direction) == 1 else tuple(direction))
                hv = (hv,) if len(direction) == 1 else hv
                for i, column in enumerate(hv):
                    xp = _xp(blocks[i][k])
                    blocks[i][k][:, j] = xp.ravel(xp.asarray(column))
        shaped = tuple(tuple(blocks[i][k].reshape(np.shape(xs[i]) + np.shape(xs[k]))
                             for k in range(len(xs))) for i in range(len(xs)))
        return shaped[0][0] if self.single else shaped

    @user_facing
    def as_function(self):
        """`jacobian(grad(f))` as readable source (one argument differentiated), so that a
        derivative of a function calling `hessian(g)(x)` reads through it."""
        if not self.single:
            raise TypeError(f"cannot differentiate {self!r} again: a hessian with a tuple wrt "
                            f"cannot be nested; compose it per parameter, e.g. "
                            f"s2s_ad.jacobian(s2s_ad.grad(g, wrt=0), wrt=0)")
        wrt = self.wrt_names[0]
        function = _Jacobian(_Transformed(self.fn, "grad", wrt), "jacobian", wrt).as_function()
        if self.bound_args:
            return types.MethodType(function, self.bound_args[0])
        return function


def _forward_transform(cls, mode, f, wrt, verbose):
    if f is None:
        return lambda fn: cls(fn, mode, wrt, verbose=verbose)
    return cls(f, mode, wrt, verbose=verbose)


def jvp(f=None, wrt=0, *, verbose=False):
    """Forward mode: `g(*args, tangent=dx) -> (f(*args), df·dx)`; a tuple `wrt` takes a tuple."""
    return _forward_transform(_JVP, "jvp", f, wrt, verbose)


def hvp(f=None, wrt=0, *, verbose=False):
    """`g(*args, vector=v) -> Hessian(f) @ v`, forward mode over the generated gradient."""
    return _forward_transform(_HVP, "hvp", f, wrt, verbose)


def jacobian(f=None, wrt=0, *, verbose=False):
    """`g(*args) -> array of shape out.shape + x.shape` (by columns with jvp or rows with vjp,
    whichever takes fewer passes)."""
    return _forward_transform(_Jacobian, "jacobian", f, wrt, verbose)


def hessian(f=None, wrt=0, *, verbose=False):
    """`g(*args) -> array of shape x.shape + x.shape`, one Hessian-vector product per column."""
    return _forward_transform(_Hessian, "hessian", f, wrt, verbose)
