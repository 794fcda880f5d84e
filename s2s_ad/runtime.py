"""The few helpers generated derivative code calls.

Everything here is backend-neutral: arrays are created *like* an existing array, so NumPy
inputs give NumPy results and CuPy inputs give CuPy results. Helpers never modify their
arguments, so adjoint arrays may alias each other freely.
"""
import contextlib

import numpy as np

__all__ = [
    "unbroadcast", "unreduce", "scatter", "zero_at", "zeros_like", "ones_like", "seed_like",
    "gradient_like", "stop_gradient", "no_grad", "snapshot", "matmul_grad_a", "matmul_grad_b",
    "dot_grad_a", "dot_grad_b", "einsum_grad", "reduction_count", "extremum_mask",
    "tie_share", "untranspose", "transpose_by", "prod_grad", "prod_others", "prod_hvp",
    "norm_grad", "norm_direction", "norm_curvature", "norm_slope", "unreshape", "reshape_as",
    "einsum_swap", "einsum_grad_swap", "divide_or_zero", "concatenator_place",
    "concatenator_part_grad", "concatenator_tangent",
]

ones_like = np.ones_like


def zeros_like(x):
    """Zeros shaped like `x` (an array, a number, or a container of arrays)."""
    if x is None:
        return 0.0
    if isinstance(x, (list, tuple, dict)):
        return _zero_tree(x)
    return np.zeros_like(x)


def _xp(x):
    """The array module (numpy or cupy) that owns `x`."""
    module = type(x).__module__
    if module.startswith("cupy"):
        import cupy
        return cupy
    return np


_SCALARS = (float, int, complex, bool)
_REAL_SCALARS = frozenset({float, int, bool, np.float64, np.float32, np.float16})


def shape_of(x):
    """`np.shape(x)`, without its overhead for arrays and Python numbers (a hot path)."""
    if type(x) in _SCALARS:
        return ()
    shape = getattr(x, "shape", None)
    return shape if shape is not None else np.shape(x)


def unbroadcast(g, like):
    """Sum `g` over the axes that broadcasting added or stretched, giving `like`'s shape."""
    if type(g) is np.ndarray and type(like) is np.ndarray and g.shape == like.shape \
            and g.dtype.kind != "c":
        return g                      # the common cases, first: nothing was broadcast
    if type(g) in _REAL_SCALARS and type(like) in _REAL_SCALARS:
        return g
    if type(like) in _SEQUENCES and isinstance(g, list) and len(g) != len(like):
        _refuse_sequence_arithmetic()
    if _is_container(like) and _is_container(g):
        return g          # entry by entry: a container is never broadcast (its arrays may differ)
    if is_complex(g) and not is_complex(like):
        # the first adjoint that turns complex: the user's line is the one being worked on
        _refuse_complex_derivative(2)
    shape = shape_of(like)
    g_shape = shape_of(g)
    if g_shape == shape:
        return g
    extra = len(g_shape) - len(shape)
    if extra > 0:
        g = np.sum(g, axis=tuple(range(extra)))
    stretched = tuple(axis for axis, n in enumerate(shape) if n == 1 and np.shape(g)[axis] != 1)
    if stretched:
        g = np.sum(g, axis=stretched, keepdims=True)
    if np.shape(g) != shape:
        g = np.broadcast_to(g, shape)
    return g


_SEQUENCES = (list, tuple)


def _refuse_sequence_arithmetic():
    """`z = xs + ys` or `xs * 2` on lists or tuples met an elementwise rule: the adjoint of
    the longer sequence `z` cannot be split among the operands, so refuse, naming the user's
    line."""
    message = ("cannot differentiate `+` or `*` on lists or tuples (concatenation or "
               "repetition)")
    hint = ("append to a copy (`ys = xs[:]`, then `ys.append(v)`), or join arrays with "
            "np.concatenate / np.stack")
    _refuse_at_user_line(3, message, hint, "UnsupportedSyntax")


def _user_line(frame):
    """(file, line, text) of the user's statement that generated code is working on: from the
    nearest `# grad of:` / `# tangent of:` comment above the running line of the innermost
    generated frame at or above `frame` (helpers such as tree_gradient may sit in between)."""
    import linecache
    import os
    import re
    while frame is not None:
        for line in reversed(linecache.getlines(frame.f_code.co_filename)[:frame.f_lineno]):
            found = re.search(r"# (?:grad|tangent) of: (.*)   \[(.+):(\d+)\]$", line.rstrip())
            if found:
                filename = found.group(2)
                module_file = frame.f_globals.get("__file__") or ""
                if os.path.basename(module_file) == filename:
                    filename = module_file
                return filename, int(found.group(3)), found.group(1)
        frame = frame.f_back
    return "<unknown>", 0, ""


def _refuse_at_user_line(depth, message, hint, kind):
    """Raise s2s_ad.errors.`kind` at the user's line that the generated code `depth` frames up
    is working on (a TypeError with the same text where s2s_ad is not installed)."""
    import linecache
    import sys
    filename, lineno, text = _user_line(sys._getframe(depth))
    source_line = linecache.getline(filename, lineno).rstrip("\n") or text
    col = len(source_line) - len(source_line.lstrip())
    try:
        from . import errors
    except ImportError:             # a standalone module written by the CLI: s2s_ad is not there
        raise TypeError(f"{filename}:{lineno}: {message}\n    {text}\nhint: {hint}") from None
    raise getattr(errors, kind)(message, filename=filename, lineno=lineno, col=col,
                                source_line=source_line, hint=hint)


COMPLEX_HINT = ("split the complex value into real arrays (`c.real`, `c.imag`) before it meets "
                "the values you differentiate, and write the arithmetic on those")


def is_complex(value):
    """Is `value` a complex number or an array of complex numbers?"""
    if type(value) is complex:
        return True
    dtype = getattr(value, "dtype", None)
    return dtype is not None and getattr(dtype, "kind", None) == "c"


def _refuse_complex_derivative(depth):
    """A derivative came out complex: a complex value met a differentiated one. Complex
    numbers have no derivative convention in s2s_ad yet, so refuse rather than drop the
    imaginary part."""
    message = ("a complex value met a value being differentiated in this function (a complex "
               "constant, a module-level complex array or a complex argument that is not "
               "differentiated); s2s_ad does not differentiate complex numbers yet")
    _refuse_at_user_line(depth + 1, message, COMPLEX_HINT, "ComplexValue")


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int) or np.ndim(axis) == 0:
        axis = (int(axis),)
    return tuple(sorted(a % ndim for a in axis))


def unreduce(g, x, axis=None, keepdims=False):
    """Broadcast `g`, the adjoint of a reduction of `x` over `axis`, back to `x`'s shape."""
    shape = np.shape(x)
    if not keepdims and shape:
        g = np.reshape(g, tuple(1 if a in _axes(axis, len(shape)) else n
                                for a, n in enumerate(shape)))
    return np.broadcast_to(g, shape)


def reduction_count(x, axis=None, ddof=0):
    """How many elements of `x` a reduction over `axis` combines into each result, less `ddof`
    and never below zero (as np.var counts its degrees of freedom)."""
    shape = np.shape(x)
    count = 1
    for a in _axes(axis, len(shape)):
        count *= shape[a]
    return count if ddof == 0 else max(count - ddof, 0)


def divide_or_zero(a, b):
    """`a / b`, and 0 where `b` is 0. The rules' convention where a function is locally
    constant (np.std of one element) or has no derivative (np.std of equal entries, the norm of
    the zero vector): the derivative there is 0, the subgradient JAX picks, not 0 / 0."""
    zero = b == 0
    if not np.any(zero):                # the usual case costs one comparison on `b`
        return a / b
    xp = _xp(zero)
    return xp.where(zero, 0.0, a / xp.where(zero, 1.0, b))


def extremum_mask(x, y, axis=None, keepdims=False):
    """Where `x` attains its reduced max/min `y`, shared equally between ties."""
    hits = x == unreduce(y, x, axis, keepdims)
    ties = np.sum(hits, axis=None if axis is None else axis, keepdims=True)
    return hits / ties


def _reduction_parts(x, axis):
    """Axes, zero mask, zero count and product of the nonzero factors of each group."""
    axes = _axes(axis, np.ndim(x))
    zero = x == 0
    zeros = np.sum(zero, axis=axes, keepdims=True)
    nonzero = np.where(zero, 1, x)
    return axes, zero, zeros, nonzero, np.prod(nonzero, axis=axes, keepdims=True)


def prod_others(x, axis=None):
    """d np.prod(x, axis) / dx: each factor's group product without it (exact at zeros)."""
    _, zero, zeros, nonzero, product = _reduction_parts(x, axis)
    return np.where(zeros == 0, product / nonzero, np.where(zero & (zeros == 1), product, 0))


def prod_grad(g, y, x, axis=None, keepdims=False):
    """Adjoint of `y = np.prod(x, axis, keepdims)` with respect to `x`, given `y`'s adjoint `g`."""
    return unreduce(g, x, axis, keepdims) * prod_others(x, axis)


def prod_hvp(v, x, axis=None):
    """The Hessian of np.prod(x, axis) applied to `v` (shaped like `x`), group by group."""
    axes, zero, zeros, nonzero, product = _reduction_parts(x, axis)
    ratio = v / nonzero
    over_nonzero = np.sum(np.where(zero, 0, ratio), axis=axes, keepdims=True)
    at_zeros = np.sum(np.where(zero, v, 0), axis=axes, keepdims=True)
    no_zero = product / nonzero * (over_nonzero - ratio)
    one_zero = np.where(zero, product * over_nonzero, at_zeros * product / nonzero)
    two_zeros = np.where(zero, product * (at_zeros - v), 0)
    return np.where(zeros == 0, no_zero,
                    np.where(zeros == 1, one_zero, np.where(zeros == 2, two_zeros, 0)))


def _norm_axes(axis, ndim):
    """Axes of `np.linalg.norm`, in the caller's order (for matrix norms: rows, columns)."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int) or np.ndim(axis) == 0:
        return (int(axis) % ndim,)
    return tuple(int(a) % ndim for a in axis)


def _norm_kind(x, ord, axis):
    """'euclid' (2-norm, Frobenius), 'p' (other vector p-norms) or 'flat' (piecewise linear
    norms, whose direction is piecewise constant), or 'spectral' (2, -2, 'nuc' on matrices)."""
    axes = _norm_axes(axis, np.ndim(x))
    vector = len(axes) == 1
    if ord is None or (isinstance(ord, str) and ord == "fro") or (vector and ord == 2):
        return "euclid", axes
    if vector:
        return ("flat" if ord == 0 or np.isinf(ord) else "p"), axes
    if isinstance(ord, str) or abs(ord) == 2:
        return "spectral", axes
    return "flat", axes


def _share(hits, axes):
    """`hits` (booleans) as equal shares of one within each reduced group."""
    return hits / np.sum(hits, axis=axes, keepdims=True)


def norm_grad(g, y, x, ord=None, axis=None, keepdims=False):
    """Adjoint of `y = np.linalg.norm(x, ord, axis, keepdims)` with respect to `x`."""
    return unreduce(g, x, _norm_axes(axis, np.ndim(x)), keepdims) * \
        norm_direction(x, y, ord, axis, keepdims)


def norm_direction(x, y, ord=None, axis=None, keepdims=False):
    """d np.linalg.norm(x, ord, axis, keepdims) / dx, given the norm's value `y`."""
    kind, axes = _norm_kind(x, ord, axis)
    y = unreduce(y, x, axes, keepdims)
    if kind == "euclid":
        return divide_or_zero(x, y)
    magnitude = np.abs(x)
    if kind == "p":
        return np.sign(x) * divide_or_zero(magnitude, y) ** (ord - 1)
    if kind == "spectral":                      # from the SVD of each matrix
        rows, columns = axes
        u, _, vh = np.linalg.svd(np.moveaxis(x, (rows, columns), (-2, -1)), full_matrices=False)
        if isinstance(ord, str):                # 'nuc': the sum of the singular values
            direction = np.matmul(u, vh)
        elif ord == 2:
            direction = np.matmul(u[..., :, :1], vh[..., :1, :])
        else:
            direction = np.matmul(u[..., :, -1:], vh[..., -1:, :])
        # the zero matrix has no derivative: 0, as for the other norms (not one SVD's pick)
        return np.moveaxis(direction, (-2, -1), (rows, columns)) * (y != 0)
    if ord == 0:                                # a count of the nonzeros
        return np.zeros_like(x)
    if len(axes) == 1:                          # max or min |x|, shared between ties
        return np.sign(x) * _share(magnitude == y, axes)
    # 1 / inf: the largest column / row sum of |x|; -1 / -inf: the smallest
    rows, columns = axes
    sums = np.sum(magnitude, axis=columns if np.isinf(ord) else rows, keepdims=True)
    best = np.max(sums, axis=axes, keepdims=True) if ord > 0 else \
        np.min(sums, axis=axes, keepdims=True)
    return np.sign(x) * _share(sums == best, axes)


def _norm_second(x, y, ord, axis, keepdims):
    kind, axes = _norm_kind(x, ord, axis)
    if kind == "spectral":
        raise NotImplementedError(f"s2s_ad has no second derivative of np.linalg.norm with "
                                  f"ord={ord!r} (it would need the derivative of an SVD)")
    return kind, unreduce(y, x, axes, keepdims)


def norm_curvature(x, y, ord=None, axis=None, keepdims=False):
    """d norm_direction / dx, elementwise, with the norm's value `y` held fixed."""
    kind, y = _norm_second(x, y, ord, axis, keepdims)
    if kind == "euclid":
        return divide_or_zero(1.0, y) + np.zeros_like(x)
    if kind == "p" and ord != 1:                # for ord=1 the direction sign(x) is flat
        ratio = divide_or_zero(np.abs(x), y)
        return divide_or_zero((ord - 1) * ratio ** (ord - 2), y)
    return np.zeros_like(x)


def norm_slope(x, y, ord=None, axis=None, keepdims=False):
    """d norm_direction / dy, elementwise (y: the norm's value, spread over its group)."""
    kind, y = _norm_second(x, y, ord, axis, keepdims)
    if kind == "euclid":
        return -divide_or_zero(x, y * y)
    if kind == "p" and ord != 1:
        ratio = divide_or_zero(np.abs(x), y)
        return divide_or_zero((1 - ord) * np.sign(x) * ratio ** (ord - 1), y)
    return np.zeros_like(x)


def _layout(x, order):
    """What `order` means for a reshape of `x`: 'C' or 'F', or for `ravel(order='K')` of an
    array that is neither, the axes in memory order (largest |stride| first; NumPy walks each
    axis forwards even where its stride is negative)."""
    flags = getattr(x, "flags", None)
    if order not in ("A", "K") or flags is None or flags.c_contiguous:
        return "F" if order == "F" else "C"
    if flags.f_contiguous:
        return "F"
    if order == "A":
        return "C"
    strides = x.strides
    return tuple(sorted(range(np.ndim(x)), key=lambda a: -abs(strides[a])))


def unreshape(g, x, order="C"):
    """Adjoint of reshaping or raveling `x` in `order`: `g` back to `x`'s shape."""
    layout = _layout(x, order)
    if isinstance(layout, str):
        return np.reshape(g, np.shape(x), order=layout)
    shape = np.shape(x)
    g = np.reshape(g, tuple(shape[a] for a in layout))
    return np.transpose(g, tuple(int(i) for i in np.argsort(layout)))


def reshape_as(t, like, x, order="C"):
    """`t`, shaped like `x`, reshaped to `like`'s shape as `order` reads `x` (the adjoint of
    unreshape)."""
    layout = _layout(x, order)
    if isinstance(layout, str):
        return np.reshape(t, np.shape(like), order=layout)
    return np.reshape(np.transpose(t, layout), np.shape(like))


def _has_array_index(index):
    parts = index if isinstance(index, tuple) else (index,)
    for part in parts:
        if isinstance(part, (list, range)) or (hasattr(part, "dtype") and np.ndim(part) > 0
                                              and part.dtype != bool):
            return True
    return False


def scatter(x, index, g):
    """An array like `x`, zero except `g` added at `x[index]` (repeated indices add up)."""
    if _is_container(x):
        return container_scatter(x, index, g)
    out = np.zeros_like(x)
    if np.ndim(out) == 0:
        return out + g
    add_at(out, index, g)
    return out


def add_at(d, index, g):
    """`d[index] += g` in place, repeated indices adding up; `d` must be an array of its own."""
    if isinstance(d, (dict, list)):
        current = d.get(index) if isinstance(d, dict) else d[index]
        d[index] = g if current is None else current + g
        return
    g = unbroadcast(g, d[index])
    if _has_array_index(index):
        if _xp(d) is np:
            np.add.at(d, index, g)
        else:
            import cupyx
            cupyx.scatter_add(d, index, g)
    else:
        d[index] += g


def zero_at(g, index):
    """A copy of `g` with `g[index]` set to zero (the adjoint of overwriting `x[index]`)."""
    if isinstance(g, dict):
        return GradDict((k, v) for k, v in g.items() if k != index)
    if isinstance(g, (list, tuple)):
        out = GradList(g)
        if -len(out) <= index < len(out):
            out[index] = None
        return out
    out = np.array(g, copy=True) if _xp(g) is np else g.copy()
    out[index] = 0
    return out


def last_writes(g, index):
    """`g[index]`, the adjoint that `x[index] = v` hands to `v`, keeping only the writes that
    stay: where `index` names one position more than once, NumPy keeps the last value written
    there, so the earlier entries of `v` get zero."""
    part = g[index]
    if _is_container(g) or not _has_array_index(index):
        return part
    xp = _xp(g)
    order = xp.full(g.shape, -1, dtype=np.intp)
    ids = xp.arange(part.size, dtype=np.intp).reshape(part.shape)
    order[index] = ids                      # the same index, so the same write wins
    kept = order[index] == ids
    if bool(kept.all()):
        return part
    return xp.where(kept, part, 0)


def overwrite_at(x, index, g):
    """Zeros like `x` with `g` written at `x[index]`, the last write winning (the adjoint of
    `last_writes`)."""
    if _is_container(x):
        return container_scatter(x, index, g)
    out = zeros_like(x)
    out[index] = g
    return out


def snapshot(value):
    """A copy of `value` that later in-place writes cannot change (arrays in a tuple, list or
    dict are copied too)."""
    if type(value) in (tuple, list):
        return type(value)(snapshot(v) for v in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):          # a namedtuple
        return type(value)(*(snapshot(v) for v in value))
    if type(value) is dict:
        return {k: snapshot(v) for k, v in value.items()}
    copy = getattr(value, "copy", None)
    return copy() if copy is not None else value


HAS_AUX = type("HasAux", (), {"__repr__": lambda self: "HAS_AUX"})()


class ScalarSeed:
    """The seed a transform that needs a scalar output passes (hvp, hessian): 1 for a scalar,
    and for an array an error that names that transform, not grad, and what to use instead."""

    def __init__(self, transform, instead):
        self.transform = transform
        self.instead = instead

    def __repr__(self):
        return self.transform.upper()


GRAD = ScalarSeed("grad", "use s2s_ad.vjp(...) and pass seed= (for example seed=ones_like(y) "
                          "to differentiate the sum of the outputs)")
HVP = ScalarSeed("hvp", "for the second derivatives of each output, use "
                        "s2s_ad.jacobian(s2s_ad.jacobian(f)); for those of a sum, differentiate "
                        "a function that returns the sum")
HESSIAN = ScalarSeed("hessian", "for the second derivatives of each output (shape out.shape + "
                                "x.shape + x.shape), use s2s_ad.jacobian(s2s_ad.jacobian(f))")


def seed_like(out, seed, function_name="f"):
    """The initial adjoint of `out`: `seed`, or 1 when `out` is a scalar and no seed is given."""
    if type(seed) is np.ndarray and type(out) is np.ndarray and seed.shape == out.shape \
            and seed.dtype.kind == "f":
        return seed                   # the common case, first: a callee's backward pass
    if out is None:
        # also what a name that Python would find unbound (a loop that ran zero times) holds
        raise TypeError(f"{function_name} returned None (or a name that was never assigned); "
                        f"there is nothing to differentiate")
    if seed is None or isinstance(seed, ScalarSeed):
        asked = GRAD if seed is None else seed
        if _is_container(out) or np.ndim(out) != 0:
            raise TypeError(
                f"{asked.transform} requires {function_name} to return a scalar, but it returned "
                f"an array of shape {np.shape(out)}; {asked.instead}")
        return np.ones_like(out)
    if seed is HAS_AUX:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError(f"has_aux=True requires {function_name} to return a pair "
                            f"(loss, aux), but it returned {type(out).__name__}")
        return GradList([seed_like(out[0], None, function_name), None])
    if not _is_container(out) and isinstance(seed, (list, tuple)):
        # a seed written as a list for an array output: an array on the output's backend
        dtype = getattr(out, "dtype", None)
        dtype = dtype if dtype is not None and np.issubdtype(dtype, np.inexact) else None
        seed = _xp(out).asarray(seed, dtype=dtype)
    if _is_container(out) or _is_container(seed):
        return as_adjoint(seed)
    if is_complex(seed):
        raise TypeError(f"the seed for {function_name} is complex, and s2s_ad does not "
                        f"differentiate complex numbers yet; pass a real seed")
    if np.shape(seed) != np.shape(out):
        raise ValueError(f"the seed has shape {np.shape(seed)} but {function_name} returned "
                         f"shape {np.shape(out)}; the seed must have the output's shape")
    return seed


def gradient_like(g, x):
    """`g` as a gradient for `x`: the same type, dtype and shape, an array of its own."""
    if type(g) is np.ndarray and type(x) is np.ndarray and g.dtype == x.dtype \
            and g.dtype.kind == "f" and g.shape == x.shape and g.base is None and g.flags.writeable:
        return g                      # the common case, first: nothing to convert
    if _is_container(x):
        return tree_gradient(g, x)
    if is_complex(g):
        _refuse_complex_derivative(2)
    if isinstance(x, float):
        return float(g)
    if isinstance(x, complex):
        return complex(g)
    if np.ndim(x) == 0 and not hasattr(x, "shape"):
        return float(g)
    dtype = getattr(x, "dtype", None)
    xp = _xp(x)
    g = xp.asarray(g)
    if dtype is not None and g.dtype != dtype:
        g = g.astype(dtype)
    if np.shape(g) != np.shape(x):
        g = xp.broadcast_to(g, np.shape(x))
    if not g.flags.writeable or g.base is not None:
        g = g.copy()
    if isinstance(x, np.generic):
        return g[()]
    return g


def through_cast(g, y):
    """The adjoint of a conversion to `y`: nothing flows back through a cast to integers."""
    dtype = getattr(y, "dtype", None)
    if isinstance(y, (bool, int)) or (dtype is not None and not np.issubdtype(dtype, np.inexact)):
        return _xp(g).zeros(np.shape(g))
    return g


def linspace_fraction(y, num, endpoint, axis):
    """For `y = np.linspace(start, stop, num)`: how far along each entry is, shaped to broadcast
    against `y` (`y = start + t * (stop - start)`)."""
    t = _xp(y).linspace(0.0, 1.0, num, endpoint=endpoint)
    shape = [1] * np.ndim(y)
    shape[axis] = num
    return t.reshape(shape)


def across_linspace(value, y, axis):
    """`start` or `stop` of `y = np.linspace(...)`, shaped to broadcast against `y`."""
    shape = list(np.shape(y))
    del shape[axis]
    return _xp(y).expand_dims(_xp(y).broadcast_to(value, shape), axis)


def check_not_view(value, read, written_at, where):
    """`value` was read as `read` (say `y[i]`) and is used after `y` is written in place (at
    line `written_at`): fine for a number (a copy), refused for a view, which sees the write."""
    if getattr(value, "base", None) is None or getattr(value, "flags", None) is None:
        return
    import linecache
    filename, line, col = where.rsplit(":", 2)
    source_line = linecache.getline(filename, int(line)).rstrip("\n")
    base = read.split("[", 1)[0]
    message = (f"`{read}` is a view of `{base}` (it has {np.ndim(value)} dimension(s)), which is "
               f"written in place at line {written_at} before it is read here; the derivative "
               f"would miss that write")
    hint = f"take a copy (`{read}.copy()`) or read it before writing into `{base}`"
    try:
        from .errors import UnsupportedSyntax
    except ImportError:             # a standalone module written by the CLI: s2s_ad is not there
        raise TypeError(f"{where}: {message}\n    {source_line.strip()}\nhint: {hint}") from None
    raise UnsupportedSyntax(message, filename=filename, lineno=int(line), col=int(col) - 1,
                            source_line=source_line, hint=hint)


def check_rebinds(value, alias, where):
    """`y op= v` is differentiated as `y = y op v`: exact for numbers, not for an array that
    `alias` may share, which the update would change as well. Refuse that case."""
    if isinstance(value, np.generic) or getattr(value, "flags", None) is None:
        return
    import linecache
    import re
    filename, line, col = where.rsplit(":", 2)
    source_line = linecache.getline(filename, int(line)).rstrip("\n")
    update = re.match(r"\s*(\w+)\s*([-+*/@%]+)=", source_line)
    name, op = update.groups() if update else ("y", "+")
    message = (f"`{name} {op}= ...` updates the array `{name}` in place, and `{alias}` may be that "
               f"same array (or a view of it); s2s_ad cannot follow an in-place change through "
               f"an alias")
    hint = f"for a new array, write `{name} = {name} {op} ...`"
    if alias.isidentifier():        # an expression's value (`x * 2.0`) cannot be written into
        hint += f"; to change `{alias}`, write into it (`{alias}[...] {op}= ...`)"
    try:
        from .errors import SharedUpdate
    except ImportError:             # a standalone module written by the CLI: s2s_ad is not there
        raise TypeError(f"{where}: {message}\n    {source_line.strip()}\nhint: {hint}") from None
    raise SharedUpdate(message, filename=filename, lineno=int(line), col=int(col) - 1,
                       source_line=source_line, hint=hint)


def check_method_owner(owner, method, where):
    """`owner.method(...)` is differentiated with the rule of the array method: right when
    `owner` is an array or a number, wrong for a module (`np.sum(x)` with `np` a parameter)
    or another object whose method means something else. Refuse those."""
    if hasattr(owner, "__array__") or hasattr(owner, "__array_namespace__") or \
            isinstance(owner, (int, float, complex, np.generic)):
        return
    import linecache
    filename, line, col = where.rsplit(":", 2)
    source_line = linecache.getline(filename, int(line)).rstrip("\n")
    kind = "a module" if type(owner).__name__ == "module" else f"a {type(owner).__name__}"
    message = (f"cannot differentiate `.{method}(...)` on {kind}: s2s_ad reads a call on a "
               f"local name as the array method `.{method}`, and here the name holds {kind}")
    hint = ("call the function through a module imported at the top of the file "
            f"(`np.{method}(...)`), not through a parameter or a local name"
            if kind == "a module" else f"call `.{method}` on an array, or use a NumPy function")
    try:
        from .errors import UnsupportedSyntax
    except ImportError:             # a standalone module written by the CLI: s2s_ad is not there
        raise TypeError(f"{where}: {message}\n    {source_line.strip()}\nhint: {hint}") from None
    raise UnsupportedSyntax(message, filename=filename, lineno=int(line), col=int(col) - 1,
                            source_line=source_line, hint=hint)


def stop_gradient(x):
    """Inside a differentiated function: treat `x` as a constant (PyTorch's `detach`)."""
    return x


@contextlib.contextmanager
def no_grad():
    """Inside a differentiated function: every value computed in the block is a constant."""
    yield


def _swap(a):
    return np.swapaxes(a, -1, -2)


def matmul_grad_a(g, a, b):
    """Adjoint of `a @ b` with respect to `a`, for 1-D, 2-D and batched operands."""
    if np.ndim(b) == 1:
        if np.ndim(a) == 1:
            return g * b
        return unbroadcast(np.expand_dims(g, -1) * b, a)
    if np.ndim(a) == 1:
        return unbroadcast(np.matmul(np.expand_dims(g, -2), _swap(b))[..., 0, :], a)
    return unbroadcast(np.matmul(g, _swap(b)), a)


def matmul_grad_b(g, a, b):
    """Adjoint of `a @ b` with respect to `b`, for 1-D, 2-D and batched operands."""
    if np.ndim(a) == 1:
        if np.ndim(b) == 1:
            return g * a
        return unbroadcast(np.expand_dims(a, -1) * np.expand_dims(g, -2), b)
    if np.ndim(b) == 1:
        return unbroadcast(np.matmul(_swap(a), np.expand_dims(g, -1))[..., 0], b)
    return unbroadcast(np.matmul(_swap(a), g), b)


def dot_grad_a(g, a, b):
    """Adjoint of `np.dot(a, b)` with respect to `a`, for operands of any dimension.

    `np.dot` contracts the last axis of `a` with the second-to-last of `b` (the only axis of
    a 1-D `b`); its result's axes are `a`'s free axes, then `b`'s.
    """
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * b, a)
    if np.ndim(b) == 1:
        return np.expand_dims(g, -1) * b
    free_a, nb = np.ndim(a) - 1, np.ndim(b)
    return np.tensordot(g, b, axes=(list(range(free_a, free_a + nb - 1)),
                                    list(range(nb - 2)) + [nb - 1]))


def dot_grad_b(g, a, b):
    """Adjoint of `np.dot(a, b)` with respect to `b`, for operands of any dimension."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * a, b)
    free_a = list(range(np.ndim(a) - 1))
    grad = np.tensordot(a, g, axes=(free_a, free_a))    # the contracted axis comes first
    return grad if np.ndim(b) == 1 else np.moveaxis(grad, 0, -2)


_SUBLIST_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _sublist_term(sublist):
    """An einsum sublist ([0, 1], [Ellipsis, 0]) as subscript letters, as NumPy maps them."""
    return "".join("..." if s is Ellipsis else _SUBLIST_LETTERS[s] for s in sublist)


def einsum_form(subscripts, operands, k=0):
    """(subscripts, arrays, k) of the call `np.einsum(subscripts, *operands)`, `k` turned from
    an index of `operands` into one of `arrays`. NumPy takes two forms: a subscripts string,
    ('ij,jk', a, b), or sublists, (a, [0, 1], b, [1, 2], [0, 2]) with the output optional; in
    the second `subscripts` is the first array, and k == -1 names it."""
    if isinstance(subscripts, str):
        return subscripts, operands, k
    call = (subscripts,) + tuple(operands)
    arrays, sublists = call[0:len(call) - len(call) % 2:2], call[1::2]
    terms = ",".join(_sublist_term(s) for s in sublists)
    if len(call) % 2:                    # an odd count ends with the output sublist
        terms += "->" + _sublist_term(call[-1])
    return terms, arrays, (k + 1) // 2


def _with_argument(subscripts, operands, k, u):
    """(subscripts, operands) with operand `k` replaced by `u`; k == -1 is `subscripts` itself
    (the first array of the sublist form)."""
    if k == -1:
        return u, operands
    return subscripts, [u if i == k else op for i, op in enumerate(operands)]


def _einsum_terms(subscripts, operands):
    """Explicit per-operand subscripts and output, with `...` spelled out as letters."""
    subscripts = subscripts.replace(" ", "")
    inputs, _, output = subscripts.partition("->")
    terms = inputs.split(",")
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in subscripts]
    widest = 0
    for term, operand in zip(terms, operands):
        if "..." in term:
            widest = max(widest, np.ndim(operand) - (len(term) - 3))
    ellipsis = "".join(spare[:widest])
    expanded = []
    for term, operand in zip(terms, operands):
        if "..." in term:
            width = np.ndim(operand) - (len(term) - 3)
            term = term.replace("...", ellipsis[widest - width:])
        expanded.append(term)
    if "->" in subscripts:
        output = output.replace("...", ellipsis)
    else:
        letters = "".join(expanded)
        output = ellipsis + "".join(sorted(c for c in set(letters)
                                           if letters.count(c) == 1 and c not in ellipsis))
    return expanded, output


def einsum_grad(g, subscripts, k, *operands):
    """Adjoint of `np.einsum(subscripts, *operands)` with respect to operand `k`, in either of
    NumPy's forms (see einsum_form)."""
    subscripts, operands, k = einsum_form(subscripts, operands, k)
    terms, output = _einsum_terms(subscripts, operands)
    x = operands[k]
    target = terms[k]
    others = [t for i, t in enumerate(terms) if i != k] + [output]
    other_operands = [op for i, op in enumerate(operands) if i != k] + [g]
    unique = "".join(dict.fromkeys(target))
    sizes = {c: np.shape(x)[i] for i, c in enumerate(target)}
    reachable = "".join(c for c in unique if any(c in t for t in others))
    grad = np.einsum(",".join(others) + "->" + reachable, *other_operands)
    # axes where `x` has size 1 but was broadcast against a longer one sum back to size 1
    stretched = tuple(i for i, c in enumerate(reachable)
                      if sizes[c] == 1 and np.shape(grad)[i] != 1)
    if stretched:
        grad = np.sum(grad, axis=stretched, keepdims=True)
    # letters only `x` carries were summed away: broadcast back along them
    grad = np.reshape(grad, tuple(sizes[c] if c in reachable else 1 for c in unique))
    grad = np.broadcast_to(grad, tuple(sizes[c] for c in unique))
    if unique == target:
        return grad
    # repeated letters (a diagonal such as 'ii'): place the values on that diagonal
    out = np.zeros_like(x, dtype=np.result_type(grad, x))
    ranges = np.ogrid[tuple(slice(sizes[c]) for c in unique)]
    out[tuple(ranges[unique.index(c)] for c in target)] = grad
    return out


def einsum_swap(subscripts, k, u, *operands):
    """`np.einsum(subscripts, *operands)` with operand `k` replaced by `u` (k == -1: the first
    array of the sublist form)."""
    subscripts, operands = _with_argument(subscripts, operands, k, u)
    return np.einsum(subscripts, *operands)


def einsum_grad_swap(g, subscripts, j, k, u, *operands):
    """The adjoint with respect to operand `j` of `einsum_grad(g, subscripts, k, *operands)`,
    given that result's adjoint `u` (zero for `j == k`: the result is linear in the others)."""
    if j == k:
        return np.zeros_like(subscripts if j == -1 else operands[j])
    subscripts, operands = _with_argument(subscripts, operands, k, u)
    return einsum_grad(g, subscripts, j, *operands)


def tie_share(x, y):
    """1 where `x` wins a max against `y`, 1/2 where they tie, 0 where it loses."""
    return (x > y) + 0.5 * (x == y)


def untranspose(g, axes=None):
    """Adjoint of transposing by `axes`: transpose back by the inverse permutation."""
    if axes is None or axes == () or axes == (None,):
        return np.transpose(g)
    if len(axes) == 1 and np.ndim(axes[0]) == 1:
        axes = tuple(axes[0])
    ndim = np.ndim(g)
    return np.transpose(g, tuple(int(i) for i in np.argsort([a % ndim for a in axes])))


def transpose_by(g, axes=None):
    """`g` transposed by `axes` as `x.transpose(*axes)` takes them (the adjoint of untranspose)."""
    if axes is None or axes == () or axes == (None,):
        return np.transpose(g)
    if len(axes) == 1 and np.ndim(axes[0]) == 1:
        axes = tuple(axes[0])
    return np.transpose(g, tuple(axes))


# Containers -------------------------------------------------------------------------------
# The adjoint of a list, tuple or dict has the same structure; a missing entry (None in a
# list, an absent key in a dict) is a zero. `+` merges entries, so generated code accumulates
# container adjoints exactly as it accumulates arrays.

def _add_entries(mine, theirs):
    """The entries of two list adjoints added position by position (None is a zero)."""
    if isinstance(theirs, (int, float)) and theirs == 0:
        return list(mine)
    longest = max(len(mine), len(theirs))
    mine = list(mine) + [None] * (longest - len(mine))
    theirs = list(theirs) + [None] * (longest - len(theirs))
    return [a if b is None else b if a is None else a + b for a, b in zip(mine, theirs)]


class GradList(list):
    """Adjoint of a list or tuple: elementwise `+`, None for a zero entry."""

    def __add__(self, other):
        return GradList(_add_entries(self, other))

    __radd__ = __add__


class GradTuple(tuple):
    """The gradient for a tuple argument: a tuple, with GradList's elementwise `+` (a caller
    adds the gradients two calls return for the same tuple)."""

    def __add__(self, other):
        return GradTuple(_add_entries(self, other))

    __radd__ = __add__


class GradDict(dict):
    """Adjoint of a dict: keywise `+`, an absent key for a zero entry."""

    def __add__(self, other):
        if isinstance(other, (int, float)) and other == 0:
            return self
        merged = GradDict(self)
        for key, value in other.items():
            merged[key] = value if merged.get(key) is None else merged[key] + value
        return merged

    __radd__ = __add__


def _is_container(x):
    return isinstance(x, (list, tuple, dict))


def as_adjoint(g):
    """`g` with every list, tuple and dict in it made a GradList or GradDict, so `+` adds it
    leaf by leaf. A container adjoint that comes from outside the generated code (a seed, a
    callee's gradient, shaped like its argument) is a plain one, and `+` on plain lists and
    tuples concatenates: a second contribution would be appended, not added."""
    if isinstance(g, dict):
        return GradDict((key, as_adjoint(value)) for key, value in g.items())
    if isinstance(g, (list, tuple)):
        return GradList(as_adjoint(value) for value in g)
    return g


def container_scatter(x, index, g):
    """Adjoint of reading `x[index]` from a list, tuple or dict."""
    if isinstance(x, dict):
        return GradDict({index: g})
    if isinstance(index, slice):
        out = GradList([None] * len(x))
        out[index] = list(g)
        return out
    out = GradList([None] * len(x))
    out[index] = g
    return out


def element(g, index, like):
    """Entry `index` of a container adjoint `g`, as an array like `like` (zero if missing)."""
    if isinstance(g, dict):
        value = g.get(index)
    elif isinstance(g, (list, tuple)) and -len(g) <= index < len(g):
        value = g[index]
    elif isinstance(g, (list, tuple)):
        value = None
    else:
        value = g[index]
    if value is None:
        return zeros_like(like) if not _is_container(like) else _zero_tree(like)
    return value


def _zero_tree(like):
    if isinstance(like, dict):
        return GradDict()
    return GradList([None] * len(like))


def put_entry(g, index, value):
    """A list adjoint with entry `index` set to `value` (undoing `v = xs.pop()`)."""
    out = GradList(g) if isinstance(g, (list, tuple)) else GradList()
    out.extend([None] * (index + 1 - len(out)))
    out[index] = value
    return out


def truncate(g, length):
    """A list adjoint cut to `length` entries (undoing `xs.append(v)`)."""
    if isinstance(g, (list, tuple)):
        return GradList(g[:length])
    return g


def spread(g, xs):
    """Adjoint of the builtin `sum(xs)`: every element receives `g`, unbroadcast."""
    if not _is_container(xs):
        return unreduce(g, xs, 0)
    return GradList(unbroadcast(g, x) for x in xs)


def unstack(g, xs, axis=0):
    """Adjoint of `np.stack(xs, axis)`: slices of `g` along `axis`."""
    return GradList(np.take(g, i, axis=axis) for i in range(len(xs)))


def unconcatenate(g, xs, axis=0):
    """Adjoint of `np.concatenate(xs, axis)`: pieces of `g` with the sizes of `xs` (axis None:
    the arrays were flattened first, so the pieces are too)."""
    if axis is None:
        sizes = np.cumsum([np.size(x) for x in xs])[:-1]
        return GradList(np.reshape(piece, np.shape(x))
                        for piece, x in zip(np.split(g, sizes), xs))
    sizes = np.cumsum([np.shape(x)[axis] for x in xs])[:-1]
    return GradList(np.split(g, sizes, axis=axis))


def _stands_in_for(part, like):
    """What takes `part`'s place in `concatenator[...]` so that it fills the same positions:
    `like` shaped as the part, with slices (`0:3` meaning a range) spelled out."""
    if isinstance(part, str):
        return part                      # a directive such as '0,2,1' is kept as it is
    if isinstance(part, slice):
        return like(np.r_[part])
    if np.ndim(part) == 0 and not isinstance(part, np.ndarray):
        return like(np.asarray(part)).item()     # a scalar stays a scalar (np.r_ treats them apart)
    return like(np.asarray(part))


def _refuse_matrix(result):
    if isinstance(result, np.matrix):
        raise TypeError("np.r_/np.c_ with the 'r' or 'c' directive make an np.matrix, whose "
                        "operators differ from arrays': the derivative would be wrong")
    return result


def _refuse_tuple_index(parts):
    if len(parts) == 1 and isinstance(parts[0], tuple):
        raise TypeError("np.r_[t]/np.c_[t] with t a tuple takes t's entries as the entries, "
                        "which s2s_ad cannot differentiate: write the entries in the brackets "
                        "(np.r_[a, b]) or use np.concatenate")


def concatenator_place(u, concatenator, k, *parts):
    """`concatenator[parts]` (np.r_, np.c_) with part `k` replaced by `u` and every other part
    by zeros: where part k's values land, and the transpose of `concatenator_part_grad`."""
    _refuse_tuple_index(parts)
    replaced = [u if j == k else _stands_in_for(part, np.zeros_like)
                for j, part in enumerate(parts)]
    return _refuse_matrix(concatenator[tuple(replaced)])


def concatenator_part_grad(g, concatenator, k, *parts):
    """Adjoint of `concatenator[parts]` (np.r_, np.c_) with respect to part `k`: each entry of
    part k lands at one position of the result (the parts are only laid side by side), found
    by numbering part k's entries 1, 2, ... and placing the numbers."""
    _refuse_tuple_index(parts)
    count = int(np.size(parts[k]))
    numbers = np.reshape(np.arange(1, count + 1), np.shape(parts[k]))
    if np.ndim(numbers) == 0 and not isinstance(parts[k], np.ndarray):
        numbers = 1
    placed = np.ravel(np.asarray(concatenator_place(numbers, concatenator, k, *parts)))
    positions = np.flatnonzero(placed)
    positions = positions[np.argsort(placed[positions], kind="stable")]
    return np.reshape(np.ravel(g)[positions], np.shape(parts[k]))


def concatenator_tangent(concatenator, parts, tangents):
    """Tangent of `concatenator[parts]`: the parts' tangents laid out as the parts were."""
    _refuse_tuple_index(parts)
    replaced = [_stands_in_for(part, np.zeros_like) if t is None else t
                for part, t in zip(parts, tangents)]
    return _refuse_matrix(concatenator[tuple(replaced)])


def tree_gradient(g, x):
    """`gradient_like` applied leaf by leaf, filling zeros where `g` has no entry."""
    # the adjoint kinds of list, tuple and dict: a caller that passed the same container to
    # two functions adds their gradients with `+`, which must add leaf by leaf
    if isinstance(x, dict):
        g = g if isinstance(g, dict) else {}
        return GradDict((k, tree_gradient(g.get(k), v)) for k, v in x.items())
    if isinstance(x, (list, tuple)):
        g = g if isinstance(g, (list, tuple)) else [None] * len(x)
        g = list(g) + [None] * (len(x) - len(g))
        kind = GradTuple if isinstance(x, tuple) else GradList
        return kind(tree_gradient(gi, xi) for gi, xi in zip(g, x))
    return gradient_like(0.0 if g is None else g, x)


def check_differentiable(name, value):
    """Refuse to differentiate with respect to integers (or containers holding them)."""
    if type(value) is np.ndarray and value.dtype.kind == "f":
        return                        # the common case, first
    if isinstance(value, dict):
        for key, item in value.items():
            check_differentiable(f"{name}[{key!r}]", item)
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            check_differentiable(f"{name}[{index}]", item)
        return
    if not isinstance(value, (float, complex, int, np.generic)) and not hasattr(value, "dtype"):
        raise TypeError(f"cannot differentiate with respect to {name!r}: it is a "
                        f"{type(value).__name__}, not a number, an array or a dict, list or "
                        f"tuple of them; pass the arrays it holds instead (for example a dict "
                        f"of parameters)")
    dtype = getattr(value, "dtype", None)
    if isinstance(value, complex) or (dtype is not None and np.issubdtype(dtype, np.complexfloating)):
        kind = type(value).__name__ if dtype is None else f"array of {dtype}"
        raise TypeError(f"cannot differentiate with respect to {name!r}: it is complex "
                        f"({kind}), and s2s_ad does not differentiate complex numbers yet; "
                        f"pass its real and imaginary parts as two real arguments")
    if isinstance(value, bool) or isinstance(value, int) or (
            dtype is not None and not np.issubdtype(dtype, np.inexact)):
        kind = type(value).__name__ if dtype is None else f"array of {dtype}"
        raise TypeError(f"cannot differentiate with respect to {name!r}: it is an integer "
                        f"({kind}); pass a float (for example {name}=float(...) or "
                        f".astype(float))")


# Helpers of the rules for builtins max/min, cumsum, hstack and friends, repeat, tile, diag,
# diagonal, trace, take, sort, average, solve, tensordot, inner, kron, pad and item ----------

__all__ += [
    "pick_grad", "unpick", "pick_tangent", "uncumsum", "unjoin", "rejoin", "unrepeat", "untile", "undiag",
    "undiagonal", "take_index", "along_axis_index", "sort_index", "average_weights", "unweight",
    "column_shape", "tensordot_subscripts", "inner_subscripts", "kron_parts", "pad_interior",
    "constant_pad_width",
    "pad_value_grad", "pad_values", "item_index",
]


def _host(x):
    """`x` as a NumPy value (a CuPy array is copied to the host)."""
    if type(x).__module__.startswith("cupy"):
        return x.get()
    return np.asarray(x)


def _pick_shares(z, x, args, key):
    """For `z = max(*args)` or `min(*args)`: the share of `z` that `x` (one of `args`, or the
    single iterable argument) receives: 1 where `x` is the result, split equally between ties
    (as np.maximum does)."""
    if key is not None:
        raise NotImplementedError("s2s_ad cannot differentiate max() or min() with key=; "
                                  "compare the values themselves (np.argmax, np.maximum)")
    if len(args) > 1:
        return (x == z) / sum(bool(a == z) for a in args)
    if isinstance(x, (list, tuple)):
        hits = [bool(e == z) for e in x]
        return [h / sum(hits) for h in hits]
    hits = x == z
    return hits / np.sum(hits)


def pick_grad(g, z, x, args, key=None):
    """Adjoint, for the argument `x`, of `z = max(*args)` / `min(*args)` given `z`'s adjoint
    `g` (a GradList when `x` is the single list argument)."""
    share = _pick_shares(z, x, args, key)
    if isinstance(share, list):
        return GradList(g * s for s in share)
    return g * share


def unpick(u, z, x, args, key=None):
    """The adjoint of `pick_grad` with respect to `g`: `u`, shaped like `x`'s adjoint, summed
    against the shares (a missing list entry is a zero)."""
    share = _pick_shares(z, x, args, key)
    if isinstance(share, list):
        return sum((ui * s for ui, s in zip(u, share) if ui is not None), 0.0)
    return np.sum(u * share)


def took_default(args):
    """1.0 when `max(xs, default=...)` / `min` returned its default (`xs` was empty), else 0.0."""
    return 1.0 if len(args) == 1 and len(args[0]) == 0 else 0.0


def pick_tangent(z, args, tangents, key=None):
    """Tangent of `z = max(*args)` / `min(*args)`: the tangents of the winners, ties sharing."""
    total = 0.0
    for x, t in zip(args, tangents):
        if t is None:
            continue
        share = _pick_shares(z, x, args, key)
        if isinstance(share, list):
            total = total + sum((ti * s for ti, s in zip(t, share) if ti is not None), 0.0)
        else:
            total = total + np.sum(t * share)
    return total


def uncumsum(g, x, axis=None):
    """Adjoint of `np.cumsum(x, axis)`: sums of `g` from each position to the end (of the
    flattened array when `axis` is None), in `x`'s shape."""
    if axis is None:
        return np.reshape(np.flip(np.cumsum(np.flip(np.ravel(g)))), np.shape(x))
    return np.flip(np.cumsum(np.flip(g, axis), axis), axis)


def _joined_shape(shape, kind):
    """The shape np.hstack ('h'), np.vstack ('v'), np.column_stack ('column') or np.dstack
    ('d') gives an input of `shape` before joining."""
    if kind == "h":
        return shape or (1,)
    if kind == "v":
        return shape if len(shape) >= 2 else (1,) + (shape or (1,))
    if kind == "column":
        return shape if len(shape) >= 2 else (shape or (1,)) + (1,)
    if len(shape) >= 3:
        return shape
    return {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}[len(shape)]


def unjoin(g, xs, kind):
    """Adjoint of np.hstack / vstack / column_stack / dstack (`kind` 'h', 'v', 'column', 'd')
    of `xs`: the piece of `g` each input became, in that input's shape."""
    shapes = [_joined_shape(tuple(shape_of(x)), kind) for x in xs]
    axis = {"v": 0, "column": 1, "d": 2}.get(kind, 0 if len(shapes[0]) == 1 else 1)
    ends = [int(e) for e in np.cumsum([s[axis] for s in shapes])[:-1]]
    return GradList(np.reshape(part, shape_of(x))
                    for part, x in zip(np.split(g, ends, axis=axis), xs))


def rejoin(u, xs, kind):
    """The adjoint of `unjoin`: the pieces in `u` (None for a zero) joined as np.hstack /
    vstack / column_stack / dstack (`kind`) joined `xs`."""
    parts = [zeros_like(x) if part is None else part for part, x in zip(u, xs)]
    return {"h": np.hstack, "v": np.vstack, "column": np.column_stack, "d": np.dstack}[kind](parts)


def unrepeat(g, a, repeats, axis=None):
    """Adjoint of `np.repeat(a, repeats, axis)`: each entry of `a` gets the sum of its copies."""
    shape = tuple(shape_of(a))
    flat = (int(np.prod(shape)),) if axis is None else shape
    axis = 0 if axis is None else axis % len(shape)
    n = flat[axis]
    counts = _host(repeats).reshape(-1)
    if counts.size == 1:                        # every entry repeated as often: a reshape
        r = int(counts[0])
        grouped = np.reshape(g, flat[:axis] + (n, r) + flat[axis + 1:])
        return np.reshape(np.sum(grouped, axis=axis + 1), shape)
    owner = _xp(g).asarray(np.repeat(np.arange(n), counts))
    moved = np.moveaxis(np.reshape(g, flat[:axis] + (-1,) + flat[axis + 1:]), axis, 0)
    out = np.zeros_like(moved, shape=(n,) + np.shape(moved)[1:])
    add_at(out, owner, moved)
    return np.reshape(np.moveaxis(out, 0, axis), shape)


def untile(g, a, reps):
    """Adjoint of `np.tile(a, reps)`: the sum of the copies of `a` in `g`."""
    shape = tuple(shape_of(a))
    reps = tuple(int(r) for r in np.ravel(reps))
    dims = max(len(reps), len(shape))
    padded = (1,) * (dims - len(shape)) + shape
    reps = (1,) * (dims - len(reps)) + reps
    g = np.reshape(g, tuple(n for pair in zip(reps, padded) for n in pair))
    return np.reshape(np.sum(g, axis=tuple(range(0, 2 * dims, 2))), shape)


def undiagonal(g, a, offset=0, axis1=0, axis2=1):
    """Adjoint of `np.diagonal(a, offset, axis1, axis2)`: zeros like `a` with `g` (or `g`
    broadcast along the diagonal, for np.trace) on that diagonal."""
    out = np.zeros_like(a, dtype=np.result_type(g, a))
    inner = np.moveaxis(out, (axis1, axis2), (-2, -1))        # a view: writes reach `out`
    rows, columns = np.shape(inner)[-2:]
    length = max(0, min(rows - max(-offset, 0), columns - max(offset, 0)))
    i = _xp(out).arange(length)
    inner[..., i + max(-offset, 0), i + max(offset, 0)] = g
    return out


def undiag(g, v, k=0):
    """Adjoint of `np.diag(v, k)`: the k-th diagonal of `g` for a vector `v`; for a matrix `v`,
    zeros like `v` with `g` on its k-th diagonal."""
    if np.ndim(v) == 1:
        return np.diagonal(g, k)
    return undiagonal(g, v, k)


def take_index(a, indices, axis=None, mode="raise"):
    """An index such that `a[index]` is `np.take(a, indices, axis, mode=mode)`."""
    shape = tuple(shape_of(a))
    xp = _xp(a)
    n = int(np.prod(shape)) if axis is None else shape[axis]
    if not isinstance(indices, (int, np.integer)):
        indices = xp.asarray(indices)
    if mode == "clip":
        indices = xp.clip(indices, 0, n - 1)
    elif mode == "wrap" or axis is None:
        indices = indices % n
    if axis is None:
        return tuple(xp.unravel_index(indices, shape))
    return (slice(None),) * (axis % len(shape)) + (indices,)


def along_axis_index(a, indices, axis):
    """An index such that `a[index]` is `np.take_along_axis(a, indices, axis)`."""
    shape = tuple(shape_of(a))
    xp = _xp(a)
    if axis is None:
        return tuple(xp.unravel_index(xp.asarray(indices) % int(np.prod(shape)), shape))
    axis = axis % len(shape)
    indices = xp.asarray(indices)
    return tuple(indices if i == axis else
                 xp.arange(n).reshape((1,) * i + (n,) + (1,) * (len(shape) - i - 1))
                 for i, n in enumerate(shape))


def sort_index(a, axis=-1, kind=None):
    """An index such that `a[index]` is `np.sort(a, axis)` (from np.argsort)."""
    if axis is None:
        return tuple(_xp(a).unravel_index(np.argsort(np.ravel(a), kind=kind), np.shape(a)))
    return along_axis_index(a, np.argsort(a, axis=axis, kind=kind), axis)


def average_weights(a, axis=None, weights=None, returned=False):
    """np.average's weights broadcast to `a`'s shape (ones when there are none)."""
    if returned:
        raise NotImplementedError("s2s_ad cannot differentiate np.average(..., returned=True); "
                                  "compute the sum of the weights separately")
    if weights is None:
        return np.ones_like(a, dtype=np.result_type(a, 1.0))
    shape = tuple(shape_of(a))
    if tuple(shape_of(weights)) != shape:       # 1-D weights along `axis`
        axis = axis % len(shape)
        weights = np.reshape(weights, tuple(n if i == axis else 1 for i, n in enumerate(shape)))
    return np.broadcast_to(weights, shape)


def unweight(g, weights, axis=None):
    """Adjoint of `average_weights` with respect to the weights: `g` summed back to their
    shape."""
    if tuple(shape_of(weights)) == tuple(shape_of(g)):
        return g
    axis = axis % np.ndim(g)
    return np.sum(g, axis=tuple(i for i in range(np.ndim(g)) if i != axis))


def column_shape(x, b):
    """The shape of np.linalg.solve's result `x` as a stack of columns (a vector `b` gives
    vectors, which become columns of one)."""
    shape = tuple(shape_of(x))
    return shape + (1,) if np.ndim(b) == 1 else shape


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def tensordot_subscripts(a, b, axes=2):
    """The np.einsum subscripts of `np.tensordot(a, b, axes)`."""
    na, nb = np.ndim(a), np.ndim(b)
    if isinstance(axes, (int, np.integer)):
        axes_a, axes_b = list(range(na - axes, na)), list(range(axes))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, (int, np.integer)) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, (int, np.integer)) else list(axes_b)
    axes_a, axes_b = [i % na for i in axes_a], [i % nb for i in axes_b]
    term_a = list(_LETTERS[:na])
    term_b = list(_LETTERS[na:na + nb])
    for i, j in zip(axes_a, axes_b):
        term_b[j] = term_a[i]
    out = [c for i, c in enumerate(term_a) if i not in axes_a] + \
          [c for j, c in enumerate(term_b) if j not in axes_b]
    return f"{''.join(term_a)},{''.join(term_b)}->{''.join(out)}"


def inner_subscripts(a, b):
    """The np.einsum subscripts of `np.inner(a, b)`."""
    na, nb = np.ndim(a), np.ndim(b)
    if na == 0 or nb == 0:
        term_a, term_b = _LETTERS[:na], _LETTERS[na:na + nb]
        return f"{term_a},{term_b}->{term_a}{term_b}"
    free_a, free_b = _LETTERS[:na - 1], _LETTERS[na - 1:na + nb - 2]
    last = _LETTERS[na + nb - 2]
    return f"{free_a}{last},{free_b}{last}->{free_a}{free_b}"


def kron_parts(a, b):
    """For `np.kron(a, b)`: (shape of `a` and `b` with equal dimensions, the einsum subscripts
    of their outer product with axes interleaved, that product's shape)."""
    sa, sb = tuple(shape_of(a)), tuple(shape_of(b))
    dims = max(len(sa), len(sb))
    sa, sb = (1,) * (dims - len(sa)) + sa, (1,) * (dims - len(sb)) + sb
    term_a, term_b = _LETTERS[:dims], _LETTERS[dims:2 * dims]
    out = "".join(p + q for p, q in zip(term_a, term_b))
    return sa, sb, f"{term_a},{term_b}->{out}", tuple(n for pair in zip(sa, sb) for n in pair)


def _pad_pairs(array, pad_width):
    return [(int(before), int(after)) for before, after in
            np.broadcast_to(_host(pad_width), (np.ndim(array), 2))]


def _refuse_pad_mode(mode):
    if not (isinstance(mode, str) and mode == "constant"):
        raise NotImplementedError(f"s2s_ad differentiates np.pad only with mode='constant', "
                                  f"not mode={mode!r}")


def constant_pad_width(pad_width, mode="constant"):
    """`pad_width`, once `mode` is checked to be 'constant' (the only one differentiated)."""
    _refuse_pad_mode(mode)
    return pad_width


def pad_interior(array, pad_width, mode="constant"):
    """The index of `array` inside `np.pad(array, pad_width)` (constant mode only)."""
    _refuse_pad_mode(mode)
    return tuple(slice(before, before + n) for (before, _), n in
                 zip(_pad_pairs(array, pad_width), shape_of(array)))


def _pad_regions(array, pad_width):
    """(axis, side, index) of each padded band of `np.pad(array, pad_width)`, in the order
    NumPy fills them: the band of axis i spans the padded extent of the axes before it and the
    original extent of those after it (so corners hold the last axis's value)."""
    pairs = _pad_pairs(array, pad_width)
    shape = tuple(shape_of(array))
    regions = []
    for axis, (before, after) in enumerate(pairs):
        rest = tuple(slice(b, b + n) for (b, _), n in zip(pairs[axis + 1:], shape[axis + 1:]))
        regions.append((axis, 0, (slice(None),) * axis + (slice(0, before),) + rest))
        end = before + shape[axis]
        regions.append((axis, 1, (slice(None),) * axis + (slice(end, end + after),) + rest))
    return regions


def _pad_value_shape(values, ndim):
    """How np.pad reads `constant_values`: 'all' (one value), 'pair' (before, after for every
    axis) or 'table' (broadcast to (ndim, 2))."""
    shape = tuple(shape_of(values))
    if int(np.prod(shape)) == 1 and len(shape) < 3:
        return "all"
    if int(np.prod(shape)) == 2 and shape != (2, 1):
        return "pair"
    return "table"


def pad_value_grad(g, array, pad_width, constant_values=0):
    """Adjoint of `np.pad(array, pad_width, constant_values=...)` with respect to the constant
    values: the sum of `g` over the bands each value fills, in their shape."""
    ndim = np.ndim(array)
    table = np.zeros_like(g, shape=(ndim, 2))
    for axis, side, index in _pad_regions(array, pad_width):
        table[axis, side] = np.sum(g[index])
    kind = _pad_value_shape(constant_values, ndim)
    if kind == "all":
        return np.reshape(np.sum(table), shape_of(constant_values))
    if kind == "pair":
        return np.reshape(np.sum(table, axis=0), shape_of(constant_values))
    return unbroadcast(table, constant_values)


def pad_values(values, array, pad_width):
    """`np.pad` of zeros like `array` with constant values `values` (the adjoint of
    `pad_value_grad`, and the tangent of np.pad through its constant values)."""
    pairs = _pad_pairs(array, pad_width)
    out = np.pad(np.zeros_like(array, dtype=np.result_type(array, values)), pairs)
    ndim = np.ndim(array)
    kind = _pad_value_shape(values, ndim)
    if kind == "all":
        table = np.broadcast_to(np.reshape(values, (1, 1)), (ndim, 2))
    elif kind == "pair":
        table = np.broadcast_to(np.reshape(values, (1, 2)), (ndim, 2))
    else:
        table = np.broadcast_to(values, (ndim, 2))
    for axis, side, index in _pad_regions(array, pad_width):
        out[index] = table[axis, side]
    return out


def item_index(x, *args):
    """The index of `x` that `x.item(*args)` reads."""
    shape = tuple(shape_of(x))
    if not args:
        if int(np.prod(shape)) != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return (0,) * len(shape)
    if len(args) == 1 and isinstance(args[0], tuple):
        args = args[0]
    if len(args) == 1:
        return tuple(int(i) for i in np.unravel_index(int(args[0]) % int(np.prod(shape)), shape))
    return tuple(int(i) for i in args)


# Helpers of the rules for np.diff and np.linalg.cholesky ------------------------------------

__all__ += ["undiff", "rediff", "cholesky_grad", "cholesky_tangent"]


def _diff_layout(a, axis, prepend, append, part):
    """For `np.diff(a, n, axis, prepend=..., append=...)`: the axis, the shape of the array it
    differences (`prepend`, `a` and `append` joined along `axis`), and the index of `part`
    ('a', 'prepend' or 'append') in it."""
    shape = list(shape_of(a))
    axis = axis % len(shape)

    def length(extra):
        return 0 if extra is None else 1 if np.ndim(extra) == 0 else shape_of(extra)[axis]
    before, after = length(prepend), length(append)
    joined = shape[:axis] + [before + shape[axis] + after] + shape[axis + 1:]
    piece = {"prepend": slice(0, before), "a": slice(before, before + shape[axis]),
             "append": slice(before + shape[axis], before + shape[axis] + after)}[part]
    return axis, tuple(joined), (slice(None),) * axis + (piece,)


def undiff(g, a, n=1, axis=-1, prepend=None, append=None, part="a"):
    """Adjoint of `np.diff(a, n, axis, prepend=..., append=...)` with respect to `part` ('a',
    'prepend' or 'append'), given the result's adjoint `g`."""
    axis, joined, index = _diff_layout(a, axis, prepend, append, part)
    edge_shape = tuple(1 if i == axis else s for i, s in enumerate(np.shape(g)))
    for _ in range(n):
        edge = np.zeros_like(g, shape=edge_shape)
        g = np.concatenate([edge, g], axis) - np.concatenate([g, edge], axis)
    g = g[index]
    return g if part == "a" else unbroadcast(g, prepend if part == "prepend" else append)


def rediff(u, a, n=1, axis=-1, prepend=None, append=None, part="a"):
    """The adjoint of `undiff` with respect to `g`: `u` (shaped like `part`) placed where
    `part` sits in the joined array, differenced as np.diff does."""
    axis, joined, index = _diff_layout(a, axis, prepend, append, part)
    out = np.zeros_like(u, shape=joined)
    out[index] = u
    return np.diff(out, n, axis)


def lower_half(x):
    """The lower triangle of `x` (last two axes) with its diagonal halved: for a symmetric
    `s`, `lower_half(s)` plus its transpose is `s` (linear, and its own transpose)."""
    return np.tril(x) - 0.5 * x * _xp(x).eye(np.shape(x)[-1], dtype=bool)


def _swap_last(x):
    return np.swapaxes(x, -1, -2)


def lower_oriented(x, upper=False):
    """`x` (a Cholesky factor, or an array laid out like one) in the lower factor's orientation:
    transposed when the factor is the upper one (linear, and its own transpose)."""
    return _swap_last(x) if upper else x


def cholesky_grad(g, y, upper=False):
    """Adjoint of `y = np.linalg.cholesky(a, upper=upper)` with respect to `a`. NumPy reads only
    the lower (upper) triangle of `a`, so only that triangle receives an adjoint."""
    lower, g_lower = (_swap_last(y), _swap_last(g)) if upper else (y, g)
    step = np.linalg.solve(_swap_last(lower), lower_half(np.matmul(_swap_last(lower), g_lower)))
    full = _swap_last(np.linalg.solve(_swap_last(lower), _swap_last(step)))
    if upper:
        return np.triu(full) + np.triu(_swap_last(full), 1)
    return np.tril(full) + np.tril(_swap_last(full), -1)


def cholesky_tangent(t, y, upper=False):
    """Tangent of `y = np.linalg.cholesky(a, upper=upper)` along `t` (only the triangle of `t`
    that NumPy reads counts)."""
    t = np.triu(t) + _swap_last(np.triu(t, 1)) if upper else np.tril(t) + _swap_last(np.tril(t, -1))
    lower = _swap_last(y) if upper else y
    inner = np.linalg.solve(lower, _swap_last(np.linalg.solve(lower, _swap_last(t))))
    dl = np.matmul(lower, lower_half(inner))
    return _swap_last(dl) if upper else dl
