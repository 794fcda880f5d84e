"""SpreadByBroadcasting: the adjoint of a reduction that kept its axes, spread back over the
array, is left to NumPy's broadcasting where the spread value meets that array in arithmetic:

    d_exp = unreduce(d_sum, _exp, 1, True)          dshifted = dshifted + d_sum * _exp
    dshifted = dshifted + d_exp * _exp      ->

`d_sum` has `_exp`'s shape with 1s at the reduced axes, so `d_sum * _exp` broadcasts to the
shape `d_exp * _exp` has, entry by entry the same products, and the spread array is never
written. Only where the spread name is read once, by arithmetic with the array it was spread
over, and nothing between the two statements binds either name again."""
import gast

from .. import runtime
from ..traversal import nodes_in, rewrite_each_block, stores, walk
from .fold_temporaries import NameCounts

_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div)


class SpreadByBroadcasting:
    """`names`: the generated code's helper names."""

    def __init__(self, names):
        self.unreduce = next((k for k, v in names.items() if v is runtime.unreduce), None)

    def run(self, function):
        if self.unreduce is None:
            return function
        self.function, self.counts = function, None      # counted at the first spread
        function.body = rewrite_each_block(function.body, self._block)
        return function

    def _block(self, statements):
        kept = []
        for k, statement in enumerate(statements):
            spread = self._spread(statement)
            if spread is None or not self._broadcast_at_use(statements[k + 1:], *spread):
                kept.append(statement)
        return kept

    def _spread(self, statement):
        """(name, reduced adjoint, array) of `name = unreduce(g, x, axis, True)` whose name is
        bound there only and read once; else None."""
        if not (isinstance(statement, gast.Assign) and isinstance(statement.targets[0], gast.Name)
                and isinstance(statement.value, gast.Call)):
            return None
        call, name = statement.value, statement.targets[0].id
        if not (isinstance(call.func, gast.Name) and call.func.id == self.unreduce
                and len(call.args) == 4 and not call.keywords
                and all(isinstance(a, gast.Name) for a in call.args[:2])
                and isinstance(call.args[3], gast.Constant) and call.args[3].value is True):
            return None
        if self.counts is None:         # before any rewrite: a function without spreads
            self.counts = NameCounts(nodes_in(self.function, [gast.Name]))   # is not walked
        if self.counts.loads[name] != 1 or self.counts.stores[name] != 1:
            return None
        return name, call.args[0], call.args[1]

    def _broadcast_at_use(self, later, name, reduced, array):
        """Put `reduced` in place of the one read of `name`, if that read is an operand of
        arithmetic with `array` in a later statement of the block (not inside a block of its
        own, where it could come after another binding) and neither `reduced` nor `array` is
        bound again before it."""
        for statement in later:
            simple = isinstance(statement, (gast.Assign, gast.AugAssign, gast.Expr, gast.Return))
            for node in walk(statement) if simple else ():
                if isinstance(node, gast.BinOp) and isinstance(node.op, _ARITHMETIC):
                    for mine, other in (("left", "right"), ("right", "left")):
                        if _is_name(getattr(node, mine), name) and \
                                _is_name(getattr(node, other), array.id):
                            setattr(node, mine, gast.Name(id=reduced.id, ctx=gast.Load(),
                                                          annotation=None, type_comment=None))
                            return True
            if name in {n.id for n in walk(statement) if isinstance(n, gast.Name)} or \
                    stores(statement) & {reduced.id, array.id}:
                return False            # read some other way, or a name bound again first
        return False


def _is_name(node, name):
    return isinstance(node, gast.Name) and node.id == name
