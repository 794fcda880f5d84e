"""LowerUfuncWhere: a ufunc's `where=` mask with a fresh `out=` array, spelled with the functions
that have rules.

    np.log(x, where=m, out=np.zeros(3))

computes the logarithm only where `m` holds and keeps `out`'s entries elsewhere. It becomes

    np.where(_where := np.broadcast_to(m, np.shape(_out := np.zeros(3))),
             scatter(_out, _where, np.log(np.broadcast_to(x, np.shape(_out))[_where])), _out)

so the ufunc, and its derivative, see only the entries it computes: where `m` is False, `x` may
lie outside the ufunc's domain (the reason to pass `where=`) without a nan in the derivative.
The assignment expressions are lowered with the user's own (passes/lower_named_expressions.py).

Left as written, for the refusal of `out=` to explain: an `out=` array that is not made in
the call (NumPy writes into it, and a later read of it sees the write); refused here with a
hint: `where=` without `out=`, whose other entries NumPy leaves uninitialized.
"""
import gast
import numpy as np

from .. import build, runtime
from ..traversal import walk
from .call_lowering import CallLowering, is_numpy_but_random

# NumPy functions whose result is a new array: an `out=` made by one is not read elsewhere
_FRESH = {np.zeros, np.ones, np.full, np.empty, np.zeros_like, np.ones_like, np.full_like,
          np.empty_like, np.copy, np.array}


class LowerUfuncWhere(CallLowering):
    """A CallLowering that uses `bind`; `numpy(name)` is an expression for NumPy's `name`,
    `namer` makes the fresh names, `parsed` locates refusals."""

    def __init__(self, resolve, bind, numpy, namer, parsed):
        super().__init__(resolve, bind)
        self.numpy, self.namer, self.parsed = numpy, namer, parsed

    def lowered(self, call):
        ufunc = self.static(call.func) if isinstance(call.func, (gast.Name, gast.Attribute)) \
            else None
        where = _keyword(call, "where")
        if not isinstance(ufunc, np.ufunc) or where is None or _is_true(where) \
                or ufunc.nout != 1 or len(call.args) != ufunc.nin \
                or any(isinstance(a, gast.Starred) for a in call.args):
            return call
        out = _keyword(call, "out")
        if isinstance(out, gast.Tuple) and len(out.elts) == 1:
            out = out.elts[0]
        if out is None or (isinstance(out, gast.Constant) and out.value is None):
            self._refuse_uninitialized(call, ufunc)
        if not self._is_fresh(out) or not self._is_pure(where):
            return call                     # the refusal of out= explains it
        users = {id(n) for part in [call.func, where, out, *call.args] for n in walk(part)}
        masked = self._masked(call, where, out)
        for part in walk(masked):       # what the lowering made, parsed from text or not
            if id(part) not in users and isinstance(part, gast.expr):
                gast.copy_location(part, call)
        return masked

    def _masked(self, call, where, out):
        out_name, where_name = self.namer.fresh("out"), self.namer.fresh("where")
        shape = build.quote_expr("{shape}({out})", shape=self.numpy("shape"),
                                 out=build.name(out_name))
        mask = gast.NamedExpr(target=build.name(where_name, store=True), value=gast.Call(
            func=self.numpy("broadcast_to"), keywords=[], args=[where, build.quote_expr(
                "{shape}({out})", shape=self.numpy("shape"),
                out=gast.NamedExpr(target=build.name(out_name, store=True), value=out))]))
        operands = [build.quote_expr("{spread}({a}, {shape})[{m}]", spread=self.numpy(
            "broadcast_to"), a=a, shape=shape, m=build.name(where_name)) for a in call.args]
        keywords = [k for k in call.keywords if k.arg not in ("where", "out")]
        computed = gast.Call(func=call.func, args=operands, keywords=keywords)
        scatter = build.name(self.bind("scatter", runtime.scatter))
        return build.quote_expr("{select}({mask}, {scatter}({out}, {m}, {computed}), {out})",
                                select=self.numpy("where"), mask=mask, scatter=scatter,
                                out=build.name(out_name), m=build.name(where_name),
                                computed=computed)

    def _is_fresh(self, node):
        """Is `node` a call that makes a new array (np.zeros(...), x.copy())?"""
        if not isinstance(node, gast.Call):
            return False
        if isinstance(node.func, gast.Attribute) and node.func.attr == "copy" \
                and not node.args and self.static(node.func) is None:
            return True
        return self.static(node.func) in _FRESH and all(self._is_pure(a) for a in node.args)

    def _is_pure(self, node):
        """Does `node` call nothing but NumPy's functions (read twice, it computes the same)?"""
        return all(is_numpy_but_random(self.static(c.func))
                   for c in walk(node) if isinstance(c, gast.Call))

    def _refuse_uninitialized(self, call, ufunc):
        name = self.parsed.describe_expression(call.func)
        raise self.parsed.error(
            call, f"`{name}(..., where=...)` without `out=` leaves the entries where the mask is "
            f"False uninitialized (NumPy's documented behaviour): their values, and so the "
            f"derivative, are undefined",
            hint=f"pass the values to keep there: `{name}(..., where=m, out=np.zeros(shape))`, "
                 f"or write `np.where(m, {name}(...), fill)`")


def _keyword(call, name):
    return next((k.value for k in call.keywords if k.arg == name), None)


def _is_true(node):
    return isinstance(node, gast.Constant) and node.value is True
