"""Central finite differences in float64: the one implementation behind `s2s_ad.check_grad` and
`s2s-ad check`.

`f` is called with the arguments in `bound` (an `inspect.BoundArguments`), one of which is moved
by +-eps at a time; an argument may be a nest of dicts, lists and tuples, whose leaves are
addressed by a path of keys and indices.
"""
import inspect

import numpy as np

from .runtime.arrays import _host


def leaves(x, path=()):
    """(path, leaf) for every array or number in a nest of dicts, lists and tuples."""
    if isinstance(x, dict):
        for key, value in x.items():
            yield from leaves(value, path + (key,))
    elif isinstance(x, (list, tuple)):
        for index, value in enumerate(x):
            yield from leaves(value, path + (index,))
    else:
        yield path, x


def on_host(x):
    """`x` with its Dask and CuPy arrays as NumPy arrays, each computed or copied once: the
    differences probe one entry at a time, and a lazy argument would be computed again for
    every probe (np.array refuses a CuPy one)."""
    if type(x) is dict:
        return {key: on_host(value) for key, value in x.items()}
    if type(x) in (list, tuple):
        return type(x)(on_host(value) for value in x)
    if type(x).__module__.startswith(("dask", "cupy")):
        return _host(x)
    return x


def entry_at(tree, path):
    """The entry of `tree` at `path` (None where a gradient has no entry)."""
    for key in path:
        if tree is None:
            return None
        tree = tree.get(key) if isinstance(tree, dict) else tree[key]
    return tree


def replaced(tree, path, value):
    """A copy of the containers along `path` in `tree`, with `value` at the end of it."""
    if not path:
        return value
    key, rest = path[0], path[1:]
    if isinstance(tree, dict):
        copy = dict(tree)
        copy[key] = replaced(tree[key], rest, value)
        return copy
    items = list(tree)
    items[key] = replaced(tree[key], rest, value)
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):      # a namedtuple
        return type(tree)(*items)
    return items if isinstance(tree, list) else type(tree)(items)


def central_difference(f, bound, name, eps, path=()):
    """d f / d leaf for scalar `f`, where the leaf sits at `path` inside argument `name`: one
    pair of calls f(leaf + eps e_i), f(leaf - eps e_i) per entry i."""
    leaf = np.array(entry_at(bound.arguments[name], path), dtype=np.float64)
    out = np.zeros_like(leaf)
    flat = out.reshape(-1)
    for i in range(leaf.size):
        for sign in (1.0, -1.0):
            probe = leaf.copy().reshape(-1)
            probe[i] += sign * eps
            flat[i] += sign * float(_call_with(f, bound, name, path, probe.reshape(leaf.shape)))
    return out / (2 * eps)


def directional_difference(f, bound, name, direction, eps):
    """The derivative of `f` (any output shape) along `direction` in argument `name`."""
    x = np.array(bound.arguments[name], dtype=np.float64)
    step = eps * np.asarray(direction, dtype=np.float64)
    forward = np.asarray(_call_with(f, bound, name, (), x + step), dtype=np.float64)
    backward = np.asarray(_call_with(f, bound, name, (), x - step), dtype=np.float64)
    return (forward - backward) / (2 * eps)


def _call_with(f, bound, name, path, value):
    """f with `value` (a float64 array) at `path` in argument `name`; a number stays a float."""
    arguments = dict(bound.arguments)
    if not np.ndim(entry_at(arguments[name], path)):
        value = float(value)
    arguments[name] = replaced(arguments[name], path, value)
    probed = inspect.BoundArguments(bound.signature, arguments)
    return f(*probed.args, **probed.kwargs)


def relative_error(actual, expected):
    """max |actual - expected|, relative to the largest magnitude of either (at least 1e-12)."""
    actual = np.asarray(actual, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    scale = max(float(np.max(np.abs(expected), initial=0.0)),
                float(np.max(np.abs(actual), initial=0.0)), 1e-12)
    return float(np.max(np.abs(actual - expected), initial=0.0)) / scale
