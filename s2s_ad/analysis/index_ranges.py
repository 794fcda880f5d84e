"""Indices whose positions never repeat. `x[np.arange(n), y]` picks one entry of each row:
the adjoint of such a read can store into zeros where, in general, it must add with
np.add.at (a position picked twice gets both contributions), which costs several times more.

A name counts as a range when every binding of it is `np.arange(n)` (one argument: the
values 0 .. n-1, each once) and the function reads it only as an index, so nothing can change
its entries or hold it under another name."""
import gast
import numpy as np

from ..traversal import walk, walk_statements
from .dims import NUMBER, broadcast
from .primitives import classify


def index_ranges(parsed, body, params, local_names):
    """The names of `body` that always hold `np.arange(n)` and are read only as indices."""
    ranges = {}                                  # name -> ids of its `= np.arange(n)` targets
    for statement in walk_statements(body):
        if isinstance(statement, gast.Assign) and len(statement.targets) == 1 and \
                isinstance(statement.targets[0], gast.Name) and \
                _is_range(statement.value, parsed, local_names):
            ranges.setdefault(statement.targets[0].id, set()).add(id(statement.targets[0]))
    index_reads, kept = set(), set(ranges) - set(params)
    nodes = [n for statement in body for n in walk(statement)]
    for node in nodes:
        if isinstance(node, gast.Subscript):
            parts = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            index_reads.update(id(p) for p in parts if isinstance(p, gast.Name))
    for node in nodes:
        if isinstance(node, gast.Name) and node.id in kept and (
                id(node) not in index_reads if isinstance(node.ctx, gast.Load)
                else id(node) not in ranges[node.id]):
            kept.discard(node.id)        # read otherwise, or bound to something else too
    return kept


def _is_range(value, parsed, local_names):
    return isinstance(value, gast.Call) and len(value.args) == 1 and not value.keywords and \
        classify(value, parsed, local_names).key is np.arange


def distinct_positions(ranges, token, index):
    """Do the positions of `index` (a tuple of names and int literals) never repeat? They do
    not where one part is a range and every part broadcasts to that range's shape (so the
    range's entries, each once, tell the positions apart); `token(name)` is a name's shape."""
    if not isinstance(index, gast.Tuple):
        return False
    tokens = []
    for part in index.elts:
        if isinstance(part, gast.Constant) and type(part.value) is int:
            tokens.append(NUMBER)
        elif isinstance(part, gast.Name):
            tokens.append(token(part.id))
        else:
            return False                # a slice, None, ...: not followed
    if None in tokens:
        return False
    shape = broadcast(tokens)
    return any(isinstance(part, gast.Name) and part.id in ranges and token(part.id) == shape
               and len(shape) == 1 for part in index.elts)
