"""The adjoints of lists, tuples and dicts.

The adjoint of a container has the same structure; a missing entry (None in a list, an absent
key in a dict) is a zero. `+` merges entries, so generated code accumulates container adjoints
exactly as it accumulates arrays.
"""
import dataclasses

import numpy as np


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

    # `array + GradList` comes here, entry by entry (an array adjoint of a list NumPy read
    # as one array, one row an entry), not to NumPy, which would read the Nones as objects
    __array_ufunc__ = None

    def __add__(self, other):
        return GradList(_add_entries(self, other))

    __radd__ = __add__


class GradTuple(tuple):
    """The gradient for a tuple argument: a tuple, with GradList's elementwise `+` (a caller
    adds the gradients two calls return for the same tuple)."""

    __array_ufunc__ = None                  # as GradList's

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


class _Converted:
    """A container adjoint that callee_gradient made for the argument `like`, every entry an
    array of its own (or such a tuple) for its entry of `like`: what gradient_like would make
    of it is itself, so the caller's gradient_like (and its callers') hands it on without
    walking it again. Any change to it forgets `like` (a list or dict changed in place)."""

    like = None


def _forgetting(method):
    def changed(self, *args, **kwargs):
        self.like = None
        return method(self, *args, **kwargs)
    changed.__name__ = method.__name__
    return changed


class ConvertedList(_Converted, GradList):
    pass


class ConvertedDict(_Converted, GradDict):
    pass


class ConvertedTuple(_Converted, GradTuple):
    """(A tuple cannot change: it keeps `like`.)"""


for _kind, _base, _names in [
        (ConvertedList, list, ("__setitem__", "__delitem__", "__iadd__", "__imul__", "append",
                               "extend", "insert", "pop", "remove", "clear", "sort", "reverse")),
        (ConvertedDict, dict, ("__setitem__", "__delitem__", "__ior__", "pop", "popitem",
                               "setdefault", "update", "clear"))]:
    for _name in _names:
        setattr(_kind, _name, _forgetting(getattr(_base, _name)))


def converted(kind, entries, like):
    """The container adjoint of `kind` (GradList, GradTuple, GradDict) holding `entries` (a
    list, or (key, value) pairs for a dict) made for `like`: a converted one (_Converted) where
    each entry is an array or a converted tuple, else a plain one."""
    for v in entries if kind is not GradDict else [v for _, v in entries]:
        if type(v) is not np.ndarray and type(v) is not ConvertedTuple:
            return kind(entries)
    out = _CONVERTED[kind](entries)
    out.like = like
    return out


_CONVERTED = {GradList: ConvertedList, GradTuple: ConvertedTuple, GradDict: ConvertedDict}
CONVERTED_KINDS = frozenset(_CONVERTED.values())


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


def _zero_tree(like):
    if isinstance(like, dict):
        return GradDict()
    fields = record_fields(like)
    return GradList([None] * (len(fields) if fields is not None else len(like)))


def container_scatter(x, index, g):
    """Adjoint of reading `x[index]` from a list, tuple or dict."""
    if isinstance(x, dict):
        return GradDict({index: g})
    if isinstance(index, slice):
        out = GradList([None] * len(x))
        out[index] = list(g)
        return out
    # a list adjoint cut short by `truncate` reads as zeros past its end
    length = max(len(x), index + 1) if isinstance(index, int) else len(x)
    out = GradList([None] * length)
    out[index] = g
    return out


def entry_grad(g, m, key):
    """The adjoint of `m.get(key, default)` for the dict `m`: `g` at `key` where `m` has it."""
    return GradDict({key: g}) if key in m else GradDict()


def entry_read(h, m, key):
    """The transpose of entry_grad: the entry `key` of the dict adjoint `h` where `m` has it."""
    entry = h.get(key) if key in m and isinstance(h, dict) else None
    return 0.0 if entry is None else entry


def default_grad(g, m, key, default):
    """The adjoint of `m.get(key, default)` for `default`: `g` where `m` lacks `key`."""
    if key not in m:
        return g
    return _zero_tree(default) if _is_container(default) else g * 0


def entry_tangent(t, m, key, t_default):
    """The tangent of `m.get(key, default)`: the entry's tangent where `m` has `key`."""
    if key not in m:
        return t_default
    entry = t.get(key) if isinstance(t, dict) else None
    return entry if entry is not None else m[key] * 0.0


def _list_adjoint(g):
    """`g` as a list adjoint: NumPy reads a list of numbers or arrays as one array
    (`np.array(xs)`), whose adjoint then comes as an array, one row an entry."""
    if isinstance(g, (list, tuple)):
        return GradList(g)
    if g is not None and np.ndim(g) >= 1:
        return GradList(list(g))
    return GradList()


def put_entry(g, index, value):
    """A list adjoint with entry `index` set to `value` (undoing `v = xs.pop()`)."""
    out = _list_adjoint(g)
    out.extend([None] * (index + 1 - len(out)))
    out[index] = value
    return out


def truncate(g, length):
    """A list adjoint cut to `length` entries (undoing `xs.append(v)`)."""
    if isinstance(g, (list, tuple)):
        return GradList(g[:length])
    return g                # an array adjoint keeps its rows: those past the end are not read


def joined(a, b):
    """`a + b` on two lists or two tuples, one after the other, as a call where the function
    knows both operands hold one (passes/lower_sequence_arithmetic.py): the elementwise rule
    of `+` would read them as arrays. Another pair fails as `a + b` does."""
    return a + b


def joined_tangent(ta, tb, y):
    """The tangent of `y = joined(a, b)`: the operands' tangents one after the other."""
    return type(y)(list(ta) + list(tb))


def leading_part(g, a):
    """The adjoint of `a` in `joined(a, b)`: the first len(a) entries of the adjoint `g` (a
    list adjoint, or an array NumPy read the list as, one row an entry)."""
    return GradList(_list_adjoint(g)[:len(a)])


def trailing_part(g, a):
    """The adjoint of `b` in `joined(a, b)`: the entries of `g` after the first len(a)."""
    return GradList(_list_adjoint(g)[len(a):])


def placed_first(u, a):
    """The transpose of `leading_part`: `u` as the first entries of a longer list adjoint
    (the missing entries after them are zeros)."""
    return GradList(_list_adjoint(u))


def placed_after(u, a):
    """The transpose of `trailing_part`: `u` after len(a) zero entries."""
    return GradList([None] * len(a) + _list_adjoint(u))


def inserted_at(index, length):
    """Where `xs.insert(index, v)` put `v`, `length` being len(xs) after it: Python counts a
    negative index from the end and clamps an index past either end."""
    before = length - 1
    if index < 0:
        index += before
    return min(max(index, 0), before)


def popped_from(index, length):
    """Where `xs.pop(index)` took its entry from, `length` being len(xs) after it."""
    return index + length + 1 if index < 0 else index


def insert_entry(g, position, value):
    """A list adjoint with `value` put in at `position`, the entries after it moved up
    (undoing `v = xs.pop(i)`)."""
    out = _list_adjoint(g)
    out.extend([None] * (position - len(out)))
    out.insert(position, value)
    return out


def drop_entry(g, position):
    """A list adjoint without the entry at `position` (undoing `xs.insert(i, v)`); one cut
    short before it has nothing there to drop."""
    if g is None:
        return g
    g = _list_adjoint(g)
    return GradList(g[:position] + g[position + 1:])


def record_fields(x):
    """The field names of a namedtuple or a dataclass instance, in order; None for anything
    else. Its adjoint and tangent are a list of one entry a field, in this order."""
    fields = getattr(x, "_fields", None)
    if fields is not None and isinstance(x, tuple):
        return fields
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return tuple(f.name for f in dataclasses.fields(x))
    return None


def record_entries(x):
    """The values of a dataclass instance's fields, in order (what its adjoint lines up with)."""
    return [getattr(x, name) for name in record_fields(x)]


def _field_position(x, field):
    fields = record_fields(x)
    if fields is None or field not in fields:
        raise TypeError(f"cannot differentiate `.{field}` of a {type(x).__name__}: s2s_ad "
                        f"differentiates the fields of a namedtuple or a dataclass, not other "
                        f"attributes; pass the value as an argument, or index it (`p[0]`)")
    return fields.index(field)


def field_grad(g, x, field):
    """Adjoint of reading the field `x.<field>` of a namedtuple or dataclass: `g` in that
    field's entry."""
    fields = record_fields(x)
    out = GradList([None] * (len(fields) if fields is not None else len(x)))
    out[_field_position(x, field)] = g
    return out


def field_tangent(t, x, field):
    """Tangent of `x.<field>` (and the transpose of field_grad): the tangent's entry there."""
    position = _field_position(x, field)
    return None if t is None else t[position]


def make_record(cls, values):
    """`cls(*values)`: a namedtuple or dataclass built in a differentiated function, its
    fields given in order (passes/lower_record_constructors.py binds the call to them)."""
    return cls(*values)


def as_field_list(g, like):
    """A record's adjoint or tangent (a list of one entry a field, None a zero) as the list
    of entries of `like`, the tuple of its fields: the adjoint of `make_record`'s values, or
    its tangent from theirs. Its own transpose."""
    return GradList([None] * len(like) if g is None else g)


def deep_copy(x):
    """`copy.deepcopy(x)` of the arrays, lists, tuples and dicts a function builds: a new
    object all through, so that writing into it changes nothing `x` holds (the memory model
    reads s2s_ad's functions as making new values)."""
    import copy
    return copy.deepcopy(x)


def with_entry(t, k, v):
    """The tuple `t` holding `v` at `k`: how the derivative follows a write into the array a
    tuple holds (`a, b = t; b[0] = x` changes `t[1]`), passes/write_back_views.py. The same
    arrays, in a new tuple; for NumPy nothing changed."""
    return t[:k] + (v,) + t[k + 1:] if k != -1 else t[:-1] + (v,)


def without_entry(g, k):
    """A tuple's adjoint (or tangent) with entry `k` a zero (None): the part of `with_entry`'s
    that reaches the tuple it was given. Its own transpose."""
    if g is None:
        return None
    out = GradList(g)
    out[k] = None
    return out


def entry_replaced(dt, t, k, dv):
    """The tangent of `with_entry(t, k, v)`: `t`'s tangent (None: zeros) with `v`'s at `k`."""
    out = GradList([None] * len(t) if dt is None else dt)
    out[k] = dv
    return out
