"""GuardKeyLoops: `for k in d:` where `d` may be a dict and `k` carries a derivative.

A loop over a dict walks its keys, which carry no derivative; over a list, a tuple or an array
it walks entries, which do. Where transform time knows `d` holds a dict, the loop already walks
`d.keys()` (passes/lower_for_loops.py). Where it cannot know (a parameter of a helper, a value a
call returned) and the loop's target is active, the derivative is written for entries, so it
checks `d` when it runs (`check_not_mapping(d, 'file:line:col')`) and refuses a dict at the
user's line instead of reading its keys as entries."""
import gast

from .. import build
from ..analysis.activity import target_names
from ..analysis.kinds import REALS, Array, Entries
from ..traversal import rewrite_blocks, walk_statements


# builtins whose result walks their one argument as `for k in d` does
KEY_WALKERS = ("sorted", "list", "tuple", "reversed", "iter", "set", "frozenset")


def guard_key_loops(parsed, body, active, sequences, check_name):
    """`body` with a check before each loop over a name not known to hold a sequence
    (`sequences`) whose target is in `active`."""
    checks = {}
    walks = {}                            # `_sorted = sorted(d)` (normal form): _sorted -> d
    for statement in walk_statements(body):
        if isinstance(statement, gast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], gast.Name) \
                and isinstance(statement.value, gast.Call) \
                and isinstance(statement.value.func, gast.Name) \
                and statement.value.func.id in KEY_WALKERS and len(statement.value.args) == 1 \
                and isinstance(statement.value.args[0], gast.Name):
            walks[statement.targets[0].id] = statement.value.args[0]
    for statement in walk_statements(body):
        if not (isinstance(statement, gast.For) and isinstance(statement.iter, gast.Name)
                and set(target_names(statement.target)) & active):
            continue
        walked = walks.get(statement.iter.id, statement.iter)   # sorted(d) walks d's keys too
        if walked.id in sequences:
            continue
        line, col = parsed.location(walked)
        where = f"{parsed.filename}:{line}:{col + 1}"
        checks[id(statement)] = [gast.copy_location(build.quote(
            f"{check_name}({walked.id}, {where!r})")[0], statement)]
    return rewrite_blocks(body, lambda s: checks.get(id(s), []) + [s]) if checks else body


def known_sequences(params, kinds, containers):
    """The names known to hold a list, a tuple or an array: locals that always hold a list or
    a tuple (analysis.container_kinds), parameters by their kinds at the first call."""
    known = {name for name, kind in containers.items() if kind in ("list", "tuple")}
    for name, kind in zip(params, kinds or ()):
        if kind == REALS or isinstance(kind, Array) or \
                isinstance(kind, Entries) and kind.of is not dict:
            known.add(name)
    return known
