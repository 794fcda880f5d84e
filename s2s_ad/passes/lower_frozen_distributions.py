"""LowerFrozenDistributions: SciPy's frozen distributions spelled with the functions that have
rules.

    d = stats.norm(mu, s)       _d_0 = mu; _d_1 = s
    d.logpdf(x)                 stats.norm.logpdf(x, _d_0, _d_1)
    stats.norm(mu, s).cdf(x)    stats.norm.cdf(x, mu, s)
    D.pdf(x)                    stats.norm.pdf(x, 0.0, 1.0)   (D = stats.norm(0.0, 1.0) a global)

A frozen distribution's method calls the distribution's own with the arguments it was made
with; that is all this pass writes out. The arguments are kept in names of their own where
the distribution is made, so that a later rebinding of `mu` does not change `d`. A name bound
again (in a branch, in a loop, or `e = d`) keeps the same names, so every binding must freeze
the same distribution with arguments of the same form. A name bound otherwise, to another
distribution, or read other than as `d.method(...)` is left as written (and refused where its
methods are differentiated).
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


def _form(distribution, call):
    """What two bindings of one name must share: the distribution, how many arguments by
    position, and the keywords."""
    return id(distribution), len(call.args), tuple(k.arg for k in call.keywords)


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
        """{id of a statement binding a frozen name: the name}, for names every binding of
        which freezes the same distribution with arguments of the same form (`d =
        stats.norm(m, s)` in each branch, or in a loop) or is another such name (`e = d`),
        and which are read only as `name.method(...)` or by such a binding."""
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
        forms, copies, binders = {}, [], {}
        for statement in walk_statements(body):
            if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1
                    and isinstance(statement.targets[0], gast.Name)):
                continue
            name, value = statement.targets[0].id, statement.value
            if self._made_here(value):
                forms.setdefault(name, set()).add(_form(self.static(value.func), value))
                binders[id(statement)] = name
            elif isinstance(value, gast.Name):
                copies.append((statement, name, value.id))
        return self._consistent(forms, copies, binders, bound, reads, methods)

    @staticmethod
    def _consistent(forms, copies, binders, bound, reads, methods):
        """The binders of the names that stay frozen (see _made_once), found by dropping
        names until none breaks the rules."""
        names = set(forms) | {name for _, name, _ in copies}
        while True:
            form = {n: set(forms.get(n, ())) for n in names}
            for _ in copies:                      # a chain of copies, followed to its end
                for _, name, source in copies:
                    if source in names and name in names:
                        form[name].update(form.get(source, ()))
            copied_by = {}
            for _, name, source in copies:
                copied_by[source] = copied_by.get(source, 0) + 1
            held = {n for n in form if len(form[n]) == 1}
            binding = {n: sum(1 for b in binders.values() if b == n) +
                       sum(1 for _, t, src in copies if t == n and src in held) for n in held}
            kept = {n for n in held & names if binding[n] == bound.get(n, 0)
                    and reads.get(n, 0) == methods.get(n, 0) + copied_by.get(n, 0)
                    and all(t in held for _, t, src in copies if src == n)}
            if kept == names:
                break
            names = kept
        found = {i: n for i, n in binders.items() if n in names}
        found.update({id(s): n for s, n, src in copies if n in names and src in names})
        return found

    def _kept_arguments(self, statement, makers):
        """`d = stats.norm(mu, s)` as `_d_0 = mu; _d_1 = s`, remembered for d's methods
        (the same names at every binding of `d`); `e = d` as `_e_0 = _d_0; _e_1 = _d_1`."""
        name = makers.get(id(statement))
        if name is None:
            return [statement]
        made = statement.value
        if isinstance(made, gast.Name):
            if made.id not in self.frozen:
                return [statement]        # copied before it is made: left as written
            function, args, keywords = self.frozen[made.id]
            values = [build.name(a) for a in args] + [build.name(v) for _, v in keywords]
            keywords = [(k, None) for k, _ in keywords]
        else:
            function, values = made.func, list(made.args) + [k.value for k in made.keywords]
            args, keywords = [None] * len(made.args), [(k.arg, None) for k in made.keywords]
        known = self.frozen.get(name)
        names = known[1] + [v for _, v in known[2]] if known else \
            [self.namer.fresh(f"{name}_{k}") for k in range(len(args))] + \
            [self.namer.fresh(f"{name}_{k}") for k, _ in keywords]
        self.frozen[name] = (known[0] if known else function, names[:len(args)],
                             [(k, v) for (k, _), v in zip(keywords, names[len(args):])])
        return [gast.copy_location(build.assign(n, v), statement) for n, v in zip(names, values)]

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
