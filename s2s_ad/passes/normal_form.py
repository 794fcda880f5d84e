"""ToNormalForm: A-normal form, where every operand of an operation is a name or a constant."""
from collections import Counter

import gast

from .. import build
from ..build import clone
from ..traversal import name_nodes, walk, walk_statements
from .lower_for_loops import rebound_in
from .normal_form_expressions import ExpressionsToAtoms, is_atom


def _changed_in_place(body):
    """Names a method is called on, or whose entries are assigned (`xs.append(v)`, `d[k] = v`):
    a literal bound to them may not keep its entries."""
    found = set()
    for node in walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and isinstance(node.func.value, gast.Name):
            found.add(node.func.value.id)
        elif isinstance(node, gast.Subscript) and not isinstance(node.ctx, gast.Load) \
                and isinstance(node.value, gast.Name):
            found.add(node.value.id)
    return found


def _load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def _literals_bound_once(body, kinds):
    """{name: the literal} for names bound exactly once, to a literal of `kinds` never changed
    in place."""
    candidates = [node for node in walk_statements(body)
                  if isinstance(node, gast.Assign) and len(node.targets) == 1
                  and isinstance(node.targets[0], gast.Name) and isinstance(node.value, kinds)]
    if not candidates:
        return {}                        # no such literal: the body's names are not counted
    bindings = Counter(n.id for n in name_nodes(body) if isinstance(n.ctx, gast.Store))
    changed = _changed_in_place(body)
    return {node.targets[0].id: node.value for node in candidates
            if bindings.get(node.targets[0].id) == 1 and node.targets[0].id not in changed}


def tuple_lengths(body):
    """{name: n} for names bound once, to a tuple or list literal of n elements kept as is."""
    return {name: len(value.elts)
            for name, value in _literals_bound_once(body, (gast.Tuple, gast.List)).items()
            if not any(isinstance(e, gast.Starred) for e in value.elts)}


def _dict_keys(body):
    """{name: keys} for names bound once, to a dict literal of constant string keys kept as is."""
    return {name: [k.value for k in value.keys]
            for name, value in _literals_bound_once(body, gast.Dict).items()
            if all(isinstance(k, gast.Constant) and isinstance(k.value, str) for k in value.keys)}


def length_check(name, length):
    """Python's own check of an unpacking `a, b = t`, which reading `t[0]` and `t[1]` skips:
    a `t` of another length raises ValueError, as in the function as written."""
    return build.quote(f"if len({name}) != {length}:\n    raise ValueError("
                       f"f'expected {length} values to unpack, got {{len({name})}}')")[0]


class ToNormalForm(ExpressionsToAtoms):
    """Flatten nested expressions into one operation per assignment: the statements; the
    expressions are ExpressionsToAtoms's."""

    def __init__(self, parsed, namer, is_static, conversions=None):
        self.parsed = parsed
        # where NumPy's conversions of in-place writes are spelled out (in_place_conversions)
        self.conversions = conversions
        self.namer = namer
        self.is_static = is_static      # is this expression a module-level constant chain?
        self.out = None
        self.tuple_lengths = {}         # name -> length, for a name bound once to a tuple literal
        self.dict_keys = {}             # name -> keys, for a name bound once to a dict literal

    def run(self, body):
        """The whole function body in normal form."""
        self.tuple_lengths = tuple_lengths(body)
        self.dict_keys = _dict_keys(body)
        if self.conversions is not None:
            self.conversions.prepare(body)
        return self.block(body)

    # statements ---------------------------------------------------------------------------
    def block(self, statements):
        saved, self.out = self.out, []
        for statement in statements:
            self.statement(statement)
        result, self.out = self.out, saved
        return result

    def emit(self, node, like):
        self.out.append(gast.copy_location(node, like) if hasattr(like, "lineno") else node)

    def statement(self, node):
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            raise self.parsed.error(node, f"`{type(node).__name__}` statements are not supported")
        method(node)

    def visit_Assign(self, node):
        if len(node.targets) > 1:
            value = self.atom(node.value)
            for target in node.targets:
                self.assign(target, value, node)
            return
        self.assign(node.targets[0], node.value, node)

    def assign(self, target, value, node):
        if isinstance(target, gast.Name):
            value = self.simple(value)
            if not is_atom(value) and any(isinstance(n, gast.Name) and n.id == target.id
                                          for n in walk(value)):
                # `y = y * x` keeps the old y readable by the adjoint: `_mul = y * x; y = _mul`
                value = self.atom(value, force_temp=True)
            self.emit(gast.Assign(targets=[target], value=value, type_comment=None), node)
        elif isinstance(target, gast.Subscript):
            container = self.atom(target.value)
            if not isinstance(container, gast.Name):
                raise self.parsed.error(target, "cannot assign into this expression",
                                        hint="assign into a named array: `x[i] = v`")
            index = self.index(target.slice)
            value = self.stored(self.atom(value), container)
            store = gast.Subscript(value=container, slice=index, ctx=gast.Store())
            self.emit(gast.Assign(targets=[store], value=value, type_comment=None), node)
        elif isinstance(target, (gast.Tuple, gast.List)):
            if any(isinstance(e, gast.Starred) for e in target.elts):
                self.assign_starred(target.elts, value, node)
                return
            if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(target.elts):
                # evaluate every right-hand side before any target changes (`a, b = b, a`)
                values = [self.atom(e, force_temp=True) for e in value.elts]
                for element, element_value in zip(target.elts, values):
                    self.assign(element, element_value, node)
                return
            whole = self.atom(value, force_temp=True)
            self.parsed.unpacked.add(whole.id)
            if self.tuple_lengths.get(getattr(value, "id", None)) != len(target.elts):
                self.emit(length_check(whole.id, len(target.elts)), node)
            for position, element in enumerate(target.elts):
                item = gast.Subscript(value=clone(whole),
                                      slice=gast.Constant(value=position, kind=None), ctx=gast.Load())
                self.assign(element, item, node)
        elif isinstance(target, gast.Attribute):
            # the object outlives the call: a later read of the attribute (here, in the
            # caller, in the next call of a method) would be read as a constant
            owner = self.parsed.describe_expression(target.value)
            raise self.parsed.error(
                target, f"cannot assign to attribute `{owner}.{target.attr}`: the object keeps "
                f"the value after the call, and a later read of it (here, in the caller or in "
                f"the next call) would not carry its derivative",
                hint=f"keep the value in a local name and return it (`return out, "
                     f"{target.attr}`), passing it back in where it is read; state kept across "
                     f"calls goes in a dict or list that is passed in and returned")
        else:
            raise self.parsed.error(target, f"cannot assign to {type(target).__name__.lower()}",
                                    hint="assign to a local name or an element of a local array")

    def assign_starred(self, targets, value, node):
        """`first, *rest, last = v`: `first = v[0]; rest = list(v[1:-1]); last = v[-1]`."""
        star = next(i for i, e in enumerate(targets) if isinstance(e, gast.Starred))
        after = len(targets) - star - 1
        whole = self.atom(value, force_temp=True)
        self.parsed.unpacked.add(whole.id)

        def item(index):
            return gast.Subscript(value=clone(whole), slice=index, ctx=gast.Load())

        def position(i):
            return gast.Constant(value=i, kind=None)
        for i, element in enumerate(targets[:star]):
            self.assign(element, item(position(i)), node)
        rest = gast.Slice(lower=position(star), upper=position(-after) if after else None,
                          step=None)
        self.assign(targets[star].value, gast.Call(func=build.name("list"), args=[item(rest)],
                                                   keywords=[]), node)
        for j, element in enumerate(targets[star + 1:]):
            self.assign(element, item(position(j - after)), node)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.visit_Assign(gast.copy_location(
                gast.Assign(targets=[node.target], value=node.value, type_comment=None), node))

    def visit_AugAssign(self, node):
        target = node.target
        if isinstance(target, gast.Name):
            value = gast.copy_location(gast.BinOp(left=_load(target.id), op=node.op,
                                                  right=node.value), node)
            helper = self.conversions and self.conversions.updated(target.id)
            if helper:         # NumPy writes into an array z, in its dtype and shape
                value = self._call(helper, [_load(target.id), value])
            self.assign(target, value, node)
        elif isinstance(target, gast.Subscript):
            container = self.atom(target.value)
            index = self.index(target.slice)
            read = gast.Subscript(value=clone(container), slice=clone(index), ctx=gast.Load())
            value = gast.copy_location(gast.BinOp(left=read, op=node.op, right=node.value), node)
            helper = isinstance(container, gast.Name) and self.conversions and \
                self.conversions.item_updated(container.id)
            if helper:         # `k[:] op= v` writes into the view k[:], in k's dtype
                read = self.atom(clone(read))
                value = self._call(helper, [read, gast.copy_location(gast.BinOp(
                    left=clone(read), op=node.op, right=node.value), node)])
            value = self.stored(self.atom(value), container)
            store = gast.Subscript(value=container, slice=index, ctx=gast.Store())
            self.emit(gast.Assign(targets=[store], value=value, type_comment=None), node)
        elif isinstance(target, gast.Attribute):
            # `r.a += v` writes into the array the field holds, maybe held elsewhere too
            new = build.unparse(gast.BinOp(left=target, op=node.op, right=node.value))
            raise self.parsed.error(target, f"cannot update the field `{build.unparse(target)}` "
                                    f"in place", hint=f"for a new array, write `a = {new}` and "
                                                      f"read `a` from there on")
        else:
            raise self.parsed.error(target, "cannot update this expression in place",
                                    hint="update a local name or an element of a local array")

    def stored(self, value, container):
        """`value` as a store into `container` converts it, where that may change it."""
        helper = isinstance(container, gast.Name) and not isinstance(value, gast.Constant) \
            and self.conversions and self.conversions.stored(container.id)
        if not helper:
            return value
        # located at the value, as the user's line: a message about a read names it
        return self.atom(gast.copy_location(self._call(helper, [value, clone(container)]), value))

    def _call(self, helper, args):
        return gast.Call(func=build.name(helper), args=args, keywords=[])

    def visit_Return(self, node):
        value = node.value
        if value is None:
            value = gast.Constant(value=None, kind=None)
        elif isinstance(value, gast.Tuple):
            value = gast.Tuple(elts=[self.atom(e) for e in value.elts], ctx=gast.Load())
        else:
            value = self.atom(value)
        self.emit(gast.Return(value=value), node)

    def visit_Expr(self, node):
        if isinstance(node.value, gast.Constant):      # docstrings and bare constants
            return
        value = node.value
        if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
                and value.func.attr == "pop" and len(value.args) <= 1:
            # keep what a bare `xs.pop()` or `xs.pop(i)` removes: its adjoint puts it back
            self.atom(value, force_temp=True)
            return
        self.emit(gast.Expr(value=self.simple(node.value)), node)

    def visit_If(self, node):
        self.emit(gast.If(test=node.test, body=self.block(node.body),
                          orelse=self.block(node.orelse)), node)

    def visit_While(self, node):
        self.emit(gast.While(test=node.test, body=self.block(node.body),
                             orelse=self.block(node.orelse)), node)

    def visit_For(self, node):
        iterable = node.iter
        if isinstance(iterable, gast.Call) and isinstance(iterable.func, gast.Name) \
                and iterable.func.id == "range":
            iterable = self.simple(iterable)
        else:
            # Python evaluates the sequence once, before the loop: hold it in a name of its own
            # (a body that rebinds `x` in `for v in x` must not change what the loop walks)
            rebound = isinstance(iterable, gast.Name) and iterable.id in rebound_in(node.body)
            iterable = self.atom(iterable, force_temp=rebound)
        self.emit(gast.For(target=node.target, iter=iterable,
                           body=self.block(node.body), orelse=self.block(node.orelse),
                           type_comment=None), node)

    def visit_Assert(self, node):
        self.emit(node, node)

    visit_Raise = visit_Assert         # runs as written; it carries no derivative

    def visit_Pass(self, node):
        pass

    def visit_Break(self, node):
        self.emit(node, node)

    visit_Continue = visit_Break
