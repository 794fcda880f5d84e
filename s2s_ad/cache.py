"""The derivative cache: one transformation per (function, closure, mode, wrt), thread-safe."""
import dis
import functools
import operator
import threading
import types

from . import closure_templates
from .frontend.parse import _unwrap

_cache = {}
_lock = threading.Lock()
_key_locks = {}
_building = threading.local()
# counts the clears: a derivative a transform keeps for itself (Recent) is not used across one,
# as a rule registered since must be followed
_clears = [0]


def _closure_key(fn):
    cells = getattr(fn, "__closure__", None) or ()
    return tuple(id(c) for c in cells)


def _cell_contents(fn):
    """Ids of what the closure's cells hold now (a `nonlocal` rebinding changes them); None
    for a cell not filled yet."""
    return tuple(None if value is closure_templates.EMPTY else id(value)
                 for value in closure_templates.cell_values(fn))


def current_defaults(fn):
    """A function's defaults as they are now (identity compared): the code of a derivative
    that calls it or copied it in was made with them (`f.__defaults__ = ...` makes it stale)."""
    return (getattr(fn, "__defaults__", None), getattr(fn, "__kwdefaults__", None))


def _same_defaults(seen, fn):
    now = current_defaults(fn)
    return seen[0] is now[0] and seen[1] is now[1]


def global_callees(fn):
    """The functions and modules that `fn`'s code reads from its module by name, now. The
    transform resolved them to rules or callees (`act = np.tanh` then `act(x)`), so a
    derivative made before one was rebound is stale; arrays and numbers are read when the
    derivative runs and do not count."""
    code, module = getattr(fn, "__code__", None), getattr(fn, "__globals__", None)
    if code is None or module is None:
        return ()
    values = (module.get(name) for name in _names_read(code))
    return tuple(v for v in values if v is not None and (callable(v) or isinstance(v, types.ModuleType)))


def read_values(fn):
    """`global_callees(fn)`, what its closure's cells hold and its defaults: what a derivative
    bound into another's code was made from (Generated.inlined), compared by identity."""
    return global_callees(fn) + tuple(_cell_objects(fn)) + current_defaults(fn)


# what a closure's cells hold now (closure_templates.EMPTY for one not filled yet)
_cell_objects = closure_templates.cell_values


@functools.lru_cache(maxsize=4096)
def _names_read(code):
    """The global names `code` and the code nested in it read: fixed for a code object, so
    found once, not on every call of a derivative. Only names looked up in the module
    (co_names also holds attribute names, `np.tanh`'s `tanh`, which the module does not
    bind: reading them at every call costs and tells nothing)."""
    names, pending = [], [code]
    while pending:
        current = pending.pop()
        names += [i.argval for i in dis.get_instructions(current)
                  if "GLOBAL" in i.opname or i.opname == "LOAD_NAME"]
        pending += [c for c in current.co_consts if hasattr(c, "co_names")]
    return tuple(dict.fromkeys(names))


class ReadNames:
    """The values a function's code reads from its module by name, and its closure's cells
    hold, as they are now: `current()` says whether each still holds the same object (one
    tuple compare, cheap enough for every call of a derivative)."""

    __slots__ = ("fn", "names", "read", "values", "cells", "defaults")

    def __init__(self, fn):
        code, module = getattr(fn, "__code__", None), getattr(fn, "__globals__", None)
        self.fn = fn
        self.names = _names_read(code) if code is not None and module is not None else ()
        self.read = module.get if self.names else None
        self.values = tuple(map(self.read, self.names)) if self.names else ()
        self.cells = tuple(_cell_objects(fn))      # a closure's, rebound by `nonlocal`
        self.defaults = current_defaults(fn)

    def current(self):
        fn, defaults = self.fn, self.defaults
        return getattr(fn, "__defaults__", None) is defaults[0] and \
            getattr(fn, "__kwdefaults__", None) is defaults[1] and \
            (not self.names or all(map(operator.is_, map(self.read, self.names), self.values))) \
            and (not self.cells or all(map(operator.is_, _cell_objects(fn), self.cells)))


def cache_key(fn, mode, wrt_names):
    fn = _unwrap(fn)
    # a helper with *args read for calls of different lengths shares its code object
    return (fn.__code__, _closure_key(fn), id(fn.__globals__), mode, tuple(wrt_names),
            getattr(fn, "__s2s_variadic__", (None, None))[1])


def clear():
    with _lock:
        _cache.clear()
        _key_locks.clear()
        _templates.clear()          # (instances kept on closures: dropped by `clears`)
        _clears[0] += 1


def size():
    return len(_cache)


class _Pending:
    """Stands for a derivative still being generated further up the stack (recursion)."""

    def __init__(self, key):
        self.key = key

    def __call__(self, *args, **kwargs):
        return _cache[self.key].function(*args, **kwargs)


def _is_current(found, fn, contents, callees):
    return found.cell_contents == contents and _same_defaults(found.defaults, fn) and len(found.callees) == len(callees) and \
        all(map(operator.is_, found.callees, callees)) and inlined_current(found)


def inlined_current(found):
    """Is each helper the derivative copied in (pipeline.Generated.inlined) still the function
    its name is bound to (where it was called by a name: not None), with the same code,
    reading the same functions by name, and each `module.name` it called (Generated.
    module_attributes) still what it was? Asked at every call of a derivative that copied one
    in or called one: once answered yes, a stamp of what each helper reads (`_InlinedStamp`)
    answers it by identity until one of those values changes (an array or a number rebound
    too: then the full check runs again)."""
    for namespace, name, value in found.module_attributes:
        if namespace.get(name) is not value:
            return False
    stamp = getattr(found, "inlined_stamp", None)
    if stamp is not None and stamp.current():
        return True
    if not _inlined_callees_current(found):
        return False
    found.inlined_stamp = _InlinedStamp(found.inlined)
    return True


class _InlinedStamp:
    """What the helpers a derivative was made from are and read, as one list of (name, value)
    per module and one of code objects: `current()` compares them by identity in a few maps
    (asked at every call of such a derivative)."""
    __slots__ = ("groups", "helpers", "codes", "closures", "defaults")

    def __init__(self, inlined):
        by_module = {}
        helpers = tuple(dict.fromkeys(helper for _, helper, _, _ in inlined))

        def expect(module, name, value):
            _, names, values = by_module.setdefault(id(module), (module.get, [], []))
            names.append(name)
            values.append(value)

        for name, helper, _, _ in inlined:
            if name is not None:
                expect(helper.__globals__, name, helper)
        for helper in helpers:
            read = ReadNames(helper)
            for name, value in zip(read.names, read.values):
                expect(helper.__globals__, name, value)
        self.groups = tuple((get, tuple(names), tuple(values))
                            for get, names, values in by_module.values())
        self.helpers = tuple(helper for _, helper, _, _ in inlined)
        self.codes = tuple(code for _, _, code, _ in inlined)
        self.closures = tuple(ReadNames(h) for h in helpers if getattr(h, "__closure__", None))
        self.defaults = tuple((h, current_defaults(h)) for h in helpers if current_defaults(h) != (None, None))

    def current(self):
        for get, names, values in self.groups:
            if not all(map(operator.is_, map(get, names), values)):
                return False
        return all(map(operator.is_, map(_CODE, self.helpers), self.codes)) and \
            (not self.closures or all(read.current() for read in self.closures)) and \
            (not self.defaults or all(_same_defaults(seen, h) for h, seen in self.defaults))


_CODE = operator.attrgetter("__code__")
_FUNCTION = types.FunctionType


def _inlined_callees_current(found):
    for name, helper, code, callees in getattr(found, "inlined", ()):
        if name is not None and helper.__globals__.get(name) is not helper or \
                helper.__code__ is not code:
            return False
        now = read_values(helper)
        if len(now) != len(callees) or not all(map(operator.is_, now, callees)):
            return False
    return True


def lookup(fn, mode, wrt_names, kinds=None):
    """The cached derivative, if there is one and nothing it was made from was rebound since
    (the common case of every call, so it takes no lock: reading a dict is atomic)."""
    key = cache_key(fn, mode, wrt_names) + (kinds,)
    found = _cache.get(key)
    unwrapped = _unwrap(fn)
    if found is not None:
        if _is_current(found, unwrapped, _cell_contents(unwrapped), global_callees(unwrapped)):
            return found
    return _instance(unwrapped, closure_templates.template_key(unwrapped, key))


def derivative(fn, mode, wrt_names, build, kinds=None):
    """The cached result of `build(fn, wrt_names)`, building it at most once per key; with
    `kinds` (what the arguments are, analysis.shapes), `build(fn, wrt_names, kinds=kinds)`
    once per kinds."""
    key = cache_key(fn, mode, wrt_names) + (kinds,)
    made_by = (mode, tuple(wrt_names), build, kinds)
    if kinds is not None:
        build = functools.partial(build, kinds=kinds)
    unwrapped = _unwrap(fn)
    contents, defaults = _cell_contents(unwrapped), current_defaults(unwrapped)
    callees = global_callees(unwrapped)
    template = closure_templates.template_key(unwrapped, key)
    with _lock:
        found = _cache.get(key)
        if found is not None and _is_current(found, unwrapped, contents, callees):
            return found
        if found is not None:
            del _cache[key]             # a closure or a global callee was rebound: stale
    # made outside the lock: making one may make the derivatives it calls (for_callee)
    made = _instance(unwrapped, template)
    if made is not None:
        return made
    with _lock:
        lock = _key_locks.setdefault(key, threading.RLock())
    in_progress = getattr(_building, "keys", None)
    if in_progress is None:
        in_progress = _building.keys = set()
    if key in in_progress:
        return None                 # recursion: the caller binds a _Pending instead
    with lock:
        with _lock:
            if key in _cache:
                return _cache[key]
        in_progress.add(key)
        try:
            generated = build(_unwrap(fn), tuple(wrt_names))
        finally:
            in_progress.discard(key)
        # the entry holds the function, so the ids in its key cannot be reused by another
        generated.keepalive = (fn, getattr(_unwrap(fn), "__closure__", None))
        generated.cell_contents, generated.defaults = contents, defaults
        generated.made_by = made_by     # how to make it for another function (a template's)
        generated.callees = callees     # held: their ids cannot be reused while compared
        with _lock:
            _cache[key] = generated
            if template is not None and closure_templates.reusable(generated, unwrapped):
                generated.template_of = unwrapped
                generated.template_cells = closure_templates.snapshot(unwrapped)
                _templates[template] = generated
        return generated


# A closure made anew at each call of the function around it (`grad(lambda w: loss(w, X, y))`
# at each training step, over a new batch) has new cells each time, so the cache's key differs:
# its derivative is made from the first one's (closure_templates), not transformed again.
# template key -> the derivative of the first such closure
_templates = {}
# A closure's derivatives made from templates are kept on the closure itself, as
# `fn.__s2s_instances__` ({template key: (derivative, clears)}), not in a table of the
# module: they go with the closure, a closure per step over its batch is not kept alive by
# the cache, and a derivative that holds its own closure (the readable function of `grad(g)`
# made for it, differentiated again) is a cycle the garbage collector frees, where a table's
# entry would hold it for good.
_INSTANCES = "__s2s_instances__"


def _instance(fn, template):
    """The derivative of the closure `fn` made from the template of its kind, or None."""
    if template is None:
        return None
    found, clears = getattr(fn, _INSTANCES, {}).get(template, (None, None))
    if found is not None and clears == _clears[0] and \
            _is_current(found, fn, _cell_contents(fn), global_callees(fn)):
        return found
    made_from = _templates.get(template)
    if made_from is None or not _is_current(made_from, made_from.template_of,
                                            made_from.cell_contents, global_callees(fn)):
        return None
    made = closure_templates.instantiate(made_from, fn, read_values, _made_again)
    made.cell_contents, made.defaults = _cell_contents(fn), current_defaults(fn)
    made.callees = made_from.callees
    with _lock:
        fn.__dict__.setdefault(_INSTANCES, {})[template] = (made, _clears[0])
    return made


def _made_again(fn, made_by):
    """The derivative of `fn` made as `made_by` (Generated.made_by) says."""
    mode, wrt_names, build, kinds = made_by
    return derivative(fn, mode, wrt_names, build, kinds)


class Recent:
    """The derivatives one transform got, by a key of the call's arguments (their kinds, or
    what the kinds are read from: analysis.kinds.call_key): its calls skip the cache's key
    (and hashing it) while nothing a derivative was made from changed since. What is compared
    is stricter than the cache's own test and cheaper: the function's code, what its closure
    holds, every module value its code reads by name (not only the functions), and the cache
    itself (cleared when a rule is registered). A miss falls back on the cache."""

    MOST = 8                    # kinds seen by one transform: more are looked up in the cache

    def __init__(self, fn):
        self.outer, self.fn = fn, _unwrap(fn)
        self.code = getattr(self.fn, "__code__", None)
        module = getattr(self.fn, "__globals__", None)
        self.usable = self.code is not None and module is not None
        if self.usable:
            self.names, self.read = _names_read(self.code), module.get
        self.entries = {}

    def stamp(self):
        """What a derivative looked up or made from now on is checked against later."""
        if not self.usable or self.fn.__code__ is not self.code:
            return None             # its code was replaced: the names it reads are others
        return (self.fn.__code__, _cell_contents(self.fn), tuple(map(self.read, self.names)),
                _clears[0])

    def get(self, key):
        """(the derivative, the facts kept with it) for calls like `key`, or None."""
        entry = self.entries.get(key)
        if entry is None:
            return None
        generated, facts, code, contents, values, clears = entry
        # (a plain function is its own _unwrap; one without a closure has no cell contents)
        fn = self.outer if type(self.outer) is _FUNCTION else _unwrap(self.outer)
        if fn is self.fn and code is fn.__code__ and clears == _clears[0] and \
                all(map(operator.is_, map(self.read, self.names), values)) and \
                (fn.__closure__ is None or contents == _cell_contents(fn)) and \
                (not generated.checked or inlined_current(generated)):
            return generated, facts
        self.entries.pop(key, None)        # another thread may have dropped it too
        return None

    def keep(self, stamp, key, generated, facts=None):
        """Keep `generated` (and `facts` about the call) for `key` if it is current for what
        `stamp` saw."""
        if stamp is None or not hasattr(generated, "callees"):
            return                  # not made by `derivative`: nothing to check it against
        code, contents, values, _ = stamp
        callees = tuple(v for v in values if v is not None and
                        (callable(v) or isinstance(v, types.ModuleType)))
        if not _is_current(generated, self.fn, contents, callees):
            return
        if len(self.entries) >= self.MOST:
            self.entries.clear()
        self.entries[key] = (generated, facts) + stamp


def pending(fn, mode, wrt_names):
    return _Pending(cache_key(fn, mode, wrt_names) + (None,))
