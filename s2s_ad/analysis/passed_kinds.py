"""The kinds (analysis.kinds) of the arguments a call of a user function passes, read from the
caller's shape facts when the caller is made, in the form the callee's run-time dispatch reads
them (`kinds_of`, calls.CalleeSplit): the callee's code for them is then made with the caller's,
not first for no kinds and again at the first call.

The facts name size classes by the caller's arguments; the run time names them afresh for the
callee's, in the order the axes come, so the classes are renamed in that order. Where the facts
leave an argument's kind open (an unknown kind, an axis known only not to be 1), there is no
answer: the run time reads the kinds as before.
"""
from .dims import OTHER_THAN_1
from .kinds import INT, RANGE, REAL, REALS, Array, Dim, Entries, MOST_ENTRIES, array_kind, \
    class_name, entries_kind

OPEN = "open"                           # the facts do not say what the run time would read
NO_KIND = "no kind"                     # a value the run time gives no kind (None, a string)


def passed_kinds(kinds, described):
    """The kinds `kinds_of` gives at run time for arguments of the facts' `kinds` (one per
    parameter, in order; NO_KIND for a value of none), where the containers at the positions
    `described` have their entries described; None where the facts do not pin them down."""
    classes = {}
    found = tuple(_as_read(kind, classes, k in described) for k, kind in enumerate(kinds))
    return None if OPEN in found else found


def _as_read(kind, classes, entries):
    if kind == INT or kind == REAL or kind == REALS:
        return kind
    if type(kind) is Dim:
        return INT
    if kind == RANGE or kind == NO_KIND:
        return None                     # a range object has no kind either
    if type(kind) is Array:
        return _array(kind, classes)
    if type(kind) is Entries:
        return _container(kind, classes, entries)
    return OPEN


def _array(kind, classes):
    if kind.dims is None or any(d is None or d == OTHER_THAN_1 for d in kind.dims):
        return OPEN
    return array_kind(tuple(1 if d == 1 else classes.setdefault(d, class_name(len(classes)))
                            for d in kind.dims))


def _container(kind, classes, entries):
    numbers = all(entry in (INT, REAL) or type(entry) is Dim for _, entry in kind.items)
    if kind.of is not dict and numbers:
        return REALS                    # read as a sequence of numbers, entries or not
    if not entries or len(kind.items) > MOST_ENTRIES or \
            kind.of is dict and not all(type(key) is str for key, _ in kind.items):
        return None
    items = tuple((key, _as_read(entry, classes, True)) for key, entry in kind.items)
    if any(entry is OPEN for _, entry in items):
        return OPEN
    if all(entry is None for _, entry in items):
        return None
    return entries_kind(kind.of, items)


def surely_read(kind):
    """Is an argument of the facts' `kind` read by kinds_of as passed_kinds says, whatever
    value of that kind it is? An array of one axis or more, an axis's size and containers of
    those are; a number (an int, a float and a bool are each read as they are, where the
    facts may say one of another), an array of no axes (a NumPy scalar is read as a number)
    and an unknown kind are not."""
    if type(kind) is Dim or kind == NO_KIND:
        return True
    if type(kind) is Array:
        return kind.ndim >= 1
    if type(kind) is Entries:
        return all(surely_read(entry) for _, entry in kind.items)
    return False
