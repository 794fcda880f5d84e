"""Gradients as the user gets them: the adjoint containers generated code adds leaf by leaf
become plain lists, tuples and dicts (or the argument's namedtuple or dataclass), and no two
gradients are one array."""
import copy

import numpy as np

from . import runtime


def as_returned(grads, like):
    """The gradients `grads` a derivative's code returned, for the argument(s) `like`."""
    if type(grads) in _ADJOINT_SEQUENCES and (type(like) is list or type(like) is tuple) and \
            len(grads) == len(like):
        layers = _distinct_layers(grads, like)
        if layers is not None:
            return layers               # the common case, first: a list of (W, b) layers
    return _unshared(plain(grads, like))


def _distinct_layers(tree, like):
    """plain(tree, like) for a list or tuple adjoint of arrays and of lists and tuples of
    arrays, each array met once (so _unshared leaves it as it is), read in one loop; None for
    any other tree."""
    seen, entries = set(), []
    for value, entry in zip(tree, like):
        if type(value) is np.ndarray:
            seen.add(id(value))
            entries.append(value)
            continue
        if type(value) not in _ADJOINT_SEQUENCES or \
                not (type(entry) is list or type(entry) is tuple):
            return None
        for leaf in value:
            if type(leaf) is not np.ndarray:
                return None
            seen.add(id(leaf))
        entries.append(tuple(value) if isinstance(value, tuple) else list(value))
    if len(seen) != sum(1 if type(v) is np.ndarray else len(v) for v in entries):
        return None                     # an array met twice: _unshared copies it
    return tuple(entries) if isinstance(tree, tuple) else entries


def plain(tree, like=None):
    """A derivative as the user gets it: the adjoint containers generated code adds leaf by
    leaf (GradList, GradTuple, GradDict) become plain lists, tuples and dicts again, so that
    `+` on what the user holds concatenates as Python's does; where `like` (the argument) is a
    namedtuple or a dataclass, the gradient is one of its type, as in JAX."""
    if type(tree) is np.ndarray or type(tree) in REAL_TANGENTS:
        return tree                     # the common cases, first: an array, a number
    if type(tree) in _ADJOINT_SEQUENCES and (type(like) is list or type(like) is tuple) and \
            len(tree) == len(like):     # then a list or tuple argument (of (W, b) layers)
        return _plain_sequence(tree, like)
    if type(like) not in _PLAIN_CONTAINERS:          # (asking for fields costs at every call)
        fields = runtime.record_fields(like)
        if fields is not None and not isinstance(like, tuple) and \
                isinstance(tree, (list, tuple)) and len(tree) == len(fields):
            return _as_record(like, [plain(value, entry) for value, entry in
                                     zip(tree, runtime.record_entries(like))])
    if isinstance(tree, dict):
        like = like if isinstance(like, dict) else {}
        return {key: value if type(value) is np.ndarray else plain(value, like.get(key))
                for key, value in tree.items()}
    if isinstance(tree, tuple) and not hasattr(tree, "_fields"):
        entries = [value if type(value) is np.ndarray else plain(value, _entry(like, k))
                   for k, value in enumerate(tree)]
        if hasattr(like, "_fields") and len(like) == len(entries):
            return type(like)(*entries)
        return tuple(entries)
    if isinstance(tree, list):
        return [value if type(value) is np.ndarray else plain(value, _entry(like, k))
                for k, value in enumerate(tree)]
    return tree


def _unshared(tree):
    """`tree` (plain lists, tuples and dicts) with a copy of each array met again: one adjoint
    reaching two arguments or two entries (`x + y`, `p[0] + p[1]`) is one array in generated
    code, and a gradient changed in place must not change another."""
    leaves = tree.values() if type(tree) is dict else tree
    if type(tree) in _FLAT and set(map(type, leaves)) == _ARRAY and \
            len(set(map(id, leaves))) == len(tree):
        return tree                     # the common case, first: arrays, each once
    seen = set()
    if not _shares(tree, seen):
        return tree                     # ... and containers of them
    seen.clear()
    return _copied_again(tree, seen)


def _shares(tree, seen):
    for leaf in tree.values() if type(tree) is dict else tree if type(tree) in (list, tuple) \
            else ():
        if type(leaf) is np.ndarray:
            if id(leaf) in seen:
                return True
            seen.add(id(leaf))
        elif type(leaf) in (list, tuple, dict) and _shares(leaf, seen):
            return True
    return False


def _copied_again(tree, seen):
    if type(tree) is np.ndarray:
        if id(tree) in seen:
            return tree.copy()
        seen.add(id(tree))
        return tree
    if type(tree) is dict:
        return {k: _copied_again(v, seen) for k, v in tree.items()}
    if type(tree) in (list, tuple):
        return type(tree)(_copied_again(v, seen) for v in tree)
    return tree


def _plain_sequence(tree, like):
    """_plain of a list or tuple adjoint for a plain list or tuple `like` of its length; a
    sequence of arrays inside, as a list of (W, b) layers holds, without a call of its own
    (this runs at every call of such a derivative)."""
    entries = []
    for value, entry in zip(tree, like):
        if type(value) is np.ndarray:
            entries.append(value)
        elif type(value) in _ADJOINT_SEQUENCES and (type(entry) is list or type(entry) is tuple) \
                and set(map(type, value)) <= _ARRAY:
            entries.append(tuple(value) if isinstance(value, tuple) else list(value))
        else:
            entries.append(plain(value, entry))
    return tuple(entries) if isinstance(tree, tuple) else entries


_ARRAY = frozenset({np.ndarray})
_FLAT = frozenset({dict, list, tuple})
_PLAIN_CONTAINERS = (dict, list, tuple)
_ADJOINT_SEQUENCES = frozenset({list, tuple, runtime.GradList, runtime.GradTuple,
                                runtime.ConvertedList, runtime.ConvertedTuple})
REAL_TANGENTS = (float, np.float64, np.float32)


def _as_record(like, entries):
    """A copy of the dataclass instance `like` holding `entries` in its fields (set past
    __init__ and a frozen class's __setattr__, as copy.replace would not for init=False)."""
    out = copy.copy(like)
    for name, value in zip(runtime.record_fields(like), entries):
        object.__setattr__(out, name, value)
    return out


def _entry(container, k):
    return container[k] if isinstance(container, (list, tuple)) and k < len(container) else None
