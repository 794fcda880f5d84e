"""A vjp split in two, so that a caller runs a callee once: `fwd_<f>(*params)` runs the forward
pass and returns `(value, backward)`, where `backward(seed)` is the backward pass, a closure
over the values the forward pass left (its residuals). A caller keeps `backward` (on its tape
inside loops) instead of calling `vjp_<f>`, which would run the callee's forward pass again.

The split is made from the finished, optimized `vjp_<f>`: the backward pass starts at the
first statement that reads the seed."""
import gast

from ... import build, runtime
from ...traversal import walk


def split_vjp(function, seed, backward_name, names, fresh):
    """`def vjp_f(*params, seed)` -> `def fwd_f(*params)` returning (value, backward).
    `names`: the generated code's helper names, `fresh(name)` a name not taken; the gradients
    are converted for the caller (runtime.callee_gradient), not for the user."""
    docstring, body, ret = function.body[0], function.body[1:-1], function.body[-1]
    # no statement reads the seed where the value does not depend on what is differentiated:
    # then the backward pass has nothing to do
    start = next((k for k, statement in enumerate(body) if seed in _names(statement, gast.Load)),
                 len(body))
    forward, backward = body[:start], body[start:]
    value, gradients = ret.value.elts
    gradients = _for_the_caller(gradients, names, fresh)
    shared = sorted(_names(backward, gast.Store) & (_bound(forward) | _params(function)))
    inner = ([gast.Nonlocal(names=shared)] if shared else []) + backward + \
        [gast.Return(value=gradients)]
    closure = gast.FunctionDef(
        name=backward_name, args=_arguments([seed]), body=inner, decorator_list=[],
        returns=None, type_comment=None, type_params=[])
    function.args = _arguments([a.id for a in function.args.args[:-1]])
    docstring.value.value = docstring.value.value.replace(
        "its gradient", "the backward pass from an adjoint of it to its gradient")
    function.body = [docstring] + forward + [closure, gast.Return(value=gast.Tuple(
        elts=[value, build.name(backward_name)], ctx=gast.Load()))]
    return function


def _for_the_caller(gradients, names, fresh):
    """`gradient_like(d, x)` of the returned gradients as `callee_gradient(d, x)`."""
    convert = next((k for k, v in names.items() if v is runtime.gradient_like), None)
    if convert is None:
        return gradients
    callee = next((k for k, v in names.items() if v is runtime.callee_gradient), None)
    if callee is None:
        callee = fresh("callee_gradient")
        names[callee] = runtime.callee_gradient
    items = gradients.elts if isinstance(gradients, gast.Tuple) else [gradients]
    for item in items:
        if isinstance(item, gast.Call) and isinstance(item.func, gast.Name) and \
                item.func.id == convert:
            item.func = build.name(callee)
    return gradients


def _names(node, context):
    nodes = node if isinstance(node, list) else [node]
    return {n.id for s in nodes for n in walk(s) if isinstance(n, gast.Name)
            and isinstance(n.ctx, context)}


def _bound(statements):
    return _names(statements, gast.Store)


def _params(function):
    return {a.id for a in function.args.args}


def _arguments(names):
    args = [build.name(n) for n in names]
    for a in args:
        a.ctx = gast.Param()
    return gast.arguments(args=args, posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                          kwarg=None, defaults=[])
