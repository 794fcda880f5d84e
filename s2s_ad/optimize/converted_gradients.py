"""ConvertedOnce: a gradient a callee's backward pass hands back for an argument of the caller
is not converted again. In

    h, backward_dense = fwd_dense(W1, x)
    ...
    dW1, dx = backward_dense(dh)
    return (value, (gradient_like(dW1, W1), ...))     # grad's code: without the value

the callee's backward pass returned `gradient_like(dW, W)` with `W` the very object `W1` is,
so the caller's `gradient_like(dW1, W1)` would do the conversion a second time. It is left
out where nothing else can have touched `dW1`: the backward call is a statement of the
function's body (not in a loop or a branch), `dW1` is bound there only and read only in the
return, and `W1` is a parameter never rebound that an array or a number was passed for (the
kinds of the call's arguments): a callee hands back a dict, list or tuple with the entries
it did not touch left out (runtime.callee_gradient), which the caller's conversion fills."""
from collections import Counter

import gast

from .. import runtime
from ..traversal import nodes_in


class ConvertedOnce:

    def __init__(self, names, split_positions, returns_value=True, passed_plain=None):
        self.names = names                     # name -> runtime object, as in generated code
        # a parameter -> was an array or a number passed for it (analysis.shapes)?
        self.passed_plain = passed_plain
        self.returns_value = returns_value     # `return (value, gradients)`, else `gradients`
        # the object of a `fwd_<callee>` name -> the positions in its call of the arguments
        # its backward pass returns gradients for, in order; None for another object
        self.split_positions = split_positions

    def run(self, function):
        convert = next((k for k, v in self.names.items() if v is runtime.gradient_like), None)
        ret = function.body[-1] if function.body else None
        if convert is None or not isinstance(ret, gast.Return) or self.returns_value and not (
                isinstance(ret.value, gast.Tuple) and len(ret.value.elts) == 2):
            return function
        stores, loads = _counts(function)
        params = {a.id for a in function.args.args}
        passed = self._passed(function.body, stores)
        grads = ret.value.elts[1] if self.returns_value else ret.value
        items = grads.elts if isinstance(grads, gast.Tuple) else [grads]
        kept = [self._unconverted(g, convert, stores, loads, params, passed) for g in items]
        if isinstance(grads, gast.Tuple):
            grads.elts = kept
        elif self.returns_value:
            ret.value.elts[1] = kept[0]
        else:
            ret.value = kept[0]
        return function

    def _passed(self, body, stores):
        """{gradient name: the argument name its callee converted it for}, from the body's
        `y, back = fwd_callee(...)` and `d1, d2 = back(dy)` statements."""
        arguments = {}                         # backward name -> the argument names in order
        passed = {}
        for statement in body:
            if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.value, gast.Call)
                    and isinstance(statement.value.func, gast.Name)):
                continue
            target, call = statement.targets[0], statement.value
            split = self.names.get(call.func.id)
            positions = self.split_positions(split) if split is not None else None
            if positions is not None and isinstance(target, gast.Tuple) and \
                    len(target.elts) == 2 and isinstance(target.elts[1], gast.Name) and \
                    stores[target.elts[1].id] == 1 and max(positions, default=-1) < len(call.args):
                arguments[target.elts[1].id] = [
                    call.args[k].id if isinstance(call.args[k], gast.Name) else None
                    for k in positions]
                continue
            given = arguments.get(call.func.id)
            if given is None:
                continue
            names = target.elts if isinstance(target, gast.Tuple) else [target]
            if len(names) == len(given) and all(isinstance(n, gast.Name) for n in names):
                passed.update({n.id: x for n, x in zip(names, given) if x is not None})
        return passed

    def _unconverted(self, node, convert, stores, loads, params, passed):
        """`gradient_like(d, x)` as `d` where `d` came back converted for `x`, an array or a
        number; else `node`."""
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
                and node.func.id == convert and len(node.args) == 2 and not node.keywords
                and all(isinstance(a, gast.Name) for a in node.args)):
            return node
        d, x = node.args[0].id, node.args[1].id
        if passed.get(d) == x and x in params and stores[x] == 0 and stores[d] == 1 \
                and loads[d] == 1 and self.passed_plain is not None and self.passed_plain(x):
            return node.args[0]
        return node


def _counts(function):
    """(stores, loads): per name, how often the whole function (nested code too) binds and
    reads it; a parameter's own binding is not counted."""
    stores, loads = Counter(), Counter()
    for node in nodes_in(function.body, (gast.Name, gast.Global, gast.Nonlocal, gast.FunctionDef,
                                         gast.Lambda)):
        if isinstance(node, gast.Name):
            (loads if isinstance(node.ctx, gast.Load) else stores)[node.id] += 1
        elif isinstance(node, (gast.Global, gast.Nonlocal)):
            stores.update({n: 2 for n in node.names})          # bound elsewhere too
        elif isinstance(node, (gast.FunctionDef, gast.Lambda)):
            stores.update({a.id: 2 for a in node.args.args})   # a nested scope's names
    return stores, loads
