"""LowerNamedExpressions: an assignment expression `(y := v)` becomes the assignment `y = v`
just before the statement that holds it, and the expression reads `y` instead.

It runs first, so that every later pass and analysis sees a plain assignment (an alias bound by
`(b := y)` is an alias like `b = y`). Moving `v` ahead of its statement must keep what the
statement computes:

* a part of the statement that Python evaluates before the walrus is held in a temporary first
  where it could see the change (`y + (y := 2)` reads the old `y`; `f() + (y := g())` calls `f`
  first), unless it is a constant or a name the walrus does not rebind;
* a walrus in a part that may not run (after the first operand of `and` / `or`, in a branch of
  a conditional expression) runs under the `if` that decides whether it does, the expression
  becoming a temporary assigned in each case, as normal form lowers them;
* a `while` test is evaluated again before each step: its assignments are made before the loop,
  at the end of the body and before each `continue`;
* in a list or dict comprehension the walrus binds a name of the function (Python's rule):
  the comprehension becomes its loop first (LowerComprehensions).

Refused, at the walrus: one in a lambda, a generator expression (consumed lazily: `any(...)`
stops early), a later operand of a chained comparison, an assignment target, and a statement
whose other parts it cannot be ordered with."""
import gast

from .. import build
from ..frontend.source_text import Temporary, span_of
from ..traversal import nodes_of, rewrite_blocks, walk
from .lower_comprehensions import LowerComprehensions, plain_comprehension

_WRAPPERS = (gast.keyword, gast.Starred, gast.Slice, gast.FormattedValue)   # not values
_NOT_CODE = {"ctx", "op", "ops", "id", "attr", "arg", "kind", "type_comment", "conversion",
             "is_async"}
_HINT = "assign the value on its own line first"
_INSIDE = {gast.Lambda: "inside a lambda",
           gast.GeneratorExp: "inside a generator expression (it runs lazily: `any(...)` may "
                              "stop early)",
           gast.SetComp: "inside a set comprehension"}


def _holds(node):
    return bool(nodes_of(node, [gast.NamedExpr])) if node is not None else False


def _bound(nodes):
    """The names the walruses in `nodes` bind."""
    return {n.target.id for node in nodes if node is not None
            for n in nodes_of(node, [gast.NamedExpr])}


def _slots(node):
    """The operands of `node` in the order Python evaluates them, as (holder, key) pairs: a
    keyword's, a starred item's, a slice's parts stand for themselves."""
    if isinstance(node, gast.Dict):            # k1, v1, k2, v2 (a `**m` entry has no key)
        pairs = [(part, i) for i, key in enumerate(node.keys)
                 for part in ([node.keys, node.values] if key is not None else [node.values])]
        return [slot for holder, i in pairs for slot in _unwrapped(holder, i)]
    slots = []
    for field in node._fields:
        if field in _NOT_CODE:
            continue
        value = getattr(node, field, None)
        if isinstance(value, list):
            slots += [s for i in range(len(value)) for s in _unwrapped(value, i)]
        elif isinstance(value, gast.AST):
            slots += _unwrapped(node, field)
    return slots


def _unwrapped(holder, key):
    value = _get((holder, key))
    if value is None:
        return []
    return _slots(value) if isinstance(value, _WRAPPERS) else [(holder, key)]


def _get(slot):
    holder, key = slot
    return holder[key] if isinstance(holder, list) else getattr(holder, key)


def _set(slot, value):
    holder, key = slot
    if isinstance(holder, list):
        holder[key] = value
    else:
        setattr(holder, key, value)


def _delayable(node, rebound):
    """Can `node` be evaluated after code that rebinds `rebound` (and may call anything)
    without changing its value? Constants, and names (or `np.sum`, `xs.append`) not rebound."""
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Constant) or \
        isinstance(node, gast.Name) and node.id not in rebound


class LowerNamedExpressions:
    """Assignment expressions to assignments, in the function's body and its nested `def`s."""

    def __init__(self, parsed, namer):
        self.parsed = parsed
        self.namer = namer
        self.comprehensions = LowerComprehensions(namer, parsed.namespace)

    def run(self, body):
        if not _holds(body):
            return body
        return rewrite_blocks(body, self.statement)

    def statement(self, node):
        """`node` as the statements that compute it, with no assignment expression left in
        its own expressions (its blocks are done already)."""
        if isinstance(node, gast.FunctionDef):
            node.body = self.run(node.body)
            self._refuse_in(node.args.defaults + node.args.kw_defaults + node.decorator_list,
                            "in a default or a decorator")
            return [node]
        if isinstance(node, gast.While):
            return self._while(node)
        if isinstance(node, gast.Expr) and isinstance(node.value, gast.NamedExpr):
            before = []                          # `(y := v)` on its own: just `y = v`
            self.expression(node.value, before)
            return before
        before = []
        if isinstance(node, (gast.Assign, gast.AnnAssign)):
            self._refuse_in(node.targets if isinstance(node, gast.Assign)
                            else [node.target, node.annotation], "in an assignment target")
            node.value = self.expression(node.value, before)
        elif isinstance(node, gast.AugAssign):
            self._aug_assign(node, before)
        elif isinstance(node, (gast.If, gast.Assert)):
            self._refuse_in([getattr(node, "msg", None)], "in an assert message")
            node.test = self.expression(node.test, before)
        elif isinstance(node, gast.For):
            node.iter = self.expression(node.iter, before)
        elif isinstance(node, (gast.Expr, gast.Return, gast.Raise)):
            self.operands(node, before)
        else:
            self._refuse_in([node], f"in a `{type(node).__name__.lower()}` statement")
        return before + [node]

    def _aug_assign(self, node, before):
        """`t[i] += v`: `t` and `i` are evaluated (and `t[i]` read) before `v`, so `v` may
        not rebind what they read, nor may they call anything."""
        target = node.target
        reads = {n.id for n in walk(target) if isinstance(n, gast.Name)}
        if _holds(node.value) and (reads & _bound([node.value]) or nodes_of(target, [gast.Call])):
            raise self._error(node.value, "that rebinds a name `+=` reads before it")
        self._refuse_in([target], "in an assignment target")
        node.value = self.expression(node.value, before)

    def _while(self, node):
        """The test's assignments before the loop and again before each next test."""
        again = []
        node.test = self.expression(node.test, again)
        if again:
            node.body = _before_continues(node.body, again) + build.clone(again)
        return again + [node]

    def expression(self, node, before):
        """`node` with no assignment expression, what ran for them appended to `before`."""
        if not _holds(node):
            return node
        if isinstance(node, gast.NamedExpr):
            value = self.expression(node.value, before)
            before.append(gast.copy_location(build.assign(node.target.id, value), node))
            return gast.copy_location(build.name(node.target.id), node)
        if isinstance(node, gast.BoolOp) and _holds(node.values[1:]):
            return self._short_circuit(node, before)
        if isinstance(node, gast.IfExp) and (_holds(node.body) or _holds(node.orelse)):
            return self._conditional(node, before)
        if isinstance(node, gast.Compare) and _holds(node.comparators[1:]):
            raise self._error(gast.Tuple(elts=node.comparators[1:], ctx=gast.Load()), "in a later operand of a chained "
                              "comparison (it may not run)")
        if isinstance(node, (gast.ListComp, gast.DictComp)):
            return self._comprehension(node, before)
        if isinstance(node, (gast.Lambda, gast.GeneratorExp, gast.SetComp)):
            raise self._error(node, _INSIDE[type(node)])
        self.operands(node, before)
        return node

    def operands(self, node, before):
        """Lower the operands of `node` in place, in Python's order. An operand evaluated
        before a later walrus is held in a temporary first where it could see it run."""
        slots = _slots(node)
        holding = [k for k, slot in enumerate(slots) if _holds(_get(slot))]
        last = holding[-1] if holding else -1
        for k, slot in enumerate(slots):
            value = self.expression(_get(slot), before)
            later = [_get(s) for s in slots[k + 1:last + 1]]
            if k < last and not _delayable(value, _bound(later)):
                value = self._held(value, before)
            _set(slot, value)

    def _held(self, value, before):
        name = self.namer.fresh(f"{value.id}_before" if isinstance(value, gast.Name) else "_t")
        self.parsed.temporaries[name] = Temporary(span_of(value), build.clone(value))
        before.append(gast.copy_location(build.assign(name, value), value))
        return gast.copy_location(build.name(name), value)

    def _short_circuit(self, node, before):
        """`a and (y := b)`: `_cond = a; if _cond: _cond = b'`, `b'` computed under the `if`."""
        result = self.namer.fresh("_cond")
        first = self.expression(node.values[0], before)
        before.append(gast.copy_location(build.assign(result, first), node))
        block = before
        for value in node.values[1:]:
            test = build.name(result)
            if isinstance(node.op, gast.Or):
                test = gast.UnaryOp(op=gast.Not(), operand=test)
            inner = []
            inner.append(gast.copy_location(build.assign(
                result, self.expression(value, inner)), value))
            block.append(gast.copy_location(gast.If(test=test, body=inner, orelse=[]), node))
            block = inner
        return gast.copy_location(build.name(result), node)

    def _conditional(self, node, before):
        """`a if c else (y := b)`: each branch assigns `_choice` under the `if` on `c`."""
        result = self.namer.fresh("_choice")
        test = self.expression(node.test, before)
        branches = []
        for branch in (node.body, node.orelse):
            inner = []
            inner.append(gast.copy_location(build.assign(
                result, self.expression(branch, inner)), branch))
            branches.append(inner)
        before.append(gast.copy_location(gast.If(test=test, body=branches[0],
                                                 orelse=branches[1]), node))
        return gast.copy_location(build.name(result), node)

    def _comprehension(self, node, before):
        """The comprehension as its loop (its walrus binds a name of the function), then
        the loop's own assignment expressions lowered."""
        if not plain_comprehension(node):
            raise self._error(node, "inside a comprehension that binds more than names or "
                              "holds another comprehension or a lambda")
        loop = []
        result = self.comprehensions.as_loop(node, loop, node)
        before += rewrite_blocks(loop, self.statement)
        return result

    def _refuse_in(self, nodes, where):
        for node in nodes:
            if _holds(node):
                raise self._error(node, where)

    def _error(self, node, where):
        """Refuse the first assignment expression in `node`, saying `where` it sits."""
        walrus = next(n for n in walk(node) if isinstance(n, gast.NamedExpr))
        return self.parsed.error(walrus, f"an assignment expression (`:=`) {where} is not "
                                 f"supported", hint=_HINT)


def _before_continues(statements, again):
    """`statements` with a copy of `again` before each `continue` of their loop."""
    out = []
    for statement in statements:
        if isinstance(statement, gast.Continue):
            out += build.clone(again)
        blocks = ["orelse"] if isinstance(statement, (gast.For, gast.While)) else \
            [] if isinstance(statement, gast.FunctionDef) else ["body", "orelse"]
        for block in blocks:
            if getattr(statement, block, None):
                setattr(statement, block, _before_continues(getattr(statement, block), again))
        out.append(statement)
    return out
