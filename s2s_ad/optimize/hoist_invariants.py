"""HoistInvariants: arithmetic on numbers that a loop does not change is done once, before it.

    for t in steps[::-1]:                       d_pow2 = price * dcost
        d_pow2 = price * dcost          ->      _dcost = dcost * 2
        d_sub2 = dcost * 2 * _sub2              for t in steps[::-1]:
                                                    d_sub2 = _dcost * _sub2

The adjoint of a value a loop accumulates into (`cost = cost + ...`) is one number at every
step, and so is each product of it with the function's constants: a scalar loop's backward
pass recomputed them each step. The values are the same bit for bit (the same operations on
the same operands, in the same order: `_sub2 * 2 * dcost` stays, as regrouping would round
differently).

Only numbers (shape facts: Python's or NumPy's, immutable), or values made here by arithmetic
on numbers or seeded from one, that nothing but arithmetic reads (so that no other name holds
one that a loop could change in place), the loop binds nowhere; and only `+`, `-`, `*` and
unary minus, which cannot fail on numbers: a division, where the loop would not have run at
all, could (`/ len(xs)` of an empty list), and stays in the loop.
"""
import gast

from .. import build, runtime
from ..analysis.dims import NUMBER
from ..naming import Namer
from ..traversal import preorder, stores, walk

_SAFE_OPS = (gast.Add, gast.Sub, gast.Mult)
_ARITHMETIC = (gast.BinOp, gast.UnaryOp, gast.Compare)


class HoistInvariants:
    """`names`: the generated code's helper names; `token(name)`: a value's shape token."""

    def __init__(self, names, token):
        self.token = token
        self.seed_like = next((k for k, v in names.items() if v is runtime.seed_like), None)
        self.names = names

    def run(self, function):
        loops = [n for n in walk(function) if isinstance(n, (gast.For, gast.While))]
        if not loops:
            return function
        self.numbers = self._numbers(function)
        if not self.numbers:
            return function
        self.namer = Namer({n.id for n in walk(function) if isinstance(n, gast.Name)} |
                           set(self.names))
        function.body = self.block(function.body)
        return function

    def block(self, statements):
        out = []
        for statement in statements:
            for field in ("body", "orelse"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    setattr(statement, field, self.block(inner))
            if isinstance(statement, (gast.For, gast.While)):
                out += self._hoisted(statement)
            out.append(statement)
        return out

    def _hoisted(self, loop):
        """The statements taken out of `loop`'s body, to run before it."""
        changing = stores(loop) | stores(loop.body)
        invariant = self.numbers - changing
        hoisted, kept = [], []
        for position, statement in enumerate(loop.body):
            target = _single_target(statement)
            if target is not None and _invariant(statement.value, invariant) and \
                    _bound_once(target, self.bindings) and \
                    not any(target in _reads(s) for s in loop.body[:position]):
                hoisted.append(statement)
                if target in self.numbers:
                    invariant.add(target)
                continue
            if isinstance(statement, (gast.Assign, gast.Expr, gast.Return, gast.AugAssign)):
                hoisted += self._parts_hoisted(statement, invariant)
            kept.append(statement)
        loop.body = kept or [gast.Pass()]
        return hoisted

    def _parts_hoisted(self, statement, invariant):
        """`_t = <part>` for each largest invariant part of `statement`'s expressions, the
        part replaced by `_t` there."""
        found = []

        def visit(node):
            for field in node._fields:
                value = getattr(node, field, None)
                items = value if isinstance(value, list) else [value]
                for k, child in enumerate(items):
                    if not isinstance(child, gast.expr):
                        continue
                    if isinstance(child, (gast.BinOp, gast.UnaryOp)) and \
                            _invariant(child, invariant):
                        name = self.namer.fresh("_" + _leftmost_name(child))
                        found.append(build.assign(name, child))
                        replacement = build.name(name)
                        if isinstance(value, list):
                            value[k] = replacement
                        else:
                            setattr(node, field, replacement)
                    elif not isinstance(child, (gast.Lambda, gast.GeneratorExp, gast.ListComp,
                                                gast.SetComp, gast.DictComp, gast.IfExp,
                                                gast.BoolOp)):
                        visit(child)     # (evaluated only sometimes, or later: left alone)
        visit(statement)
        return found

    def _numbers(self, function):
        """The names that hold a number: those the shape facts know to be one, and those
        bound only to arithmetic on numbers (or seeded from one: `seed_like` may hand back
        the caller's 0-d array), which only arithmetic reads (no other name holds it)."""
        self.bindings, reads = {}, {}
        for node in walk(function):
            if isinstance(node, gast.Name):
                if isinstance(node.ctx, gast.Load):
                    reads.setdefault(node.id, []).append(node)
                else:
                    self.bindings.setdefault(node.id, []).append(node)
        values = {}
        for node in walk(function):
            target = _single_target(node)
            if target is not None:
                values.setdefault(target, []).append(node.value)
        operands = {id(o) for node in walk(function) if isinstance(node, _ARITHMETIC)
                    for o in _operands(node)}
        private = {name for name, found in reads.items()
                   if all(id(read) in operands for read in found)}
        parameters = {a.id for a in function.args.args}
        # numbers by the shape facts: Python's and NumPy's, which nothing changes in place
        numbers = {name for name in set(reads) | set(self.bindings) if self._is_number(name)}
        changed = True
        while changed:              # a fixpoint: a name bound to arithmetic on numbers
            changed = False
            for name in private - numbers - parameters:
                made = values.get(name, [])
                if made and len(made) == len(self.bindings.get(name, ())) and \
                        all(self._makes_number(v, numbers) for v in made):
                    numbers.add(name)
                    changed = True
        return numbers

    def _is_number(self, name):
        try:
            return self.token(name) == NUMBER
        except (KeyError, LookupError):
            return False

    def _makes_number(self, value, numbers):
        if isinstance(value, gast.Constant):
            return type(value.value) in (int, float)
        if isinstance(value, gast.Name):
            return False              # another name for the same object
        if isinstance(value, gast.Call):
            # seed_like(y, seed, name): a number (or a 0-d array) where y is one
            return isinstance(value.func, gast.Name) and value.func.id == self.seed_like and \
                bool(value.args) and _is_number_operand(value.args[0], numbers, self._is_number)
        if isinstance(value, (gast.BinOp, gast.UnaryOp)):
            return all(_is_number_operand(o, numbers, self._is_number) for o in _operands(value))
        return False


def _is_number_operand(node, numbers, is_number):
    if isinstance(node, gast.Constant):
        return type(node.value) in (int, float)
    if isinstance(node, gast.Name):
        return node.id in numbers or is_number(node.id)
    if isinstance(node, (gast.BinOp, gast.UnaryOp)):
        return all(_is_number_operand(o, numbers, is_number) for o in _operands(node))
    return False


def _invariant(node, names):
    """Is `node` + - * or unary minus on constants and `names`, at least one of them?"""
    if isinstance(node, gast.BinOp):
        return isinstance(node.op, _SAFE_OPS) and _invariant_operand(node.left, names) and \
            _invariant_operand(node.right, names) and _mentions_a_name(node)
    if isinstance(node, gast.UnaryOp):
        return isinstance(node.op, (gast.USub, gast.UAdd)) and \
            _invariant_operand(node.operand, names) and _mentions_a_name(node)
    return False


def _invariant_operand(node, names):
    if isinstance(node, gast.Constant):
        return type(node.value) in (int, float)
    if isinstance(node, gast.Name):
        return node.id in names
    return _invariant(node, names)


def _mentions_a_name(node):
    return any(isinstance(n, gast.Name) for n in walk(node))


def _operands(node):
    if isinstance(node, gast.BinOp):
        return [node.left, node.right]
    if isinstance(node, gast.UnaryOp):
        return [node.operand]
    return [node.left] + list(node.comparators)


def _single_target(node):
    if isinstance(node, gast.Assign) and len(node.targets) == 1 and \
            isinstance(node.targets[0], gast.Name):
        return node.targets[0].id
    return None


def _bound_once(name, bindings):
    return len(bindings.get(name, ())) == 1


def _reads(statement):
    return {n.id for n in walk(statement) if isinstance(n, gast.Name) and
            isinstance(n.ctx, gast.Load)}


def _leftmost_name(node):
    return next(n.id for n in preorder(node) if isinstance(n, gast.Name)).lstrip("_")
