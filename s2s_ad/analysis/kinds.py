"""What a value passed to a derivative is, as far as the shape facts care (its *kind*): a
number, an array of a rank, a list of numbers, ... The kinds of the arguments are part of the
derivative cache's key: a call with other kinds gets other code."""
from dataclasses import dataclass

import numpy as np

INT, REAL, RANGE, REALS = "int", "real", "range", "reals"


@dataclass(frozen=True)
class Array:
    """A NumPy array of real (or integer, or boolean) numbers with `ndim` dimensions; within
    one function, `origin` names the argument whose shape it has (None: not known)."""
    ndim: int
    origin: str = None


_INT_TYPES = frozenset({int, np.int8, np.int16, np.int32, np.int64,
                        np.uint8, np.uint16, np.uint32, np.uint64})
_REAL_TYPES = frozenset({float, bool, np.float16, np.float32, np.float64, np.bool_}) | _INT_TYPES
_NUMBER_KINDS = {**{t: REAL for t in _REAL_TYPES}, **{t: INT for t in _INT_TYPES}}
_LONGEST_CHECKED = 100_000              # a longer list is not read entry by entry at each call


def kind_of(value):
    """The kind of `value`; None when it is none of the kinds the facts know (a dict, a
    complex number, an object, ...)."""
    t = type(value)
    number = _NUMBER_KINDS.get(t)
    if number is not None:
        return number
    if t is np.ndarray:
        return Array(value.ndim) if value.dtype.kind in "biuf" else None
    if (t is list or t is tuple) and len(value) <= _LONGEST_CHECKED \
            and set(map(type, value)) <= _REAL_TYPES:
        return REALS
    return None


def kinds_of(values):
    get = _NUMBER_KINDS.get
    return tuple([get(type(v)) or kind_of(v) for v in values])


def is_number(kind):
    return kind == INT or kind == REAL
