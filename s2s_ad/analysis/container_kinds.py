"""Which local names hold a list, a tuple or a dict wherever they are read: every binding of
the name makes one (a display, a comprehension, `list(...)`, `tuple(...)` or `dict(...)` of the
builtins, `xs + ys` of two lists or two tuples, `xs.copy()` or `copy.copy(xs)` of a list or
dict, a slice of a list or tuple), and nothing else binds it (a parameter, a loop target,
unpacking). An update `xs += ys` keeps a list a list and a tuple a tuple.

What `xs += [v]`, `xs.extend(ys)`, `xs.pop(i)` and `d[k] = v` mean depends on it: on an array
`+=` adds elementwise and an index may name a position twice, and on a dict `pop(k)` takes a
key, not a position."""
import builtins
import copy

import gast

from ..traversal import stores, walk_statements

_KINDS = {"list": builtins.list, "tuple": builtins.tuple, "dict": builtins.dict}


def container_kinds(body, params, namespace):
    """{name: 'list', 'tuple' or 'dict'} for the local names of `body` that always hold one;
    `namespace` holds the function's globals (where `list` may be rebound)."""
    local = set(params) | stores(body)

    def resolve(name):
        if name in local:
            raise LookupError(name)
        return namespace.get(name, getattr(builtins, name, None))
    bindings, others = [], set(params)
    for statement in walk_statements(body):
        if isinstance(statement, gast.FunctionDef):
            others |= {statement.name} | stores(statement.args)
            continue
        if isinstance(statement, (gast.Assign, gast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, gast.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, gast.Name):
                    bindings.append((target.id, statement.value))
                else:
                    others |= _bound_by(target)
        elif not isinstance(statement, gast.AugAssign):
            others |= {n for field in ("target", "targets", "items", "names")
                       for n in _bound_by(getattr(statement, field, None))}
    # `hs = hs + [h]` makes a list where `hs` holds one: every name starts as any kind ("?"),
    # takes the kind its bindings make and is dropped where they disagree, until none changes
    # (by induction over the run, each binding then makes the kind its name keeps)
    kinds = {name: "?" for name, _ in bindings if name not in others}
    while True:
        made = {}
        for name, value in bindings:
            if name in kinds:
                made.setdefault(name, set()).add(_made(value, resolve, kinds))
        kept = {}
        for name, results in made.items():
            results.discard("?")
            if len(results) <= 1 and None not in results:
                kept[name] = next(iter(results), "?")
        if kept == kinds:
            return {name: kind for name, kind in kinds.items() if kind != "?"}
        kinds = kept


def _made(value, resolve, kinds):
    """'list', 'tuple' or 'dict' where `value` always makes one, else None; `kinds` holds the
    kinds of names taken to hold one ("?": any of them, so far)."""
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add):
        left, right = (_made(o, resolve, kinds) for o in (value.left, value.right))
        if "?" in (left, right):
            left = right if left == "?" else left
            right = left
        return left if left == right and left in ("list", "tuple", "?") else None
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mult):
        # `[y] * 2`: a list holding `y` twice (a number times an array is no container)
        made = [_made(o, resolve, kinds) for o in (value.left, value.right)]
        literal = [o for o in (value.left, value.right) if isinstance(o, (gast.List, gast.Tuple))]
        return made[0] or made[1] if literal else None
    if isinstance(value, gast.Name):
        return kinds.get(value.id)     # the same object (`xs = _list`, a lowered comprehension)
    if isinstance(value, (gast.List, gast.ListComp)):
        return "list"
    if isinstance(value, gast.Tuple):
        return "tuple"
    if isinstance(value, (gast.Dict, gast.DictComp)):
        return "dict"
    if isinstance(value, gast.Subscript) and isinstance(value.slice, gast.Slice):
        kind = _made(value.value, resolve, kinds)   # `ys = xs[1:]`: of the same objects
        return kind if kind in ("list", "tuple", "?") else None
    owner = _shallow_copied(value, resolve)
    if owner is not None:              # `ys = xs.copy()`: a list (or dict) of the same objects
        kind = _made(owner, resolve, kinds)
        return kind if kind in ("list", "dict", "?") else None
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
            and value.func.id in _KINDS and len(value.args) <= 1 \
            and (not value.keywords or value.func.id == "dict"):
        try:
            if resolve(value.func.id) is _KINDS[value.func.id]:
                return value.func.id
        except LookupError:
            pass
    return None


def _shallow_copied(value, resolve):
    """`xs` of `xs.copy()` or `copy.copy(xs)`, else None."""
    if not isinstance(value, gast.Call) or value.keywords:
        return None
    func = value.func
    if isinstance(func, gast.Attribute) and func.attr == "copy" and not value.args:
        return func.value
    if len(value.args) != 1:
        return None
    try:
        if isinstance(func, gast.Name):
            called = resolve(func.id)
        elif isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
            called = getattr(resolve(func.value.id), func.attr, None)
        else:
            return None
    except LookupError:
        return None
    return value.args[0] if called is copy.copy else None


def _bound_by(node):
    """The names a target (or a list of targets, `with` items, imports) binds."""
    if node is None:
        return set()
    nodes = node if isinstance(node, list) else [node]
    found = set()
    for item in nodes:
        if isinstance(item, gast.alias):
            found.add((item.asname or item.name).split(".")[0])
        elif isinstance(item, gast.AST):
            found |= stores(item)
    return found
