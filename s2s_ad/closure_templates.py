"""Derivatives of closures made again for new contents of their cells.

`grad(lambda w: loss(w, X, y))` at each training step makes a new closure over a new batch:
new cells, so a new key for the derivative cache, and a new transform at every step (and a
cache entry holding each step's batch). Yet the generated code reads what the cells hold by
name, bound when its factory (emit.compile_function) is called: the code is the same for any
arrays of one dtype and shape and any equal plain values. So the first such closure's
derivative is a *template*, and another closure of the same code whose cells hold arrays like
those is given the template's code, its factory called again with what its own cells hold.

Cells may hold functions too (a Newton fit's `f = lambda r: grad(loglike)(r, p(r))` over the
closures `loglike` and `p` of the fit's data): they are described by their code and what their
own cells hold, or, for generated code, by what its factory was given. The objects the first
closure's derivative made from them at transform time are made again for the new ones: a
derivative of a function held (calls.CalleeDerivative, `for_callee`), or of a derivative of
one; and what `as_function` makes for a derivative made from a template is made by the factory
of the one made first, so that it is a closure of one code too (pipeline.made_once).

Only where that is all the code holds of the first closure's values: a template whose factory
binds a view of one of its arrays, a method bound to one or a function closing over one (made
from them at transform time) is not used.
"""
import copy
import functools
import types
import weakref

import numpy as np

_PLAIN = frozenset({int, float, bool, complex, str, type(None)})
_DEPTH = 4              # how far a key, `_holds` and `_pair` follow what a value holds
_LONGEST = 64           # a longer container among them is not read (and the template not used)
# values the same for every closure of a kind, compared by identity: they are made once
_STATIC = (types.BuiltinFunctionType, types.ModuleType, type, np.ufunc)


def template_key(fn, key):
    """For a closure whose cells hold arrays, plain values, tuples of those and functions
    (closures of such cells themselves, generated code made from them, or functions of a
    module), the key of the template its derivative can be made from: the cache's `key`
    with the cells' identities replaced by the arrays' types, dtypes and shapes, the plain
    values' types and spellings (0.0 and -0.0 apart) and the functions' code and cells,
    followed so, `_DEPTH` levels down. None for a function with no closure or with a cell
    holding anything else."""
    if not getattr(fn, "__closure__", None):
        return None
    held = _described_cells(fn, _DEPTH)
    if held is None:
        return None
    code, _, *rest = key
    return (code, held, *rest)


def described_closure(fn):
    """`fn`'s code and what its cells hold as template_key describes them: one for the
    closures of one code whose cells hold alike values (what reads only their code and the
    functions they call keeps by it); None where a cell holds something else."""
    if type(fn) is not types.FunctionType:
        return None
    held = _described_cells(fn, _DEPTH)
    return None if held is None else (fn.__code__, held)


def _described_cells(fn, depth):
    held = tuple(_described(value, depth) for value in cell_values(fn))
    return None if None in held else held


def _described(value, depth):
    """What of `value` a derivative's code depends on (see template_key), or None."""
    kind = type(value)
    if kind is np.ndarray:
        return kind, value.dtype.str, value.shape
    if kind in _PLAIN:
        return kind, repr(value)
    if kind is tuple:                   # a batch `(X, y)`
        entries = tuple(_described(v, depth) for v in value) if len(value) <= _LONGEST else (None,)
        return None if None in entries else (tuple, entries)
    if depth == 0 or value is EMPTY:
        return None
    if is_static(value):
        return _Same(value)
    if kind is types.FunctionType:
        return _described_function(value, depth - 1)
    if callable(getattr(value, "for_callee", None)):      # calls.CalleeDerivative
        callee = _described(value.callee, depth - 1)
        return None if callee is None else ("callee", kind, value.wrt, callee)
    return None


def is_static(value):
    """Is `value` one object for every closure of a kind: a module, a class, a builtin, a
    function of a module's (not made by a call), a marker of s2s_ad's runtime?"""
    if type(value) is types.FunctionType:
        return value.__closure__ is None and "<locals>" not in value.__qualname__ and \
            not hasattr(value, "__s2s_factory__")
    return isinstance(value, _STATIC) or \
        (type(value).__module__ or "").startswith("s2s_ad.runtime")


def _described_function(fn, depth):
    """Generated code by the values its factory was given, a function made by a call (a
    closure) by its cells and defaults."""
    factory = getattr(fn, "__s2s_factory__", None)
    if factory is not None:
        parts = tuple(_described(v, depth) for v in factory[2])
        return None if None in parts else ("generated", fn.__code__, parts)
    cells = _described_cells(fn, depth)
    own = _described(tuple(fn.__defaults__ or ()) + tuple(
        sorted((fn.__kwdefaults__ or {}).items())), depth)
    return None if cells is None or own is None else ("closure", fn.__code__, cells, own)


class _Same:
    """A value a key holds by identity (compared and hashed so, whatever its own `==`)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __eq__(self, other):
        return type(other) is _Same and other.value is self.value

    def __hash__(self):
        return id(self.value)


def reusable(generated, fn):
    """Can `generated`, the derivative of `fn`, be made again for other contents of `fn`'s
    cells: is there a factory to call again, and is each value it binds one the cells hold
    (as `_reached` follows them: bound in its place to what another closure holds), or one
    holding none of those (a view of an array, a function over one), but a derivative of a
    function they hold (calls.CalleeDerivative), made again for the new one (`for_callee`)?"""
    factory = getattr(generated.function, "__s2s_factory__", None)
    if factory is None:
        return False
    held = {}
    for value in cell_values(fn):
        _reached(value, held, _DEPTH)
    cells = set(fn.__code__.co_freevars) & generated.closure_names
    _, names, values = factory
    return not any(_holds(value, held, _DEPTH) and id(value) not in held and
                   not _rebuilt_by(value, held)
                   for name, value in zip(names, values) if name not in cells)


def _reached(value, held, depth):
    """Every object `value` is described by (`_described`) that another closure's holds in
    its place, by id into `held`."""
    if type(value) in _PLAIN or value is EMPTY or is_static(value):
        return
    held[id(value)] = value
    for part in _parts(value, depth):
        _reached(part, held, depth - 1)


def _parts(value, depth):
    """What `_described` follows in `value`, in its order."""
    if depth == 0:
        return ()
    if type(value) is tuple:
        return value
    if type(value) is types.FunctionType:
        factory = getattr(value, "__s2s_factory__", None)
        if factory is not None:
            return factory[2]
        return list(cell_values(value)) + list(value.__defaults__ or ()) + \
            [v for _, v in sorted((value.__kwdefaults__ or {}).items())]
    if callable(getattr(value, "for_callee", None)):
        return value.callee, value.function           # the code made for it: fixed by it
    return ()


def _rebuilt_by(value, held):
    """Is `value` a derivative of a function `held` holds, or of a derivative of one?"""
    if not callable(getattr(value, "for_callee", None)):
        return False
    return id(value.callee) in held or id(_derived_from(value.callee)[0]) in held


def instantiate(template, fn, read_values, made_again):
    """A copy of the derivative `template` whose function reads what `fn`'s cells hold: the
    values its factory binds that the template's closure held are those `fn` holds in their
    place, and a derivative of a function it held is made for the one `fn` holds (where its
    callee is a derivative of one, `made_again(new one, how)` makes that too);
    `read_values` (cache.read_values) of a helper it copied in, for the new one."""
    factory, names, values = template.function.__s2s_factory__
    pairs = {}
    for old, new in zip(template.template_cells, cell_values(fn)):
        _pair(old, new, pairs, _DEPTH)
    values = tuple(_in_place(value, pairs, made_again) for value in values)
    function = factory(*values)
    function.__s2s_source__ = template.function.__s2s_source__
    function.__s2s_factory__ = (factory, names, values)
    made = copy.copy(template)
    for attribute in ("made_once", "inlined_stamp", "keepalive", "template_of", "template_cells"):
        made.__dict__.pop(attribute, None)         # of the template's function, or its own
    made.template = template
    made.function = function
    made.globals = {name: _in_place(value, pairs, made_again)
                    for name, value in template.globals.items()}
    made.made_by = None
    # a helper copied in from a closure the cells hold: stale with the new one's cells
    made.inlined = tuple((called, helper, code, found) if id(helper) not in pairs else
                         (called, pairs[id(helper)], pairs[id(helper)].__code__,
                          read_values(pairs[id(helper)]))
                         for called, helper, code, found in template.inlined)
    if template.recompute_twin is not None:
        made.recompute_twin = _TwinFor(template.recompute_twin, fn)
    function.__s2s_generated__ = made
    return made


def snapshot(fn):
    """What `fn`'s cells hold now, and what those hold (as `_parts` follows them): what its
    derivative is made from, kept with it as a template (instantiate), whatever is rebound
    later."""
    return tuple(_snapshot(value, _DEPTH) for value in cell_values(fn))


def _snapshot(value, depth):
    return value, tuple(_snapshot(part, depth - 1) for part in _parts(value, depth))


def _pair(old, new, pairs, depth):
    """`pairs[id(o)] = n` for each object `o` the template's closure held (`old`, a
    snapshot) and `n` the one the new closure holds in its place."""
    value, parts = old
    if value is new or type(value) in _PLAIN or is_static(value):
        return
    pairs[id(value)] = new
    for old_part, new_part in zip(parts, _parts(new, depth)):
        _pair(old_part, new_part, pairs, depth - 1)


def _in_place(value, pairs, made_again):
    if id(value) in pairs:
        return pairs[id(value)]
    if not _rebuilt_by(value, pairs):
        return value
    callee = pairs.get(id(value.callee))
    if callee is None:                  # a derivative of a function held: made for the new one
        source, made_by = _derived_from(value.callee)
        callee = made_again(pairs[id(source)], made_by).function
    return value.for_callee(callee)


def _derived_from(function):
    """(the function `function` is the generated derivative of, how it was made) or Nones."""
    generated = getattr(function, "__s2s_generated__", None)
    made_by = getattr(generated, "made_by", None)
    keepalive = getattr(generated, "keepalive", None)
    return (keepalive[0], made_by) if made_by is not None and keepalive else (None, None)


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
    if owner is not None:
        return not isinstance(owner, types.ModuleType) and _holds(owner, ids, depth - 1)
    # any other object by what it holds (a derivative of a callee: calls.CalleeTangent)
    held = getattr(value, "__dict__", None)
    return type(held) is dict and not isinstance(value, (types.ModuleType, type)) and \
        any(_holds(v, ids, depth - 1) for v in held.values())
