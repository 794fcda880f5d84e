"""LowerRecordConstructors: a namedtuple or dataclass built in the function (issue 15).

    p = Point(np.sin(x), b=x * 2.0)       p = make_record(Point, (np.sin(x), x * 2.0))

The call is bound to the class's fields in order (a default the call leaves out is bound as a
constant); `make_record` has rules (templates/containers.py) whose adjoint and tangent are the
list of one entry a field that a record parameter's are, so `p.a` reads it as it reads one.
A dataclass with `__post_init__`, a field it does not take in `__init__`, or a call that does
not bind (Python's TypeError) is left as written (refused: no rule for the class)."""
import dataclasses
import inspect

import gast

from .. import build, runtime
from .call_lowering import CallLowering, located


def record_class(value):
    """Is `value` a namedtuple class or a dataclass whose `__init__` only stores its fields?"""
    if not isinstance(value, type):
        return False
    if issubclass(value, tuple) and isinstance(getattr(value, "_fields", None), tuple):
        return True
    return _generated_init(value)


def _generated_init(value):
    """A dataclass whose `__init__` `dataclasses` wrote (not one of the user's), taking every
    field and running no `__post_init__`."""
    if not dataclasses.is_dataclass(value) or hasattr(value, "__post_init__") or not all(
            f.init for f in dataclasses.fields(value)):
        return False
    init = value.__dict__.get("__init__")
    code = getattr(init, "__code__", None)
    return code is not None and code.co_filename == "<string>"      # made by dataclasses


class LowerRecordConstructors(CallLowering):
    """A CallLowering; `bind` holds `make_record` and the defaults."""

    def lowered(self, call):
        cls = self.static(call.func)
        if not record_class(cls) or any(isinstance(a, gast.Starred) for a in call.args) \
                or any(k.arg is None for k in call.keywords):
            return call
        try:
            bound = inspect.signature(cls).bind(*call.args, **{k.arg: k.value
                                                               for k in call.keywords})
        except (TypeError, ValueError):
            return call
        bound.apply_defaults()
        values = [v if isinstance(v, gast.AST) else build.name(self.bind(f"{cls.__name__}_{n}", v))
                  for n, v in bound.arguments.items()]
        maker = self.bind("make_record", runtime.make_record)
        return located(gast.Call(func=build.name(maker), args=[
            build.clone(call.func), gast.Tuple(elts=values, ctx=gast.Load())], keywords=[]), call)
