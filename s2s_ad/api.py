"""The public transforms: grad, value_and_grad, vjp, source, check_grad."""
import inspect
import threading

import numpy as np

from . import cache, pipeline, runtime
from .frontend.parse import _unwrap

def clear_cache():
    """Forget every generated derivative (they are regenerated on next use)."""
    cache.clear()


def _generate(fn, mode, wrt_names):
    build = pipeline.reverse_mode if mode == "reverse" else getattr(pipeline, f"{mode}_mode")
    return cache.derivative(fn, mode, wrt_names, build)


def _parameters(fn):
    fn = _unwrap(fn)
    try:
        return list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return []


def _wrt_names(fn, wrt):
    """Normalize `wrt` (index, name, or tuple of those) to (names, is_tuple)."""
    params = [p.name for p in _parameters(fn)]
    single = not isinstance(wrt, (tuple, list))
    items = [wrt] if single else list(wrt)
    if not items:
        raise ValueError("wrt is empty: name at least one parameter")
    names = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise TypeError(f"wrt must be a parameter index or name, got {item!r}")
        if isinstance(item, int):
            if not -len(params) <= item < len(params):
                raise ValueError(f"wrt={item} is out of range: {getattr(fn, '__name__', fn)} has "
                                 f"{len(params)} parameter(s) ({', '.join(params)})")
            names.append(params[item])
        else:
            if item not in params:
                raise ValueError(f"wrt={item!r} is not a parameter of "
                                 f"{getattr(fn, '__name__', fn)} ({', '.join(params)})")
            names.append(item)
    if len(set(names)) != len(names):
        raise ValueError(f"wrt names a parameter twice: {names}")
    return tuple(names), single


def _check_differentiable(name, value):
    if isinstance(value, dict):
        for key, item in value.items():
            _check_differentiable(f"{name}[{key!r}]", item)
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _check_differentiable(f"{name}[{index}]", item)
        return
    dtype = getattr(value, "dtype", None)
    if isinstance(value, bool) or isinstance(value, int) or (
            dtype is not None and not np.issubdtype(dtype, np.inexact)):
        kind = type(value).__name__ if dtype is None else f"array of {dtype}"
        raise TypeError(f"cannot differentiate with respect to {name!r}: it is an integer "
                        f"({kind}); pass a float (for example {name}=float(...) or "
                        f".astype(float))")


class _Transformed:
    """A derivative function: callable, with the generated source at `.source`."""

    def __init__(self, fn, mode, wrt, has_aux=False, verbose=False):
        if isinstance(fn, _Transformed):
            fn = fn.as_function()        # higher order: differentiate the generated code
        self.fn = fn
        self.mode = mode
        self.wrt_names, self.single = _wrt_names(fn, wrt)
        self.has_aux = has_aux
        self.verbose = verbose
        self.signature = inspect.signature(_unwrap(fn))
        # no __wrapped__: that would make a second transform differentiate `fn` itself
        for attribute in ("__module__", "__doc__", "__qualname__"):
            setattr(self, attribute, getattr(fn, attribute, None))
        self.__name__ = f"{mode}_{getattr(fn, '__name__', 'f')}"

    @property
    def generated(self):
        generated = _generate(self.fn, "reverse", self.wrt_names)
        if self.verbose and not getattr(self, "_shown", False):
            print(generated.source)
            self._shown = True
        return generated

    @property
    def source(self):
        return self.generated.source

    def as_function(self):
        """A plain Python function with readable source that calls the generated code.

        Differentiating it differentiates the derivative: `grad(grad(f))`.
        """
        if self.has_aux or self.mode == "vjp":
            raise TypeError(f"cannot differentiate {self!r} again: only grad and value_and_grad "
                            f"without has_aux can be nested")
        generated = cache.derivative(self.fn, "reverse-nestable", self.wrt_names,
                                     lambda fn, wrt: pipeline.reverse_mode(fn, wrt, optimize=False))
        return pipeline.nestable(generated, self.mode, self.signature, self.fn)

    def _positional(self, args, kwargs):
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        values = list(bound.arguments.values())
        for name in self.wrt_names:
            _check_differentiable(name, bound.arguments[name])
        return values

    def _vjp(self, args, kwargs, seed=None):
        values = self._positional(args, kwargs)
        value, grads = self.generated.function(*values, seed)
        return value, grads

    def __call__(self, *args, **kwargs):
        if self.mode == "vjp":
            seed = kwargs.pop("seed", None)
            value, grads = self._vjp(args, kwargs, seed)
            return value, grads
        value, grads = self._vjp(args, kwargs, runtime.HAS_AUX if self.has_aux else None)
        if self.mode == "grad":
            return (grads, value[1]) if self.has_aux else grads
        return value, grads

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


def source(df):
    """The generated Python source of a derivative function."""
    if isinstance(df, _Transformed):
        return df.source
    text = getattr(df, "__s2s_source__", None)
    if text is None:
        raise TypeError(f"{df!r} is not a derivative made by s2s_ad")
    return text


def check_grad(f, *args, wrt=0, eps=1e-6, **kwargs):
    """Max relative error between `grad(f)` and central finite differences at `args`."""
    names, single = _wrt_names(f, wrt)
    grads = grad(f, wrt=wrt)(*args, **kwargs)
    grads = (grads,) if single else grads
    signature = inspect.signature(_unwrap(f))
    bound = signature.bind(*args, **kwargs)
    bound.apply_defaults()
    worst = 0.0
    for name, g in zip(names, grads):
        x = bound.arguments[name]
        numeric = _central_difference(f, bound, name, x, eps)
        scale = max(np.max(np.abs(numeric)), np.max(np.abs(np.asarray(g))), 1e-12)
        worst = max(worst, float(np.max(np.abs(np.asarray(g) - numeric)) / scale))
    return worst


def _central_difference(f, bound, name, x, eps):
    arr = np.array(x, dtype=np.float64)
    out = np.zeros_like(arr)
    flat = arr.reshape(-1)
    for i in range(flat.size):
        for sign in (1, -1):
            probe = flat.copy()
            probe[i] += sign * eps
            value = probe.reshape(arr.shape) if np.ndim(x) else float(probe[0])
            arguments = dict(bound.arguments)
            arguments[name] = value
            out.reshape(-1)[i] += sign * float(f(**arguments))
    return out / (2 * eps)
