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
    "tie_share", "untranspose",
]

zeros_like = np.zeros_like
ones_like = np.ones_like


def _xp(x):
    """The array module (numpy or cupy) that owns `x`."""
    module = type(x).__module__
    if module.startswith("cupy"):
        import cupy
        return cupy
    return np


def unbroadcast(g, like):
    """Sum `g` over the axes that broadcasting added or stretched, giving `like`'s shape."""
    shape = np.shape(like)
    g_shape = np.shape(g)
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


def reduction_count(x, axis=None):
    """How many elements of `x` a reduction over `axis` combines into each result."""
    shape = np.shape(x)
    count = 1
    for a in _axes(axis, len(shape)):
        count *= shape[a]
    return count


def extremum_mask(x, y, axis=None, keepdims=False):
    """Where `x` attains its reduced max/min `y`, shared equally between ties."""
    hits = x == unreduce(y, x, axis, keepdims)
    ties = np.sum(hits, axis=None if axis is None else axis, keepdims=True)
    return hits / ties


def _has_array_index(index):
    parts = index if isinstance(index, tuple) else (index,)
    for part in parts:
        if isinstance(part, (list, range)) or (hasattr(part, "dtype") and np.ndim(part) > 0
                                              and part.dtype != bool):
            return True
    return False


def scatter(x, index, g):
    """An array like `x`, zero except `g` added at `x[index]` (repeated indices add up)."""
    out = np.zeros_like(x)
    if np.ndim(out) == 0:
        return out + g
    g = unbroadcast(g, out[index])
    if _has_array_index(index):
        xp = _xp(out)
        if xp is np:
            np.add.at(out, index, g)
        else:
            import cupyx
            cupyx.scatter_add(out, index, g)
    else:
        out[index] += g
    return out


def zero_at(g, index):
    """A copy of `g` with `g[index]` set to zero (the adjoint of overwriting `x[index]`)."""
    out = np.array(g, copy=True) if _xp(g) is np else g.copy()
    out[index] = 0
    return out


def snapshot(value):
    """A copy of `value` that later in-place writes cannot change."""
    copy = getattr(value, "copy", None)
    return copy() if copy is not None else value


def seed_like(out, seed, function_name="f"):
    """The initial adjoint of `out`: `seed`, or 1 when `out` is a scalar and no seed is given."""
    if seed is None:
        if np.ndim(out) != 0:
            raise TypeError(
                f"grad requires {function_name} to return a scalar, but it returned an array of "
                f"shape {np.shape(out)}; use s2s_ad.vjp(...) and pass seed= (for example "
                f"seed=ones_like(y) to differentiate the sum of the outputs)")
        return np.ones_like(out)
    if np.shape(seed) != np.shape(out):
        raise ValueError(f"the seed has shape {np.shape(seed)} but {function_name} returned "
                         f"shape {np.shape(out)}; the seed must have the output's shape")
    return seed


def gradient_like(g, x):
    """`g` as a gradient for `x`: the same type, dtype and shape, an array of its own."""
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


def _check_dot(a, b):
    if np.ndim(a) > 2 or np.ndim(b) > 2:
        raise NotImplementedError(
            "s2s_ad differentiates np.dot for operands of at most 2 dimensions; "
            "use np.matmul or np.einsum for stacked arrays")


def dot_grad_a(g, a, b):
    """Adjoint of `np.dot(a, b)` with respect to `a`."""
    _check_dot(a, b)
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * b, a)
    return matmul_grad_a(g, a, b)


def dot_grad_b(g, a, b):
    """Adjoint of `np.dot(a, b)` with respect to `b`."""
    _check_dot(a, b)
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        return unbroadcast(g * a, b)
    return matmul_grad_b(g, a, b)


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
    """Adjoint of `np.einsum(subscripts, *operands)` with respect to operand `k`."""
    terms, output = _einsum_terms(subscripts, operands)
    x = operands[k]
    target = terms[k]
    others = [t for i, t in enumerate(terms) if i != k] + [output]
    other_operands = [op for i, op in enumerate(operands) if i != k] + [g]
    unique = "".join(dict.fromkeys(target))
    sizes = {c: np.shape(x)[i] for i, c in enumerate(target)}
    reachable = "".join(c for c in unique if any(c in t for t in others))
    grad = np.einsum(",".join(others) + "->" + reachable, *other_operands)
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


def tie_share(x, y):
    """1 where `x` wins a max against `y`, 1/2 where they tie, 0 where it loses."""
    return (x > y) + 0.5 * (x == y)


def untranspose(g, axes=None):
    """Adjoint of transposing by `axes`: transpose back by the inverse permutation."""
    if axes is None or axes == () or axes == (None,):
        return np.transpose(g)
    if len(axes) == 1 and not isinstance(axes[0], int):
        axes = tuple(axes[0])
    return np.transpose(g, tuple(np.argsort(axes)))
