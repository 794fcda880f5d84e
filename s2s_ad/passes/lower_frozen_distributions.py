"""LowerFrozenDistributions: SciPy's frozen distributions spelled with the functions that have
rules.

    d = stats.norm(mu, s)       _d_0 = mu; _d_1 = s
    d.logpdf(x)                 stats.norm.logpdf(x, _d_0, _d_1)
    stats.norm(mu, s).cdf(x)    stats.norm.cdf(x, mu, s)
    D.pdf(x)                    stats.norm.pdf(x, 0.0, 1.0)   (D = stats.norm(0.0, 1.0) a global)

A frozen distribution's method calls the distribution's own with the arguments it was made
with; that is all this pass writes out. The arguments are kept in names of their own where
the distribution is made, so that a later rebinding of `mu` does not change `d`. A name that
is bound more than once or read other than as `d.method(...)` is left as written (and
refused where its methods are differentiated).
"""
import inspect
import sys

import gast

from .. import build
from ..traversal import name_nodes, preorder, rewrite_blocks, walk_statements
from .call_lowering import CallLowering


def is_distribution(value):
    """Is `value` a SciPy distribution that freezes when called (`stats.norm`,
    `stats.multivariate_normal`)?"""
    stats = sys.modules.get("scipy.stats")
    if stats is None or not (type(value).__module__ or "").startswith("scipy.stats"):
        return False
    # the bases of SciPy's univariate and multivariate distributions (private module names,
    # so a distribution class, `norm_gen`, is recognised by its name where they move)
    bases = tuple(getattr(getattr(stats, module, None), base, None) for module, base in (
        ("_distn_infrastructure", "rv_generic"), ("_multivariate", "multi_rv_generic")))
    bases = tuple(b for b in bases if isinstance(b, type))
    return isinstance(value, bases) if bases else type(value).__name__.endswith("_gen")


class LowerFrozenDistributions(CallLowering):
    """A CallLowering over whole statements: `run(body)` needs the body to find the names."""

    def __init__(self, resolve, bind, namer):
        super().__init__(resolve, bind)
        self.namer = namer
        self.frozen = {}            # name -> (the distribution's expression, args, keywords)

    def run(self, body):
        makers = self._made_once(body)
        if makers:
            body = rewrite_blocks(body, lambda s: self._kept_arguments(s, makers))
        return super().run(body)

    def _made_here(self, node):
        """Is `node` a call that freezes a distribution?"""
        return isinstance(node, gast.Call) and is_distribution(self.static(node.func))

    def _frozen_elsewhere(self, node):
        """Is `node` a univariate distribution frozen outside the function (a global)?"""
        frozen = self.static(node) if isinstance(node, (gast.Name, gast.Attribute)) else None
        return is_distribution(getattr(frozen, "dist", None)) \
            and self._unfrozen(frozen) is not None

    @staticmethod
    def _unfrozen(frozen):
        """The module-level distribution `frozen` was made from (its `dist` is a copy of it,
        which the rules, keyed by `stats.norm.logpdf`, do not know)."""
        shared = getattr(sys.modules["scipy.stats"], frozen.dist.name, None)
        return shared if type(shared) is type(frozen.dist) else None

    def _made_once(self, body):
        """Names bound once, by `name = distribution(...)`, and read only as `name.method(...)`."""
        bound, reads, methods = {}, {}, {}
        if any(isinstance(s, gast.FunctionDef) for s in walk_statements(body)):
            return {}              # a nested function may read the name: leave it alone
        for node in name_nodes(body):
            counts = reads if isinstance(node.ctx, gast.Load) else bound
            counts[node.id] = counts.get(node.id, 0) + 1
        for node in preorder(body):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                    and isinstance(node.func.value, gast.Name):
                methods[node.func.value.id] = methods.get(node.func.value.id, 0) + 1
        makers = {}
        for statement in walk_statements(body):
            if isinstance(statement, gast.Assign) and len(statement.targets) == 1 \
                    and isinstance(statement.targets[0], gast.Name) \
                    and self._made_here(statement.value):
                name = statement.targets[0].id
                if bound[name] == 1 and reads.get(name, 0) == methods.get(name, 0):
                    makers[id(statement)] = name
        return makers

    def _kept_arguments(self, statement, makers):
        """`d = stats.norm(mu, s)` as `_d_0 = mu; _d_1 = s`, remembered for d's methods."""
        name = makers.get(id(statement))
        if name is None:
            return [statement]
        made = statement.value
        kept, args, keywords = [], [], []
        for k, argument in enumerate(made.args):
            fresh = self.namer.fresh(f"{name}_{k}")
            kept.append(gast.copy_location(build.assign(fresh, argument), statement))
            args.append(fresh)
        for keyword in made.keywords:
            fresh = self.namer.fresh(f"{name}_{keyword.arg}")
            kept.append(gast.copy_location(build.assign(fresh, keyword.value), statement))
            keywords.append((keyword.arg, fresh))
        self.frozen[name] = (made.func, args, keywords)
        return kept

    def lowered(self, call):
        if not isinstance(call.func, gast.Attribute):
            return call
        receiver = call.func.value
        if isinstance(receiver, gast.Name) and receiver.id in self.frozen:
            function, args, keywords = self.frozen[receiver.id]
            args = [build.name(a) for a in args]
            keywords = [gast.keyword(arg=k, value=build.name(v)) for k, v in keywords]
        elif self._made_here(receiver):
            function, args, keywords = receiver.func, receiver.args, receiver.keywords
        elif self._frozen_elsewhere(receiver):
            frozen = self.static(receiver)
            function = build.name(self.bind(frozen.dist.name, self._unfrozen(frozen)))
            args = [build.name(self.bind(f"{frozen.dist.name}_arg", a)) for a in frozen.args]
            keywords = [gast.keyword(arg=k, value=build.name(self.bind(k, v)))
                        for k, v in frozen.kwds.items()]
        else:
            return call
        method = gast.Attribute(value=build.clone(function), attr=call.func.attr,
                                ctx=gast.Load())
        given, named = self._points_first(call, method)
        return gast.copy_location(gast.Call(func=gast.copy_location(method, call.func),
                                            args=given + args, keywords=named + keywords), call)

    def _points_first(self, call, method):
        """The call's (positional, keyword) arguments, the points (`d.logpdf(x=v)`) moved to
        the front: the frozen arguments follow them by position."""
        if call.args:
            return call.args, call.keywords
        try:
            first = next(iter(inspect.signature(self.static(method)).parameters))
        except (TypeError, ValueError, StopIteration):
            return call.args, call.keywords
        points = [k.value for k in call.keywords if k.arg == first]
        return points, [k for k in call.keywords if k.arg != first]
