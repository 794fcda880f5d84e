"""The expression half of A-normal form: an expression as one operation on atoms (names and
constants), the nested parts assigned to temporaries first."""
import gast

from ..build import clone
from ..frontend.source_text import Temporary, span_of

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


class ExpressionsToAtoms:
    """Part of ToNormalForm: expects `parsed`, `namer`, `is_static`, `tuple_lengths`, `out`
    (the statements emitted so far) and `emit(node, like)`."""

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
        keywords = []
        for k in node.keywords:
            if k.arg is None and isinstance(k.value, gast.Name) and k.value.id in self.dict_keys:
                # `kw = {"scale": s}` bound once: f(**kw) is f(scale=kw["scale"])
                keywords += [gast.keyword(arg=key, value=self.atom(gast.Subscript(
                    value=clone(k.value), slice=gast.Constant(value=key, kind=None),
                    ctx=gast.Load()))) for key in self.dict_keys[k.value.id]]
            else:
                keywords.append(gast.keyword(arg=k.arg, value=self.atom(k.value)))
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
