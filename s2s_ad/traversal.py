"""Fast traversal of gast trees: every node, and the names a tree reads or writes.

`ast.walk` runs three generators per node; on the 200,000-node trees a long function
produces, the passes spent a third of their time there. These walk each node's fields
directly (the fields of a class are looked up once).
"""
from collections import deque

import gast

_AST = gast.AST
_children = {}                           # class -> the fields that may hold a node ('Load': none)
_code_fields = {}                        # class -> those fields, less `ctx`, `op` and `ops`
_operands = {}                           # class -> the fields that may hold expressions
_DEFINITIONS = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)
# code nested in a function that runs later than the statement holding it, in a scope of its own
DEFERRED = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.GeneratorExp,
            gast.ListComp, gast.SetComp, gast.DictComp)
# names through which code reads a function's locals without naming them
DYNAMIC_LOCALS = frozenset({"locals", "vars", "eval", "exec"})
# fields that hold a plain value or an operator/context node, never code
_PLAIN = {"id", "attr", "arg", "kind", "type_comment", "conversion", "level", "module",
          "is_async", "simple"}
_NOT_CODE = _PLAIN | {"ctx", "op", "ops"}


def _children_of(cls):
    # fields that only ever hold a plain value (a name's `id`, a constant's `value`) are not
    # read at all: on a long function's tree that is a third of walk's time
    fields = _children[cls] = tuple(
        f for f in cls._fields if f not in _PLAIN and not (cls is gast.Constant and f == "value"))
    return fields


def _code_fields_of(cls):
    # `ctx`, `op` and `ops` hold nodes that are never code (Load, Add, Eq)
    fields = _code_fields[cls] = tuple(f for f in _children.get(cls) or _children_of(cls)
                                       if f not in ("ctx", "op", "ops"))
    return fields


def _operands_of(cls):
    fields = _operands[cls] = tuple(
        f for f in cls._fields if f not in _NOT_CODE and not (cls is gast.Constant and f == "value"))
    return fields


def walk(node):
    """Every node in `node` (itself included), breadth first like `ast.walk`."""
    todo = deque([node])
    popleft, append, extend, children = todo.popleft, todo.append, todo.extend, _children.get
    while todo:
        node = popleft()
        if not isinstance(node, _AST):
            continue                     # a None in a list field (`kw_defaults`, dict keys)
        cls = node.__class__
        fields = children(cls)
        for field in _children_of(cls) if fields is None else fields:
            value = getattr(node, field, None)
            if value.__class__ is list:
                extend(value)
            elif value is not None:      # a str (a def's name) is dropped when it comes out
                append(value)
        yield node


def child_nodes(node):
    """The nodes right under `node`, in field order: `ast.iter_child_nodes` as a list, without
    its generators (the fields of a class that may hold a node are looked up once)."""
    cls = node.__class__
    fields = _children.get(cls)
    found = []
    for field in _children_of(cls) if fields is None else fields:
        value = getattr(node, field, None)
        if value.__class__ is list:
            found += [item for item in value if isinstance(item, _AST)]
        elif isinstance(value, _AST):
            found.append(value)
    return found


def nodes_in(node, classes, prune=()):
    """The nodes in `node` (a tree or a list of trees) whose class is one of `classes` (exactly),
    in no set order: for counts and sets of names, which need no order, about twice as fast as
    filtering `walk`. Every field that may hold code is entered (unlike nodes_of, an exception
    handler's type too); nodes of a class in `prune` are not entered."""
    classes, prune = frozenset(classes), frozenset(prune)
    found = []
    todo = list(node) if isinstance(node, list) else [node]
    pop, push, extend, fields_of = todo.pop, todo.append, todo.extend, _code_fields.get
    while todo:
        node = pop()
        cls = node.__class__
        if cls in classes:
            found.append(node)
        elif not isinstance(node, _AST):
            continue                     # a None in a list field, a def's name
        if cls in prune:
            continue
        fields = fields_of(cls)
        for field in _code_fields_of(cls) if fields is None else fields:
            value = getattr(node, field, None)
            if value.__class__ is list:
                extend(value)
            elif value is not None:
                push(value)
    return found


def rewrite(node, rewrites):
    """`node` with each statement or expression whose class is in `rewrites` replaced, children
    first, by what `rewrites[class](node)` returns; the tree is changed in place."""
    cls = node.__class__
    fields = _operands.get(cls)
    for field in _operands_of(cls) if fields is None else fields:
        value = getattr(node, field, None)
        if value.__class__ is list:
            for k, item in enumerate(value):
                if isinstance(item, _AST):
                    value[k] = rewrite(item, rewrites)
        elif isinstance(value, _AST):
            new = rewrite(value, rewrites)
            if new is not value:
                setattr(node, field, new)
    rule = rewrites.get(cls)
    return node if rule is None else rule(node)


def preorder(node, prune=()):
    """The statements and expressions in `node` (a tree or a list of trees), each before its
    children, children in field order: the order a reader meets them in the source. Nodes of
    a class in `prune` are yielded but not entered."""
    todo = node[::-1] if isinstance(node, list) else [node]
    while todo:
        node = todo.pop()
        yield node
        cls = node.__class__
        if cls in prune:
            continue
        fields = _operands.get(cls)
        children = []
        for field in _operands_of(cls) if fields is None else fields:
            value = getattr(node, field, None)
            if value.__class__ is list:
                children += [item for item in value if isinstance(item, _AST)]
            elif isinstance(value, _AST):
                children.append(value)
        todo += children[::-1]


def walk_statements(body):
    """Every statement in `body`, nested blocks included, in source order."""
    todo = body[::-1]
    while todo:
        statement = todo.pop()
        yield statement
        for block in ("orelse", "body"):        # pushed in reverse: `body` comes out first
            inner = getattr(statement, block, None)
            if inner:
                todo += inner[::-1]


def rewrite_blocks(statements, replace):
    """`statements` with each statement, at any depth, replaced by the list of statements
    `replace(statement)` returns, the statement's own blocks rewritten first. The bodies of
    nested functions are left alone; a block left empty gets `pass`."""
    out = []
    for statement in statements:
        if not isinstance(statement, gast.FunctionDef):
            for field in ("body", "orelse"):
                block = getattr(statement, field, None)
                if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                    setattr(statement, field, rewrite_blocks(block, replace) or [gast.Pass()])
        out += replace(statement)
    return out


def rewrite_each_block(statements, rewrite):
    """`rewrite(block)` of `statements`, each block inside them (nested functions' bodies
    too) rewritten the same way first: a pass over the statement lists of generated code."""
    for statement in statements:
        for field in ("body", "orelse"):
            block = getattr(statement, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                setattr(statement, field, rewrite_each_block(block, rewrite))
    return rewrite(statements)


def _find(node, classes, found):
    cls = node.__class__
    if cls in classes:
        found.append(node)
    fields = _operands.get(cls)
    for field in _operands_of(cls) if fields is None else fields:
        value = getattr(node, field, None)
        if value.__class__ is list:
            for item in value:
                if isinstance(item, _AST):
                    _find(item, classes, found)
        elif isinstance(value, _AST):
            _find(value, classes, found)


def nodes_of(node, classes):
    """The statements and expressions in `node` (a tree or a list of trees) whose class is
    one of `classes` (exactly: no subclasses), depth first."""
    found = []
    for part in node if isinstance(node, list) else [node]:
        _find(part, frozenset(classes), found)
    return found


def name_nodes(node):
    """The Name nodes in `node` (a tree or a list of trees)."""
    return nodes_of(node, [gast.Name])


def loads(node):
    """Names read by `node` (a tree or a list of trees)."""
    return {n.id for n in name_nodes(node) if n.ctx.__class__ is gast.Load}


def stores(node):
    """Names written by `node` (a tree or a list of trees)."""
    return {n.id for n in name_nodes(node) if n.ctx.__class__ is gast.Store}


def binding_counts(node):
    """{name: how many times `node` (a tree or a list of trees) binds or deletes it}."""
    counts = {}
    for n in name_nodes(node):
        if n.ctx.__class__ is not gast.Load:
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def identifiers(node):
    """Every identifier in `node`: its Names whatever their ctx, and the functions and classes
    it defines."""
    return {n.id if n.__class__ is gast.Name else n.name
            for n in nodes_of(node, (gast.Name,) + _DEFINITIONS)}


class StatementTransformer(gast.NodeTransformer):
    """A NodeTransformer for passes that rewrite statements: it enters blocks of statements
    (`body`, `orelse`) but never expressions, which on long functions are most of the tree."""

    def generic_visit(self, node):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                new = []
                for statement in block:
                    result = self.visit(statement)
                    new += result if isinstance(result, list) else [] if result is None else [result]
                setattr(node, field, new)
        return node


def parameter_names(function):
    """Every parameter name of the gast FunctionDef or Lambda `function`: positional-only,
    plain, `*args`, keyword-only, `**kwargs`."""
    args = function.args
    named = args.posonlyargs + args.args + args.kwonlyargs + \
        [a for a in (args.vararg, args.kwarg) if a is not None]
    return {a.id for a in named}


def root_name(node):
    """The Name `G` of `G[0]`, `G.buf[1:]`; None where the object is not reached from a name."""
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node if isinstance(node, gast.Name) else None
