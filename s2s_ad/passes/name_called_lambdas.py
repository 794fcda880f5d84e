"""NameCalledLambdas: a lambda called where it is written, `(lambda v: v * 2)(x)`, or passed
to a call, `apply_twice(lambda t: t * np.cos(t), x)`, is bound to a name of its own just
before its statement and used by that name; lambdas assigned together, `sq, cube = lambda v:
v * v, lambda v: v ** 3`, are assigned one by one. All then take the form
HoistNestedFunctions differentiates: a lambda bound to a name, called or passed on. A lambda
that map or reduce applies stays where it is (LowerComprehensions writes it out).

Making a lambda runs nothing but its defaults, so it may move before its statement where the
defaults are constants or names (the assignment expressions of the statement are already
assignments before it). A lambda inside another lambda or a comprehension stays: its body may
read that scope's names."""
import gast

from .. import build
from ..traversal import rewrite_blocks
from .lower_comprehensions import functional_call

_SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
           gast.FunctionDef)


class NameCalledLambdas:

    def __init__(self, namer, namespace):
        self.namer = namer
        self.namespace = namespace

    def run(self, body):
        return rewrite_blocks(body, self.statement)

    def statement(self, node):
        if isinstance(node, gast.FunctionDef):
            node.body = self.run(node.body)
            return [node]
        if _assigns_lambdas(node):
            return [gast.copy_location(build.assign(target, value), node)
                    for target, value in zip(node.targets[0].elts, node.value.elts)]
        before = []
        for field in node._fields:
            # a `while` test runs again each step: a lambda made once before the loop would
            # keep the defaults of the first
            if field not in ("body", "orelse") and not (isinstance(node, gast.While)
                                                        and field == "test"):
                self._name_in(getattr(node, field), before)
        return before + [node]

    def _name_in(self, value, before):
        """Bind each lambda called in `value` (outside nested scopes) to a fresh name."""
        if isinstance(value, list):
            for item in value:
                self._name_in(item, before)
            return
        if not isinstance(value, gast.AST) or isinstance(value, _SCOPES):
            return
        if isinstance(value, gast.Call):
            self._name_lambdas_of(value, before)
        for field in value._fields:
            self._name_in(getattr(value, field), before)


    def _name_lambdas_of(self, call, before):
        """The lambda `call` calls, and those it passes as arguments, bound to fresh names."""
        def named(lam):
            if not isinstance(lam, gast.Lambda) or not _movable(lam):
                return lam
            name = self.namer.fresh("_lambda")
            before.append(gast.copy_location(build.assign(name, lam), lam))
            return gast.copy_location(build.name(name), lam)
        call.func = named(call.func)
        applied = functional_call(call, self.namespace) is not None
        call.args = [a if applied and k == 0 else named(a) for k, a in enumerate(call.args)]
        for keyword in call.keywords:
            keyword.value = named(keyword.value)


def _movable(function):
    """Are the lambda's defaults constants or names, which making it earlier cannot change?"""
    args = function.args
    return all(d is None or isinstance(d, (gast.Constant, gast.Name))
               for d in args.defaults + args.kw_defaults)


def _assigns_lambdas(node):
    """`a, b = lambda ..., lambda ...`: names, each given a lambda that reads none of them."""
    if not (isinstance(node, gast.Assign) and len(node.targets) == 1
            and isinstance(node.targets[0], (gast.Tuple, gast.List))
            and isinstance(node.value, (gast.Tuple, gast.List))
            and len(node.targets[0].elts) == len(node.value.elts)):
        return False
    names = node.targets[0].elts
    return all(isinstance(n, gast.Name) for n in names) and all(
        isinstance(v, gast.Lambda) and _movable(v) for v in node.value.elts) and not any(
        isinstance(d, gast.Name) and d.id in {n.id for n in names}
        for v in node.value.elts for d in v.args.defaults + v.args.kw_defaults)
