"""What a value passed to a derivative is, as far as the shape facts care (its *kind*): a
number, an array of a shape, a list of numbers, a container of such values, ... The kinds of
the arguments are part of the derivative cache's key: a call with other kinds gets other code.

An array's shape is kept as *size classes*, not sizes: every axis of size 1 is 1, and the
other axes are named by their size, the same name for the same size across all the arguments
of one call (`X` of shape (256, 64) and `W` of (64, 10) are ("n0", "n1") and ("n1", "n2")).
The facts need no more: where two axes are equal, where an axis is 1. So a call with another
batch size reuses the code, unless the new size equals another axis's, which changes what is
equal and so gets code of its own.
"""
from dataclasses import dataclass

import numpy as np

INT, REAL, RANGE, REALS = "int", "real", "range", "reals"


@dataclass(frozen=True)
class Array:
    """A NumPy array of real (or integer, or boolean) numbers with `ndim` dimensions; `dims`:
    per axis, 1 or its size class (None: not known)."""
    ndim: int
    dims: tuple = None

    def __post_init__(self):
        # kinds are the cache's key, hashed at every call: hashed once, here
        object.__setattr__(self, "_hash", hash((self.ndim, self.dims)))

    def __hash__(self):
        return self._hash


@dataclass(frozen=True)
class Entries:
    """A dict with string keys, a list or a tuple (`of`), and its entries' kinds: `items` are
    (key or position, kind) pairs in order."""
    of: type
    items: tuple

    def __post_init__(self):
        object.__setattr__(self, "_hash", hash((self.of, self.items)))

    def __hash__(self):
        return self._hash

    def entry(self, key):
        """The kind of `container[key]` for a constant key (None: not known)."""
        if self.of is not dict and type(key) is int and -len(self.items) <= key < 0:
            key += len(self.items)
        for k, kind in self.items:
            if k == key and type(k) is type(key):
                return kind
        return None


@dataclass(frozen=True)
class Dim:
    """An int that is the size of an axis: `size` is 1 or a size class (`x.shape[0]`)."""
    size: object


_INT_TYPES = frozenset({int, np.int8, np.int16, np.int32, np.int64,
                        np.uint8, np.uint16, np.uint32, np.uint64})
_REAL_TYPES = frozenset({float, bool, np.float16, np.float32, np.float64, np.bool_}) | _INT_TYPES
NUMBER_KINDS = {**{t: REAL for t in _REAL_TYPES}, **{t: INT for t in _INT_TYPES}}
_LONGEST_CHECKED = 100_000              # a longer list is not read entry by entry at each call
# a container of more entries is not described: reading them costs at every call, and a list
# whose length changes from call to call would get code for each length
MOST_ENTRIES = 16


def kind_of(value, sizes=None, entries=True):
    """The kind of `value`; None when it is none of the kinds the facts know (a complex
    number, an object, ...). `sizes` maps the sizes seen so far in this call to their
    classes (kinds_of shares it between the arguments); without `entries`, a dict or a list
    not of numbers is not described."""
    t = type(value)
    number = NUMBER_KINDS.get(t)
    if number is not None:
        return number
    if sizes is None:
        sizes = {}
    if t is np.ndarray:
        return _array(value.shape, sizes) if value.dtype.kind in "biuf" else None
    if t is list or t is tuple:
        if _numbers(value):
            return REALS
        if entries and len(value) <= MOST_ENTRIES:
            return _entries(t, enumerate(value), sizes)
    elif t is dict and entries and len(value) <= MOST_ENTRIES and \
            set(map(type, value)) == _STR:
        return _entries(dict, value.items(), sizes)
    return None


def _numbers(sequence):
    """Does the list or tuple hold numbers alone (read entry by entry up to a length)? Its
    first entry tells for most that do not: a list of (W, b) layers."""
    return not sequence or type(sequence[0]) in _REAL_TYPES and \
        len(sequence) <= _LONGEST_CHECKED and set(map(type, sequence)) <= _REAL_TYPES


_CLASS_NAMES = tuple(f"n{k}" for k in range(32))
_ARRAYS = {}                            # dims -> its Array: a kind is made at every call


def class_name(k):
    """The name of the k-th size class met in a call's arguments."""
    return _CLASS_NAMES[k] if k < len(_CLASS_NAMES) else f"n{k}"


def _array(shape, sizes):
    dims = []
    for n in shape:
        if n == 1:
            dims.append(1)
            continue
        name = sizes.get(n)
        if name is None:
            k = len(sizes)
            name = sizes[n] = class_name(k)
        dims.append(name)
    return array_kind(tuple(dims))


def array_kind(dims):
    """The Array of these size classes, one object for them all: the kinds a call reads are
    keys compared at each call, where one object compares at once."""
    kind = _ARRAYS.get(dims)
    if kind is None:
        kind = Array(len(dims), dims)
        if len(_ARRAYS) < 10_000:
            _ARRAYS[dims] = kind
    return kind


_STR = {str}
_ENTRIES = {}                           # (of, items) -> its Entries, as _ARRAYS


def _entries(of, items, sizes):
    described, known = [], False
    for k, v in items:
        if type(v) is np.ndarray and v.dtype.kind in "biuf":
            kind = _array(v.shape, sizes)       # the common case, first: a parameter array
        else:
            kind = kind_of(v, sizes)
        described.append((k, kind))
        known = known or kind is not None
    return entries_kind(of, tuple(described)) if known else None


def entries_kind(of, items):
    """The Entries of these items, one object for them all (as array_kind)."""
    key = (of, items)
    kind = _ENTRIES.get(key)
    if kind is None:
        kind = Entries(of, items)
        if len(_ENTRIES) < 10_000:
            _ENTRIES[key] = kind
    return kind


class DescribedContainers:
    """The positions of the containers whose entries a derivative's kinds describe, until
    calls bring more than MOST kinds of them: a list of arrays whose lengths change from call
    to call (the sequences of a batch) would get code of its own at each call; from then on,
    no container is described."""
    MOST = 4

    def __init__(self, positions):
        self.positions = positions
        self.seen = set()

    def made(self, kinds):
        """Count the code made for `kinds`."""
        if self.positions:
            self.seen.add(kinds)
            if len(self.seen) > self.MOST:
                self.positions = frozenset()


_BY_SHAPES = {}                         # _plain_key -> the kinds it gives


def kinds_of(values, containers=None):
    """The kinds of a call's arguments; only the containers at the positions `containers`
    (all, if None) describe their entries: reading them costs at every call, so only those
    the function reads entries of (analysis.shapes.indexed_parameters)."""
    key = _plain_key(values, containers)
    found = _BY_SHAPES.get(key) if key is not None else None
    if found is not None:
        return found
    get = NUMBER_KINDS.get
    sizes = {}
    kinds = tuple([get(type(v)) or kind_of(v, sizes, containers is None or k in containers)
                   for k, v in enumerate(values)])
    if key is not None and len(_BY_SHAPES) < 10_000:
        _BY_SHAPES[key] = kinds
    return kinds


def call_key(values, containers=None):
    """A key for a call's arguments that decides their kinds (kinds_of): what the kinds are
    read from where there is such a key (types, shapes, keys: cheaper to read and to hash
    than the kinds), else the kinds themselves."""
    key = _plain_key(values, containers)
    return key if key is not None else ("kinds", kinds_of(values, containers))


def _plain_key(values, containers):
    """All that the kinds of numbers, None, NumPy arrays, dicts of them with string keys and
    lists and tuples of them depend on, their types, shapes and keys, cheaper to read than
    their kinds (a layer's arguments at each call; a dict or a list of (W, b) parameters);
    None where an argument is another value."""
    key = []
    for k, v in enumerate(values):
        t = type(v)
        if t is np.ndarray and v.dtype.kind in "biuf":
            key.append(v.shape)             # the common case, first
        elif t is dict:
            if containers is not None and k not in containers:
                key.append(t)                 # not described: no kind, whatever it holds
                continue
            if len(v) > MOST_ENTRIES:
                return None
            entries = _plain_key(v.values(), None)
            if entries is None or set(map(type, v)) != _STR:
                return None
            key.append((t, tuple(v), entries))
        elif t in NUMBER_KINDS or v is None:
            key.append(t)
        elif t is list or t is tuple:
            # as kind_of reads it: numbers (any length), else entries where described
            if _numbers(v):
                key.append((t, REALS))
            elif containers is not None and k not in containers:
                key.append((t, None))
            elif len(v) <= MOST_ENTRIES:
                entries = _layers_key(v) or _plain_key(v, None)
                if entries is None:
                    return None
                key.append((t, entries))
            else:
                key.append((t, None))         # too long to describe: no kind
        else:
            return None
    return tuple(key)


def _layers_key(sequence):
    """_plain_key of a list or tuple of real arrays and of lists and tuples of them (a list of
    (W, b) layers, read at every call), with no call per entry; None for any other."""
    key = []
    for entry in sequence:
        t = type(entry)
        if t is np.ndarray and entry.dtype.kind in "biuf":
            key.append(entry.shape)
        elif (t is tuple or t is list) and 0 < len(entry) <= MOST_ENTRIES:
            shapes = []
            for leaf in entry:
                if type(leaf) is not np.ndarray or leaf.dtype.kind not in "biuf":
                    return None
                shapes.append(leaf.shape)
            key.append((t, tuple(shapes)))
        else:
            return None
    return tuple(key)


_DESCRIBED = {}                         # kinds -> describes_all(kinds)


def describes_all(kinds):
    """Do `kinds` describe every argument whole (numbers, real arrays, containers of those:
    no value of unknown kind, so none complex)? Read at every call, so kept by the kinds."""
    found = _DESCRIBED.get(kinds)
    if found is None:
        found = kinds is not None and all(map(_whole, kinds))
        if len(_DESCRIBED) < 10_000:
            _DESCRIBED[kinds] = found
    return found


def _whole(kind):
    if type(kind) is Entries:
        return all(_whole(entry) for _, entry in kind.items)
    return kind is not None


def is_number(kind):
    return kind == INT or kind == REAL or type(kind) is Dim
