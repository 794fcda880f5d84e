"""Derivatives of closures made again for new contents of their cells.

`grad(lambda w: loss(w, X, y))` at each training step makes a new closure over a new batch:
new cells, so a new key for the derivative cache, and a new transform at every step (and a
cache entry holding each step's batch). Yet the generated code reads what the cells hold by
name, bound when its factory (emit.compile_function) is called: the code is the same for any
arrays of one dtype and shape and any equal plain values. So the first such closure's
derivative is a *template*, and another closure of the same code whose cells hold arrays like
those is given the template's code, its factory called again with what its own cells hold.

Only where that is all the code holds of the first closure's arrays: a template whose factory
binds a view of one, a method bound to one or a function closing over one (made from them at
transform time) is not used.
"""
import copy
import functools
import types
import weakref

import numpy as np

_PLAIN = frozenset({int, float, bool, complex, str, type(None)})
_DEPTH = 4              # how far `_holds` follows what a bound value holds
_LONGEST = 64           # a longer container among them is not read (and the template not used)


def template_key(fn, key):
    """For a closure whose cells hold arrays, plain values and tuples of those alone, the key
    of the template its derivative can be made from: the cache's `key` with the cells'
    identities replaced by the arrays' types, dtypes and shapes and the plain values' types
    and spellings (0.0 and -0.0 apart). None for a function with no closure or with a cell
    holding anything else."""
    cells = getattr(fn, "__closure__", None)
    if not cells:
        return None
    held = []
    for cell in cells:
        try:
            value = cell.cell_contents
        except ValueError:              # a cell not filled yet
            return None
        if type(value) is tuple:        # a batch `(X, y)`
            entries = tuple(map(_described, value))
            held.append((tuple, entries) if None not in entries else None)
        else:
            held.append(_described(value))
        if held[-1] is None:
            return None
    code, _, *rest = key
    return (code, tuple(held), *rest)


def _described(value):
    kind = type(value)
    if kind is np.ndarray:
        return kind, value.dtype.str, value.shape
    return (kind, repr(value)) if kind in _PLAIN else None


def reusable(generated, fn):
    """Can `generated`, the derivative of `fn`, be made again for other contents of `fn`'s
    cells: is there a factory to call again, and does nothing it binds besides the names of
    the cells hold one of their arrays?"""
    factory = getattr(generated.function, "__s2s_factory__", None)
    if factory is None:
        return False
    held = _contents(fn)
    held += [v for t in held if type(t) is tuple for v in t]
    arrays = {id(v) for v in held if type(v) is np.ndarray}
    cells = set(fn.__code__.co_freevars) & generated.closure_names
    _, names, values = factory
    return not any(_holds(value, arrays, _DEPTH)
                   for name, value in zip(names, values) if name not in cells)


def instantiate(template, fn):
    """A copy of the derivative `template` whose function reads what `fn`'s cells hold."""
    factory, names, values = template.function.__s2s_factory__
    now = {name: value for name, value in zip(fn.__code__.co_freevars, _contents(fn))
           if name in template.closure_names}
    values = tuple(now.get(name, value) for name, value in zip(names, values))
    function = factory(*values)
    function.__s2s_source__ = template.function.__s2s_source__
    function.__s2s_factory__ = (factory, names, values)
    made = copy.copy(template)
    for attribute in ("made_once", "inlined_stamp", "keepalive"):
        made.__dict__.pop(attribute, None)         # of the template's function, or its own
    made.function = function
    made.globals = {name: now.get(name, value) for name, value in template.globals.items()}
    if template.recompute_twin is not None:
        made.recompute_twin = _TwinFor(template.recompute_twin, fn)
    function.__s2s_generated__ = made
    return made


class _TwinFor:
    """The template's recompute_twin (a partial of cache.derivative for its first closure),
    asked for `fn` instead; `fn` held weakly, as the cache holds the derivative by it."""

    def __init__(self, twin, fn):
        self.twin, self.fn = twin, weakref.ref(fn)

    def __call__(self):
        fn = self.fn()
        if fn is None:
            return None
        args = tuple(fn if getattr(a, "__code__", None) is fn.__code__ else a
                     for a in self.twin.args)
        return self.twin.func(*args, **self.twin.keywords)


EMPTY = object()                        # what an unfilled cell holds, for cell_values


def cell_values(fn):
    """What `fn`'s closure's cells hold now, EMPTY for a cell not filled yet."""
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            yield cell.cell_contents
        except ValueError:
            yield EMPTY


def _contents(fn):
    return list(cell_values(fn))


def _holds(value, ids, depth):
    """Does `value` hold an object of `ids` (by identity): is it one, a view of one, a method
    bound to one, or a function, partial or small container holding one, `depth` levels down?
    Anything larger than the containers read counts as holding one."""
    if id(value) in ids:
        return True
    if depth == 0:
        return False
    kind = type(value)
    if kind is np.ndarray:
        base = value.base
        return base is not None and _holds(base, ids, depth - 1)
    if kind in (tuple, list, set, frozenset) or kind is dict:
        items = value.values() if kind is dict else value
        return len(value) > _LONGEST or any(_holds(v, ids, depth - 1) for v in items)
    if isinstance(value, types.FunctionType):
        held = [v for v in cell_values(value) if v is not EMPTY]
        held += list(value.__defaults__ or ()) + list((value.__kwdefaults__ or {}).values())
        return any(_holds(v, ids, depth - 1) for v in held)
    if isinstance(value, functools.partial):
        return _holds((value.func,) + value.args + tuple(value.keywords.values()), ids, depth)
    owner = getattr(value, "__self__", None)
    return owner is not None and not isinstance(owner, types.ModuleType) and \
        _holds(owner, ids, depth - 1)
