"""Run-time refusals: what generated code checks as it runs (a view read after a write, an
update through an alias, a method called on a module, an argument that cannot be
differentiated, a complex derivative), each refused with the user's line.

Where s2s_ad is installed the refusal is one of s2s_ad.errors' classes; a module written with
`--standalone` has no s2s_ad to import, so the same text comes as a TypeError.
"""
import contextvars
import dataclasses
import sys
import types
from collections.abc import Mapping

import numpy as np

from .containers import record_fields


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
        from .. import errors
    except ImportError:             # a standalone module written by the CLI: s2s_ad is not there
        raise TypeError(f"{filename}:{lineno}: {message}\n    {text}\nhint: {hint}") from None
    raise getattr(errors, kind)(message, filename=filename, lineno=lineno, col=col,
                                source_line=source_line, hint=hint)


def _refuse_sequence_arithmetic():
    """`z = xs + ys` or `xs * 2` on lists or tuples met an elementwise rule: the adjoint of
    the longer sequence `z` cannot be split among the operands, so refuse, naming the user's
    line."""
    message = ("cannot differentiate `+` or `*` on lists or tuples (concatenation or "
               "repetition)")
    hint = ("append to a copy (`ys = list(xs)`, then `ys.append(v)` or `ys = ys + [v]`), or "
            "join arrays with np.concatenate / np.stack")
    _refuse_at_user_line(3, message, hint, "UnsupportedSyntax")


def _refuse_resizing_slice_assignment():
    """`xs[i:j] = ys` with `len(ys) != j - i` moved the entries after the slice: the list's
    adjoint, kept entry by entry, cannot follow that, so refuse, naming the user's line."""
    _refuse_at_user_line(
        3, "cannot differentiate a slice assignment that changes the list's length",
        "assign as many entries as the slice holds (`xs[i:j] = ys` with len(ys) == j - i), "
        "or append the entries you want to a new list",
        "UnsupportedSyntax")


COMPLEX_HINT = ("split the complex value into real arrays (`c.real`, `c.imag`) before it meets "
                "the values you differentiate, and write the arithmetic on those")


# what a derivative the API runs knows of complex values: None where no API runs it (a module
# the CLI wrote), else (does the function write a complex value itself (`written`: see
# passes/refuse_complex.ComplexRefusals), its arguments); the API sets it around each run
COMPLEX_CONTEXT = contextvars.ContextVar("s2s_ad_complex_context", default=None)


def check_complex_seen():
    """A complex adjoint reached a real value (its real part is the convention). Where the
    function writes no complex value and no argument is complex, transform time could not see
    where it came from (an attribute an object was given later, a value a method returns, a
    negative Python number to a fractional power), so the rules it met may hold for real
    values only: refuse, naming the line, rather than return a derivative not known right."""
    context = COMPLEX_CONTEXT.get()
    if context is None or context[0] or any(holds_complex(a) for a in context[1]):
        return
    message = ("a complex value met a value being differentiated in this function where s2s_ad "
               "could not see it when it read the function (an attribute of an object, a value "
               "a method returns, a negative Python number to a fractional power); the rules it "
               "met may hold for real values only")
    _refuse_at_user_line(2, message, COMPLEX_HINT, "ComplexValue")


def holds_complex(value):
    """Is `value` complex, or does a dict, list, tuple or dataclass it is hold a complex
    value?"""
    t = type(value)
    if t is np.ndarray:
        return value.dtype.kind == "c"      # the common cases, first: arrays, and
    if t is list or t is tuple or t is dict:  # containers of them (parameters, at each call)
        return any(map(holds_complex, value.values() if t is dict else value))
    if isinstance(value, dict):
        return any(holds_complex(v) for v in value.values())
    fields = getattr(type(value), "__dataclass_fields__", None)
    if fields is not None:
        return any(holds_complex(getattr(value, name)) for name in fields)
    if isinstance(value, (list, tuple)):
        return any(holds_complex(v) for v in value)
    return is_complex(value)


def is_complex(value):
    """Is `value` a complex number, an array of complex numbers, or a list or tuple holding
    one (NumPy reads such a list as a complex array)?"""
    if type(value) is complex:
        return True
    if type(value) is list or type(value) is tuple:
        return any(is_complex(entry) for entry in value)
    dtype = getattr(value, "dtype", None)
    return dtype is not None and getattr(dtype, "kind", None) == "c"


# array modules whose arrays cannot meet in one operation (NumPy arrays do mix with Dask
# arrays, and numbers mix with everything)
_APART = (frozenset({"cupy", "dask"}), frozenset({"cupy", "numpy"}))
_NAMES = {"cupy": "a CuPy array", "dask": "a Dask array", "numpy": "a NumPy array"}
_PLAIN = frozenset({np.ndarray, float, int})


def check_backends(arguments):
    """Refuse arguments (name -> value) holding arrays of two array modules that cannot meet
    in one operation, naming one argument of each, before generated code fails inside."""
    if all(type(value) in _PLAIN for value in arguments.values()) or "cupy" not in sys.modules:
        return        # NumPy arrays and numbers; or no CuPy array, which every refusal needs
    first = {}                        # array module -> the first argument holding its arrays
    for name, value in arguments.items():
        for label, module in _array_modules(name, value):
            first.setdefault(module, label)
    for pair in _APART:
        if pair <= first.keys():
            a, b = sorted(pair, key=list(first).index)
            raise TypeError(f"`{first[a]}` is {_NAMES[a]} and `{first[b]}` is {_NAMES[b]}, "
                            f"which cannot meet in one computation; pass arrays of one kind "
                            f"(move one of them with the other's asarray or from_array)")


def _array_modules(label, value):
    """(label, array module) for each array in `value` that takes part in arithmetic; an
    integer NumPy array may be an index, which other modules accept."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _array_modules(f"{label}[{key!r}]", item)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _array_modules(f"{label}[{index}]", item)
    elif hasattr(value, "shape") and not isinstance(value, np.generic):
        module = type(value).__module__.partition(".")[0]
        if module != "numpy" or value.dtype.kind in "fc":
            yield label, module


def float_arrays(value):
    """Is `value` a float NumPy array, or a plain dict, list or tuple holding only those (a
    list of (W, b) layers: two levels)? Then it is differentiable and holds nothing complex.
    (Asked of every argument at every call: loops, which cost less than generators.)"""
    t = type(value)
    if t is np.ndarray:
        return value.dtype.kind == "f"
    if t is dict:
        value = value.values()
    elif t is not list and t is not tuple:
        return False
    for entry in value:
        t = type(entry)
        if t is np.ndarray:
            if entry.dtype.kind != "f":
                return False
        elif t is tuple or t is list:
            for leaf in entry:
                if type(leaf) is not np.ndarray or leaf.dtype.kind != "f":
                    return False
        else:
            return False
    return True


def check_differentiable(name, value):
    """Refuse to differentiate with respect to integers (or containers holding them)."""
    if float_arrays(value):
        return                        # the common cases, first (and no label is built)
    if isinstance(value, dict):
        for key, item in value.items():
            if type(item) is not np.ndarray or item.dtype.kind != "f":   # named only if refused
                check_differentiable(f"{name}[{key!r}]", item)
        return
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            if type(item) is not np.ndarray or item.dtype.kind != "f":
                check_differentiable(f"{name}[{index}]", item)
        return
    fields = record_fields(value)
    if fields is not None:
        for field in fields:
            check_differentiable(f"{name}.{field}", getattr(value, field))
        return
    if not isinstance(value, (float, complex, int, np.generic)) and not hasattr(value, "dtype"):
        raise TypeError(f"cannot differentiate with respect to {name!r}: it is a "
                        f"{type(value).__name__}, not a number, an array or a dict, list, "
                        f"tuple or dataclass of them; pass the arrays it holds instead (for "
                        f"example a dict of parameters)")
    dtype = getattr(value, "dtype", None)
    if isinstance(value, bool) or isinstance(value, int) or (
            dtype is not None and not np.issubdtype(dtype, np.inexact)):
        kind = type(value).__name__ if dtype is None else f"array of {dtype}"
        raise TypeError(f"cannot differentiate with respect to {name!r}: it is an integer "
                        f"({kind}); pass a float (for example {name}=float(...) or "
                        f".astype(float))")


def _source_line(where):
    import linecache
    filename, line, _ = where.rsplit(":", 2)
    return linecache.getline(filename, int(line)).rstrip("\n")


def _statement_text(where):
    """The source from `where`'s column on: the statement itself, also where one line holds
    several (`a = [x]; b = a; b[0] += 1.0`)."""
    return _source_line(where)[max(int(where.rsplit(":", 1)[1]) - 1, 0):]


def _refuse_at(where, message, hint, kind):
    """Raise s2s_ad.errors' `kind` at `where` ('file:line:col', col counted from 1)."""
    filename, line, col = where.rsplit(":", 2)
    source_line = _source_line(where)
    try:
        from .. import errors
    except ImportError:             # a standalone module written by the CLI: s2s_ad is not there
        raise TypeError(f"{where}: {message}\n    {source_line.strip()}\nhint: {hint}") from None
    raise getattr(errors, kind)(message, filename=filename, lineno=int(line), col=int(col) - 1,
                                source_line=source_line, hint=hint)


def check_not_view(value, read, written_at, where):
    """`value` was read as `read` (say `y[i]`) and is used after `y` is written in place (at
    line `written_at`): fine for a number (a copy), refused for a view, which sees the write."""
    if getattr(value, "base", None) is None or getattr(value, "flags", None) is None:
        return
    base = read.split("[", 1)[0]
    message = (f"`{read}` is a view of `{base}` (it has {np.ndim(value)} dimension(s)), which is "
               f"written in place at line {written_at} before it is read here; the derivative "
               f"would miss that write")
    hint = f"take a copy (`{read}.copy()`) or read it before writing into `{base}`"
    _refuse_at(where, message, hint, "UnsupportedSyntax")


_TOO_HARD = getattr(np, "exceptions", np).TooHardError


def check_view_spared(view, base, index, names, read_at, where):
    """`base[index] = ...` is about to run while `view`, which may be a view of `base`, is read
    afterwards (at line `read_at`): refuse when the write reaches `view`'s memory, which
    the derivative, taking `view` for a value of its own, would not see. `names` is (the view
    as the user wrote it, `base`'s name, a copy to suggest, quoted)."""
    if not any(_may_reach(array, base, index) for array in _arrays_in(view)):
        return
    shown, written, copy = names
    what = "the same array under another name" if view is base else "a view of it"
    _refuse_at(where, f"this write into `{written}` changes `{shown}`, {what}, which is read "
               f"afterwards (line {read_at}); the derivative would miss that change",
               f"take a copy ({copy}) or write into `{written}` after the last read of "
               f"`{shown}`", "UnsupportedSyntax")


def check_copied_as_a_copy(base, index, value, texts, where):
    """`base[index] = value`, where `value` may be a view of `base`: NumPy copies memory that
    overlaps in an order of its own (`buf[1] = buf[:, 3]` reads entries it has just written),
    and the derivative takes the assignment for one of a copy of `value`. Refuse where the two
    differ, found by making the same assignment on numbered entries. `texts` is (the target,
    the value) as the user wrote them."""
    if not (isinstance(base, np.ndarray) and isinstance(value, np.ndarray)) or \
            not np.may_share_memory(base, value) or _copies_as_a_copy(base, index, value):
        return
    target, source = texts
    _refuse_at(where, f"`{target} = {source}` reads memory it writes into, which NumPy copies in "
               f"an order of its own: the result is not that of assigning a copy of `{source}`, "
               f"which the derivative would follow", f"assign a copy: `{target} = {source}.copy()`",
               "UnsupportedSyntax")


def _copies_as_a_copy(base, index, value):
    """Does `base[index] = value` give what assigning `value.copy()` gives? Replayed on an
    array of distinct numbers laid out as the memory `base` and `value` share; no where that
    cannot be laid out (another owner, another dtype, an owner not contiguous or too large
    for its dtype to number each entry)."""
    owner = _owner(base)
    if _owner(value) is not owner or value.dtype != base.dtype or \
            owner.dtype.kind not in "fc" or owner.size >= 2 ** (np.finfo(owner.dtype).nmant + 1) \
            or not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        return False
    numbered = np.arange(owner.size, dtype=owner.dtype)
    start = owner.__array_interface__["data"][0]

    def laid_out(array):
        offset = (array.__array_interface__["data"][0] - start) // array.itemsize
        return np.lib.stride_tricks.as_strided(numbered[offset:], array.shape, array.strides)
    target, source = laid_out(base), laid_out(value)
    wanted = target.copy()
    wanted[index] = source.copy()
    target[index] = source
    return np.array_equal(target, wanted)


def _owner(array):
    """The array that owns the memory `array` views."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _arrays_in(value):
    """The arrays `value` is or holds (the parts of np.split's list, say)."""
    if isinstance(value, (list, tuple)):
        for part in value:
            yield from _arrays_in(part)
    elif isinstance(value, Mapping):
        for part in value.values():
            yield from _arrays_in(part)
    elif getattr(value, "flags", None) is not None:
        yield value


def _may_reach(array, base, index):
    """May `base[index] = v` change `array`? For NumPy arrays, where it shares memory with the
    part written (`array` may be `base` itself); never where `base` is a container, whose slot
    is replaced, not written into; otherwise where `array` is a view or `base` itself."""
    if isinstance(base, (list, tuple, Mapping)):
        return False
    if isinstance(array, np.ndarray) and isinstance(base, np.ndarray):
        try:
            return np.shares_memory(array, _written_region(base, index), max_work=10 ** 6)
        except _TOO_HARD:
            return True
    return array is base or getattr(array, "base", None) is not None


def _written_region(base, index):
    """The part of `base` that `base[index] = v` writes, as a view: an integer position is a
    slice of length one, an array of positions or a mask the whole of its axes."""
    parts = index if isinstance(index, tuple) else (index,)
    region = []
    for part in parts:
        if isinstance(part, (int, np.integer)) and not isinstance(part, bool):
            region.append(slice(part, part + 1 or None))
        elif part is None or part is Ellipsis or isinstance(part, slice):
            region.append(part)
        else:
            region += [slice(None)] * max(np.ndim(part) if np.asarray(part).dtype == bool else 1, 1)
    return base[tuple(region)]


def check_fresh_array(value, message, hint, where):
    """A callee writes into `value`, arithmetic the caller wrote as its argument (`h(x *
    2.0)`): an array that arithmetic made owns its memory, and no one else holds it. Anything
    else (a list holding the caller's arrays, `[x] * 2`) may share what the callee changes:
    refused with the message of a write into an argument (`where`: 'file:line:col'). A number
    is rebound by `a op= v`, and cannot be written into by an index."""
    if type(value) is np.ndarray and value.base is None or \
            isinstance(value, (bool, int, float, complex, np.generic)):
        return
    _refuse_at(where, message, hint, "UnsupportedSyntax")


def _refuse_container_update(value, passed, where):
    """`a op= v` in a function of yours on its parameter `a` (`passed_in`), given the caller's
    `passed`: a list, dict or set is changed in place (`+=` extends a list), which the caller
    sees and the derivative would not."""
    import re
    kind = type(value).__name__
    update = re.match(r"\s*(\w+)\s*([-+*/|&^]+)=", _statement_text(where))
    name, op = update.groups() if update else ("a", "+")
    _refuse_at(where, f"this update changes in place the {kind} passed in as `{passed}` "
                      f"(`{name} {op}= ...` on a {kind} changes that {kind}, it makes no new "
                      f"one), which changes `{passed}` behind the transformer's back",
               f"make a new {kind} (`{name} = " + (f"[*{name}, ...]" if kind == "list" else
                                                    f"{name} {op} ...") + "`), return it, and assign it "
               f"where the function is called (`{passed} = f({passed}, ...)`)",
               "UnsupportedSyntax")


def check_rebinds(value, aliases, where, *holders, rebound=(), passed_in=False):
    """`y op= v` is differentiated as `y = y op v`: exact for numbers and for an array no other
    name holds, not for an array that one of `aliases` (what the user wrote, one a holder)
    shares, which the update would change as well. Refuse that case: where the values of the
    aliases are given (`holders`), when the array shares memory with one of them; otherwise
    for any array. An alias in `rebound` that holds the very array updated is fine: the
    generated code binds it to the result too (`same_array`), as NumPy's one array would be."""
    if passed_in and isinstance(value, (list, dict, set, bytearray)):
        _refuse_container_update(value, aliases[0], where)
    if isinstance(value, np.generic) or getattr(value, "flags", None) is None:
        return
    alias = aliases[0]
    if holders:
        sharing = [i for i, h in enumerate(holders) if _may_share_memory(value, h)
                   and not (aliases[i] in rebound and same_array(value, h))]
        if not sharing:
            return
        alias = aliases[sharing[0]]
    import re
    line = _statement_text(where)
    update = re.match(r"\s*(\w+(?:\[[^\]=]*\])?)\s*([-+*/@%]+)=", line)
    entry = re.match(r"\s*(\w+)\s*\[", line)
    if update is None and entry is not None and rebound:
        # `y[i] = v` where a name that may be the very array `y` is read later
        # (GuardAliasedUpdates.guard_entry_write): here it shares memory some other way
        written = entry.group(1)
        _refuse_at(where, f"this write into `{written}` changes `{alias}`, a view of it (or an "
                   f"array sharing its memory), which is read afterwards; the derivative would "
                   f"miss that change", f"take a copy (`{alias} = {alias}.copy()` where it is "
                   f"bound) or write into `{written}` after the last read of `{alias}`",
                   "UnsupportedSyntax")
    name, op = update.groups() if update else ("y", "+")
    shown = alias if alias.startswith("another entry of ") else f"`{alias}`"
    message = (f"`{name} {op}= ...` updates the array `{name}` in place, and {shown} may be that "
               f"same array (or a view of it); s2s_ad cannot follow an in-place change through "
               f"an alias")
    hint = f"for a new array, write `{name} = {name} {op} ...`"
    if alias.isidentifier():        # an expression's value (`x * 2.0`) cannot be written into
        hint += f"; to change `{alias}`, write into it (`{alias}[...] {op}= ...`)"
    _refuse_at(where, message, hint, "SharedUpdate")


def other_entries(container, key):
    """The entries of a list, tuple or dict `container` under keys other than `key`: one that is
    (or views) the array under `key` sees an in-place update of it (check_rebinds)."""
    if isinstance(container, dict):
        return [v for k, v in container.items() if k != key]
    if isinstance(container, (list, tuple)) and isinstance(key, int) and container:
        position = key % len(container)
        return [v for i, v in enumerate(container) if i != position]
    return [container]


def same_array(value, other):
    """Is `other` the very array `value` (so that `value op= v` changes what both names hold)?
    A number is never changed in place: `z = y; z += 1` leaves a float `y` as it was."""
    return isinstance(value, np.ndarray) and value is other


def _may_share_memory(array, other):
    """Might writing into `array` change `other` (an array, or a list, tuple or dict holding
    arrays)? Objects of other kinds may hold anything: yes."""
    if other is None or isinstance(other, (bool, int, float, complex, str, np.generic)):
        return False
    if isinstance(other, (list, tuple)):
        return any(_may_share_memory(array, entry) for entry in other)
    if isinstance(other, dict):
        return any(_may_share_memory(array, entry) for entry in other.values())
    if isinstance(array, np.ndarray) and isinstance(other, np.ndarray):
        return bool(np.may_share_memory(array, other))
    if type(other) is type(array):          # CuPy's arrays: the same function in their module
        module = sys.modules.get(type(array).__module__.split(".")[0])
        return bool(getattr(module, "may_share_memory", lambda *_: True)(array, other))
    if isinstance(other, (types.ModuleType, type, types.FunctionType)):
        return False                       # `np`, a class or a function passed as an argument
    fields = getattr(other, "__dict__", None)
    if dataclasses.is_dataclass(other) and isinstance(fields, dict):
        # a record (a dataclass of parameters): what its fields hold
        return any(_may_share_memory(array, field) for field in fields.values())
    return True


def check_entries_rebind(value, aliases, where, indexed=None):
    """`e op= v` in a callee, on a name `e` that may hold an entry of its argument `value` (`e =
    t[0]`, `e, f = t`): exact where that entry is a number, not where it is an array, which
    the update changes inside the caller's `aliases[0]`. Refuse when `value` holds an array,
    unless `e` took `indexed` indices, none a slice, of an array with no more dimensions (`e =
    b[0, 2]` of a 2-D `b`: a number, or a copy where an index is an array)."""
    if indexed is not None and getattr(value, "ndim", indexed + 1) <= indexed:
        return
    entries = list(value.values()) if isinstance(value, dict) else \
        list(value) if isinstance(value, (list, tuple)) else [value]
    for entry in entries:
        if isinstance(entry, (list, tuple, dict)):
            check_entries_rebind(entry, aliases, where)
        elif not (isinstance(entry, np.generic) or getattr(entry, "flags", None) is None):
            check_rebinds(entry, aliases, where)


# methods with rules that are not array methods, and the type whose method the rule is
_OWNERS_OF_OTHER_METHODS = {"get": dict}
_CONTAINERS = (list, tuple, dict)


def check_bound(value, name):
    """Python raises UnboundLocalError where a path left a local unassigned (a loop that ran
    zero times) and it is read; generated code binds such a name to None first (its backward
    pass reads it), so it asks here."""
    if value is None:
        raise UnboundLocalError(f"cannot access local variable '{name}' where it is not "
                                f"associated with a value")


def check_not_mapping(sequence, where):
    """`for k in d:` differentiated as a walk over entries, which is what it is for a list, a
    tuple or an array; over a dict it walks the keys, which carry no derivative. Refuse that."""
    if isinstance(sequence, Mapping):
        _refuse_at(where, f"this loop walks the keys of a {type(sequence).__name__}, and the key "
                   f"is used where s2s_ad follows derivatives; it would read the dict's entries "
                   f"in its place", "walk the keys as keys: `for k in d.keys():` (or "
                   "`for k, v in d.items():`)", "UnsupportedSyntax")


def check_method_owner(owner, method, where):
    """`owner.method(...)` is differentiated with the rule of the array method: right when
    `owner` is an array or a number, wrong for a module (`np.sum(x)` with `np` a parameter)
    or another object whose method means something else. Refuse those."""
    if _is_array_like(owner) or isinstance(owner, _OWNERS_OF_OTHER_METHODS.get(method, ())) \
            or type(owner) in _CONTAINERS:       # their own methods: rules of their own
        return
    kind = "a module" if type(owner).__name__ == "module" else f"a {type(owner).__name__}"
    message = (f"cannot differentiate `.{method}(...)` on {kind}: s2s_ad reads a call on a "
               f"local name as the array method `.{method}`, and here the name holds {kind}")
    cls = type(owner)
    if kind == "a module":
        hint = ("call the function through a module imported at the top of the file "
                f"(`np.{method}(...)`), not through a parameter or a local name")
    elif isinstance(getattr(cls, method, None), types.FunctionType):
        hint = (f"s2s_ad calls your class's own `.{method}` where the module of this line names "
                f"the class: add `from {cls.__module__} import {cls.__qualname__.split('.')[0]}` "
                f"to it, or give the method a name arrays do not have")
    else:
        hint = f"call `.{method}` on an array, or use a NumPy function"
    _refuse_at(where, message, hint, "UnsupportedSyntax")


def check_attribute_owner(owner, attribute, where):
    """`owner.attribute` read as the array attribute (`p.T` transposes, `p.shape` carries no
    derivative): right for an array or a number, wrong for a record whose field or property
    has that name (a gamma distribution's `shape`). Refuse those."""
    if _is_array_like(owner):
        return
    name = type(owner).__name__
    _refuse_at(where, f"cannot differentiate `.{attribute}` of a {name}: s2s_ad reads "
               f"`.{attribute}` as the array attribute, and here the name holds a {name}",
               f"give the field or property another name than the array attribute "
               f"`.{attribute}`", "UnsupportedSyntax")


def _is_array_like(value):
    return hasattr(value, "__array__") or hasattr(value, "__array_namespace__") or \
        isinstance(value, (int, float, complex, np.generic))


def written_through(view, base, index, where, names=("v", "t"), updated=None):
    """What the derivative writes back after the write about to be made into `view`, bound as
    `base[index]` or unpacked from `base` (passes/write_back_views.py): 1 where `view` is a view
    of the array `base`, or the very entry of a list (`base[index] = view`); 2 where it is the
    array a tuple holds (`base = with_entry(base, index, view)`); 0 where `view` is a number
    (`v += 1` rebinds it) or a new list. An array the tuple holds at another entry too is
    refused: that entry changes as well. `updated`: for `v[k] op= x`, the entry `v[k]` before
    it (`...` where it could not be read without reading `k` twice); where `v` is a new list of
    the same objects (`v = base[i:j]`) and that entry an array `base` holds at position p,
    3 + p (`base[p] = v[k]` after the update: base sees it). An array either holds twice, or
    any shared array where the entry is not known, is refused."""
    if type(index) is int and isinstance(base, (list, tuple)) and base[index] is view and \
            (type(view) is list or isinstance(view, np.ndarray)):
        # the very array or list `base` holds: base sees every write (a list by binding the
        # entry again, a tuple as a new one holding the same objects), unless it holds it at
        # another entry too, which the write back would leave as it was
        if _held_elsewhere(base, index, view):
            shown, holder = names
            _refuse_at(where, f"this write into `{shown}` changes what `{holder}` holds at "
                       f"another entry too, which is read afterwards; the derivative would "
                       f"miss that change", f"make it a copy first (`{shown} = "
                       f"{shown}.copy()` where it is bound), or build a new `{holder}`",
                       "UnsupportedSyntax")
        return 1 if isinstance(base, list) else 2
    if type(view) is list and type(base) is list and isinstance(index, slice):
        return _slice_copy_updated(view, base, where, names, updated)
    if isinstance(view, np.ndarray) and isinstance(base, np.ndarray):
        return int(bool(np.shares_memory(view, base)))
    return 0


def _slice_copy_updated(view, base, where, names, updated):
    """written_through for `view`, a slice copy of the list `base`: 3 + p where the entry
    updated in place is the array `base` holds at position p alone; 0 where the write changes
    nothing `base` holds; else refused."""
    if isinstance(updated, np.ndarray):
        positions = [p for p, e in enumerate(base) if e is updated]
        if not positions:
            return 0
        if len(positions) == 1 and sum(e is updated for e in view) == 1:
            return 3 + positions[0]
    elif updated is Ellipsis:           # an entry not known: any array both hold
        held = {id(e) for e in base if isinstance(e, np.ndarray)}
        if not any(id(e) in held for e in view):
            return 0
    else:
        return 0                        # a store, or `v += ...`: `v` is a list of its own
    shown, holder = names
    _refuse_at(where, f"this update changes in place an array that `{shown}` and `{holder}` "
               f"both hold (`{shown}` is a new list of the same arrays), which one of them "
               f"holds at two entries or at one not known here; the derivative would miss "
               f"that change", f"bind a new array to the entry (`{shown}[k] = {shown}[k] - "
               f"...`), or copy the arrays too (`{shown} = [e.copy() for e in {holder}]`)",
               "SharedUpdate")


def _held_elsewhere(base, index, view):
    """Does the list or tuple `base` hold `view` (or an array sharing its memory) at an entry
    other than `index`?"""
    k = index % len(base)
    return any(j != k and (e is view or isinstance(view, np.ndarray) and
                           isinstance(e, np.ndarray) and np.may_share_memory(e, view))
               for j, e in enumerate(base))
