"""LowerDictViews: a dict's `values()` or `items()` handed straight to a builtin that reads it
at once, spelled as the list comprehension it stands for, which is differentiated as a loop
over the dict's keys (passes/lower_comprehensions.py, then lower_for_loops.py).

    sum(d.values())         sum([_v for _v in d.values()])
    list(d.values())        list([_v for _v in d.values()])
    sorted(d.items())       sorted([(_k, _v) for _k, _v in d.items()])

Only where the builtin consumes the view before anything else runs: a view kept in a name, or
walked lazily (`zip`, `map`), sees later writes into the dict, which a list taken at the call
would not."""
import builtins

import gast

from .. import build
from .call_lowering import CallLowering

VIEW_HINT = ("take the entries where you read them: `sum(d.values())`, `list(d.values())`, "
             "`sorted(d.items())`, or a loop `for k, v in d.items():`")


def view_hint(key, otherwise):
    """The hint for a refused method call `key`: how to read a dict's view, else `otherwise`."""
    return VIEW_HINT if getattr(key, "name", None) in ("values", "items") else otherwise


_CONSUMERS = (builtins.sum, builtins.list, builtins.tuple, builtins.sorted, builtins.min,
              builtins.max)


class LowerDictViews(CallLowering):
    """A CallLowering; `namer` gives the comprehensions' names."""

    def __init__(self, resolve, namer):
        super().__init__(resolve)
        self.namer = namer

    def lowered(self, call):
        if not (isinstance(call.func, gast.Name) and call.args
                and any(self.static(call.func) is b for b in _CONSUMERS)):
            return call
        view = call.args[0]
        if not (isinstance(view, gast.Call) and isinstance(view.func, gast.Attribute)
                and view.func.attr in ("values", "items") and not view.args
                and not view.keywords):
            return call
        names = ["_v"] if view.func.attr == "values" else ["_k", "_v"]
        names = [self.namer.fresh(n) for n in names]
        made = [build.name(n) for n in names] + [build.name(n, store=True) for n in names]
        loaded, stored = made[:len(names)], made[len(names):]
        if len(names) > 1:
            made += [gast.Tuple(elts=loaded, ctx=gast.Load()),
                     gast.Tuple(elts=stored, ctx=gast.Store())]
        listed = gast.ListComp(elt=made[-2] if len(names) > 1 else loaded[0], generators=[
            gast.comprehension(target=made[-1] if len(names) > 1 else stored[0], iter=view,
                               ifs=[], is_async=0)])
        for node in made + [listed]:
            gast.copy_location(node, view)          # messages name the user's `d.values()`
        call.args[0] = listed
        return call
