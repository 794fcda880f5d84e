"""ToNormalForm: A-normal form, where every operand of an operation is a name or a constant."""
from collections import Counter

import gast

from ..build import clone
from ..frontend.source_text import Temporary, span_of
from ..traversal import name_nodes, walk, walk_statements
from .lower_for_loops import rebound_in

_OP_NAMES = {
    gast.Add: "add", gast.Sub: "sub", gast.Mult: "mul", gast.Div: "div", gast.Pow: "pow",
    gast.MatMult: "matmul", gast.Mod: "mod", gast.FloorDiv: "floordiv",
    gast.USub: "neg", gast.UAdd: "pos", gast.Not: "not_", gast.Invert: "invert",
}


def is_atom(node):
    return isinstance(node, (gast.Name, gast.Constant))


def _temp_base(expr):
    """A readable name for the temporary holding `expr`'s value."""
    if isinstance(expr, (gast.BinOp, gast.UnaryOp)):
        return "_" + _OP_NAMES.get(type(expr.op), "t")
    if isinstance(expr, gast.Call):
        func = expr.func
        name = func.attr if isinstance(func, gast.Attribute) else getattr(func, "id", "call")
        return "_" + name.strip("_")
    if isinstance(expr, gast.Subscript):
        return "_item"
    if isinstance(expr, gast.Attribute):
        return "_" + expr.attr.strip("_")
    if isinstance(expr, gast.Compare):
        return "_cmp"
    if isinstance(expr, gast.Name):
        return "_seq"
    return "_t"


def _tuple_lengths(body):
    """{name: n} for names bound exactly once, to a tuple or list literal of n elements."""
    bindings = Counter(n.id for n in name_nodes(body) if isinstance(n.ctx, gast.Store))
    lengths = {}
    for node in walk_statements(body):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name) and bindings.get(node.targets[0].id) == 1 \
                and isinstance(node.value, (gast.Tuple, gast.List)) \
                and not any(isinstance(e, gast.Starred) for e in node.value.elts):
            lengths[node.targets[0].id] = len(node.value.elts)
    return lengths


class ToNormalForm:
    """Flatten nested expressions into one operation per assignment."""

    def __init__(self, parsed, namer, is_static):
        self.parsed = parsed
        self.namer = namer
        self.is_static = is_static      # is this expression a module-level constant chain?
        self.out = None
        self.tuple_lengths = {}         # name -> length, for a name bound once to a tuple literal

    def run(self, body):
        """The whole function body in normal form."""
        self.tuple_lengths = _tuple_lengths(body)
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
            value = self.atom(value)
            store = gast.Subscript(value=container, slice=index, ctx=gast.Store())
            self.emit(gast.Assign(targets=[store], value=value, type_comment=None), node)
        elif isinstance(target, (gast.Tuple, gast.List)):
            if any(isinstance(e, gast.Starred) for e in target.elts):
                raise self.parsed.error(target, "starred unpacking is not supported",
                                        hint="unpack each element by index")
            if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(target.elts):
                # evaluate every right-hand side before any target changes (`a, b = b, a`)
                values = [self.atom(e, force_temp=True) for e in value.elts]
                for element, element_value in zip(target.elts, values):
                    self.assign(element, element_value, node)
                return
            whole = self.atom(value, force_temp=True)
            for position, element in enumerate(target.elts):
                item = gast.Subscript(value=clone(whole),
                                      slice=gast.Constant(value=position, kind=None), ctx=gast.Load())
                self.assign(element, item, node)
        else:
            raise self.parsed.error(target, f"cannot assign to {type(target).__name__.lower()}",
                                    hint="assign to a local name or an element of a local array")

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.visit_Assign(gast.copy_location(
                gast.Assign(targets=[node.target], value=node.value, type_comment=None), node))

    def visit_AugAssign(self, node):
        target = node.target
        if isinstance(target, gast.Name):
            load = gast.Name(id=target.id, ctx=gast.Load(), annotation=None, type_comment=None)
            value = gast.BinOp(left=load, op=node.op, right=node.value)
            self.assign(target, gast.copy_location(value, node), node)
        elif isinstance(target, gast.Subscript):
            container = self.atom(target.value)
            index = self.index(target.slice)
            read = gast.Subscript(value=clone(container), slice=clone(index), ctx=gast.Load())
            value = self.atom(gast.copy_location(gast.BinOp(left=read, op=node.op, right=node.value), node))
            store = gast.Subscript(value=container, slice=index, ctx=gast.Store())
            self.emit(gast.Assign(targets=[store], value=value, type_comment=None), node)
        else:
            raise self.parsed.error(target, "cannot update this expression in place",
                                    hint="update a local name or an element of a local array")

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
                and value.func.attr == "pop" and not value.args:
            # keep what a bare `xs.pop()` removes: its adjoint puts it back
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

    def visit_Pass(self, node):
        pass

    def visit_Break(self, node):
        self.emit(node, node)

    visit_Continue = visit_Break

    # expressions --------------------------------------------------------------------------
    def atom(self, node, force_temp=False):
        """A name or constant holding `node`'s value, emitting statements as needed."""
        if isinstance(node, gast.Constant) or (is_atom(node) and not force_temp):
            return node
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) \
                and isinstance(node.operand, gast.Constant) and not force_temp:
            return gast.Constant(value=-node.operand.value, kind=None)
        if self.is_static(node) and not force_temp:
            return node
        value = self.simple(node)
        name = self.temporary(_temp_base(value), node, value)
        target = gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)
        self.emit(gast.Assign(targets=[target], value=value, type_comment=None), node)
        return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)

    def temporary(self, base, written, value):
        """A fresh name for a temporary holding `value`, computed from the user's expression
        `written`; the source map remembers which, for messages that must name it."""
        name = self.namer.fresh(base)
        self.parsed.temporaries[name] = Temporary(span_of(written), clone(value))
        return name

    def simple(self, node):
        """`node` as a single operation on atoms."""
        if is_atom(node) or self.is_static(node):
            return node
        method = getattr(self, "simple_" + type(node).__name__, None)
        if method is None:
            return node         # opaque: comprehensions, lambdas, f-strings, ...
        return gast.copy_location(method(node), node)

    def simple_BinOp(self, node):
        return gast.BinOp(left=self.atom(node.left), op=node.op, right=self.atom(node.right))

    def simple_UnaryOp(self, node):
        if isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant):
            return gast.Constant(value=-node.operand.value, kind=None)
        return gast.UnaryOp(op=node.op, operand=self.atom(node.operand))

    def simple_Call(self, node):
        func = node.func
        if isinstance(func, gast.Attribute) and not self.is_static(func):
            func = gast.Attribute(value=self.atom(func.value), attr=func.attr, ctx=gast.Load())
        elif not isinstance(func, gast.Name) and not self.is_static(func):
            func = self.atom(func)
        args = []
        for arg in node.args:
            if not isinstance(arg, gast.Starred):
                args.append(self.atom(arg))
            elif isinstance(arg.value, (gast.Tuple, gast.List)) and not any(
                    isinstance(e, gast.Starred) for e in arg.value.elts):
                args += [self.atom(e) for e in arg.value.elts]          # f(*(a, b)) is f(a, b)
            elif isinstance(arg.value, gast.Name) and arg.value.id in self.tuple_lengths:
                # `args = (x, 2.0)` bound once: f(*args) is f(args[0], args[1])
                args += [self.atom(gast.Subscript(value=clone(arg.value), ctx=gast.Load(),
                                                  slice=gast.Constant(value=k, kind=None)))
                         for k in range(self.tuple_lengths[arg.value.id])]
            else:
                args.append(gast.Starred(value=self.atom(arg.value), ctx=gast.Load()))
        keywords = [gast.keyword(arg=k.arg, value=self.atom(k.value)) for k in node.keywords]
        return gast.Call(func=func, args=args, keywords=keywords)

    def simple_Subscript(self, node):
        return gast.Subscript(value=self.atom(node.value), slice=self.index(node.slice), ctx=gast.Load())

    def index(self, node):
        if isinstance(node, gast.Slice):
            parts = [None if p is None else self.atom(p) for p in (node.lower, node.upper, node.step)]
            return gast.Slice(lower=parts[0], upper=parts[1], step=parts[2])
        if isinstance(node, gast.Tuple):
            return gast.Tuple(elts=[self.index(e) for e in node.elts], ctx=gast.Load())
        return self.atom(node)

    def simple_Attribute(self, node):
        return gast.Attribute(value=self.atom(node.value), attr=node.attr, ctx=gast.Load())

    def simple_Compare(self, node):
        if len(node.ops) == 1:
            return gast.Compare(left=self.atom(node.left), ops=node.ops,
                                comparators=[self.atom(node.comparators[0])])
        # a < b < c: each middle operand evaluated once, later comparisons short-circuit
        left = self.atom(node.left)
        result = self.temporary("_cmp", node, node)
        parts = list(zip(node.ops, node.comparators))
        statements = self.out

        def chain(left, parts):
            op, right = parts[0]
            right = self.atom(right)
            self.emit(self._store(result, gast.Compare(left=left, ops=[op], comparators=[right])), node)
            if len(parts) > 1:
                body = self.block_with(lambda: chain(right, parts[1:]))
                self.emit(gast.If(test=self._load(result), body=body, orelse=[]), node)

        chain(left, parts)
        assert statements is self.out
        return self._load(result)

    def simple_BoolOp(self, node):
        result = self.temporary("_cond", node, node)
        self.emit(self._store(result, self.simple(node.values[0])), node)

        def rest(values):
            self.emit(self._store(result, self.simple(values[0])), node)
            if len(values) > 1:
                self.emit(self._guard(node.op, result, values[1:], rest), node)

        if len(node.values) > 1:
            self.emit(self._guard(node.op, result, node.values[1:], rest), node)
        return self._load(result)

    def _guard(self, op, result, values, rest):
        body = self.block_with(lambda: rest(values))
        test = self._load(result)
        if isinstance(op, gast.Or):
            test = gast.UnaryOp(op=gast.Not(), operand=test)
        return gast.If(test=test, body=body, orelse=[])

    def simple_IfExp(self, node):
        result = self.temporary("_choice", node, node)
        body = self.block_with(lambda: self.emit(self._store(result, self.simple(node.body)), node))
        orelse = self.block_with(lambda: self.emit(self._store(result, self.simple(node.orelse)), node))
        self.emit(gast.If(test=node.test, body=body, orelse=orelse), node)
        return self._load(result)

    def simple_Tuple(self, node):
        return gast.Tuple(elts=[self.atom(e) for e in node.elts], ctx=gast.Load())

    def simple_List(self, node):
        return gast.List(elts=[self.atom(e) for e in node.elts], ctx=gast.Load())

    def simple_Dict(self, node):
        if any(k is None for k in node.keys):
            return node
        return gast.Dict(keys=[self.atom(k) for k in node.keys],
                         values=[self.atom(v) for v in node.values])

    def simple_NamedExpr(self, node):
        raise self.parsed.error(node, "assignment expressions (`:=`) are not supported",
                                hint="assign the value on its own line first")

    def block_with(self, build):
        saved, self.out = self.out, []
        build()
        result, self.out = self.out, saved
        return result

    @staticmethod
    def _store(name, value):
        return gast.Assign(targets=[gast.Name(id=name, ctx=gast.Store(), annotation=None,
                                              type_comment=None)], value=value, type_comment=None)

    @staticmethod
    def _load(name):
        return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)
