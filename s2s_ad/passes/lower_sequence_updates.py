"""LowerSequenceUpdates: growing a local list or tuple becomes appends, which both modes
differentiate (`xs.append(v)` has an adjoint that pops it again).

* `xs += ys` and `xs.extend(ys)` on a local list: `xs.append(v)` for each entry, in place as
  Python does it (another name for the list sees the entries too);
* `t += (v, w)` on a local tuple: a new tuple, `_items = list(t)`, the appends, then
  `t = tuple(_items)`;
* `xs.reverse()`: `xs.insert(k, xs.pop())` for each position k;
* `ys = xs + [a, b]` (or `+` of tuples) where `ys` always holds a list (the RNN's
  `hs = hs + [h]`): a new list, `ys = list(xs)`, then the appends (`tuple(...)` of it for
  tuples), built when Python builds it: after the entries of the right operand are computed.

The entries of a display (`[a, f(b)]`) are computed, in order, before the first append, as
Python computes the whole display first; any other iterable is walked as a list of its entries
taken first (`list(ys)`: `xs.extend(xs)` doubles the list once). Only names that always hold a
list (or a tuple) are touched (analysis/container_kinds.py): `x += [1.0, 2.0]` on an array adds."""
import gast

from .. import build
from ..analysis.container_kinds import container_kinds
from ..traversal import loads, rewrite_blocks, walk


class LowerSequenceUpdates:

    def __init__(self, parsed, namer):
        self.parsed = parsed
        self.namer = namer
        self.kinds = {}

    def run(self, body, params):
        self.kinds = container_kinds(body, params, self.parsed.namespace)
        if not self.kinds:
            return body
        return rewrite_blocks(body, self.statement)

    def statement(self, node):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name) \
                and self.kinds.get(node.targets[0].id) in ("list", "tuple"):
            operands = _added(node.value)
            if len(operands) > 1 and any(isinstance(o, gast.Name) for o in operands):
                return self._joined(node.targets[0].id, operands, node)
        if isinstance(node, gast.AugAssign) and isinstance(node.op, gast.Add) \
                and isinstance(node.target, gast.Name):
            kind = self.kinds.get(node.target.id)
            if kind == "list":
                return self._appends(node.target.id, node.value, node)
            if kind == "tuple" and (isinstance(node.value, gast.Tuple) or (
                    isinstance(node.value, gast.Name) and self.kinds.get(node.value.id) == "tuple")):
                return self._grown_tuple(node.target.id, node.value, node)
        call = node.value if isinstance(node, gast.Expr) else None
        if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute)
                and isinstance(call.func.value, gast.Name)
                and self.kinds.get(call.func.value.id) == "list" and not call.keywords):
            return [node]
        owner = call.func.value.id
        if call.func.attr == "extend" and len(call.args) == 1:
            return self._appends(owner, call.args[0], node)
        if call.func.attr == "reverse" and not call.args:
            # in place, each entry moved by a pop and an insert, which both modes undo
            k = self.namer.fresh("_k")
            return _located(build.quote(f"for {k} in range(len({owner})):\n"
                                        f"    {owner}.insert({k}, {owner}.pop())"), node, True)
        return [node]

    def _appends(self, owner, entries, node):
        """`owner.append(e)` for each entry of `entries`, computed before the first."""
        code = []
        if isinstance(entries, (gast.List, gast.Tuple)) and \
                not any(isinstance(e, gast.Starred) for e in entries.elts):
            values = []
            for entry in entries.elts:
                if isinstance(entry, (gast.Name, gast.Constant)) or len(entries.elts) == 1:
                    values.append(entry)
                    continue
                held = self.namer.fresh("_entry")
                code.append(build.assign(held, entry))
                values.append(build.name(held))
            code += [_append(owner, v) for v in values]
        else:
            items, item = self.namer.fresh("_items"), self.namer.fresh("_item")
            code.append(build.assign(items, gast.Call(func=build.name("list"), args=[entries],
                                                      keywords=[])))
            code.append(gast.For(target=build.name(item, store=True), iter=build.name(items),
                                 body=[_append(owner, build.name(item))], orelse=[],
                                 type_comment=None))
        return _located(code, node)

    def _joined(self, target, operands, node):
        """`target = a + b + ...` of lists (or tuples), as Python runs it: each operand is
        computed, then joined onto what came before (a display's entries before the join, a
        list's entries as they are at the join)."""
        kind = self.kinds[target]
        code, entries, new = [], None, None
        # read after the new list is made: a later display's entries, a list joined on
        later_reads = {n for o in operands[2:] for n in loads(o)} | \
            {o.id for o in operands[1:] if isinstance(o, gast.Name)}
        for operand in operands:
            if isinstance(operand, (gast.List, gast.Tuple)):
                held = [self._held(e, target, code) for e in operand.elts]
            else:
                held = operand
            if entries is None:
                entries = held
                continue
            if new is None:
                new = target if kind == "list" and target not in later_reads \
                    else self.namer.fresh("_items")
                first = build.name(entries.id) if isinstance(entries, gast.Name) else \
                    gast.List(elts=entries, ctx=gast.Load())
                code.append(build.assign(new, first if isinstance(entries, list) else gast.Call(
                    func=build.name("list"), args=[first], keywords=[])))
            if isinstance(held, list):
                code += [_append(new, e) for e in held]
            else:
                code += self._appends(new, held, node)
        if new != target:
            code.append(build.assign(target, gast.Call(func=build.name(kind), args=[build.name(new)],
                                                       keywords=[])))
        return _located(code, node)

    def _held(self, entry, target, code):
        """`entry` as an atom computed now: a constant, a name other than `target`, or a new
        name it is assigned to."""
        if isinstance(entry, gast.Constant) or isinstance(entry, gast.Name) and entry.id != target:
            return entry
        held = self.namer.fresh("_entry")
        code.append(build.assign(held, entry))
        return build.name(held)

    def _grown_tuple(self, owner, entries, node):
        items = self.namer.fresh("_items")
        code = _located(build.quote(f"{items} = list({owner})"), node, True)
        code += self._appends(items, entries, node)
        code += _located(build.quote(f"{owner} = tuple({items})"), node, True)
        return _located(code, node)


def _added(value):
    """The operands of `a + b + ...` that are names or displays (no starred entry), in order;
    [] where `value` is something else."""
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, gast.Add)):
        return [value] if isinstance(value, gast.Name) or isinstance(value, (
            gast.List, gast.Tuple)) and not any(isinstance(e, gast.Starred) for e in value.elts) \
            else []
    left, right = _added(value.left), _added(value.right)
    return left + right if left and len(right) == 1 else []


def _append(owner, value):
    return gast.Expr(value=gast.Call(func=gast.Attribute(value=build.name(owner), attr="append",
                                                         ctx=gast.Load()),
                                     args=[value], keywords=[]))


def _located(code, node, every=False):
    """`code` at `node`'s place in the user's source, so messages and comments name it: the
    parts made here (`every`: all of it, parsed from text), not the user's expressions."""
    for statement in code:
        for part in walk(statement):
            if isinstance(part, (gast.stmt, gast.expr)) and (
                    every or getattr(part, "lineno", None) is None):
                gast.copy_location(part, node)
    return code
