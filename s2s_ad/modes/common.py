"""What both modes' emitters ask the same way: the function's final return, and the refusal of
a call that has no rule."""
import gast

from ..errors import NoDerivativeRule


def split_return(parsed, body):
    """(the body before the final `return`, the returned expression); refused without one."""
    body = list(body)
    if not body or not isinstance(body[-1], gast.Return):
        raise parsed.error(parsed.node, f"{parsed.name} has no return value",
                           hint="return the value to differentiate")
    return body[:-1], body[-1].value


def no_rule_error(parsed, node, label, mode):
    """The refusal of `label` at `node`: no adjoint (mode 'reverse') or tangent registered."""
    kind, where = ("adjoint", "") if mode == "reverse" else ("tangent", " in forward mode")
    return parsed.error(
        node, f"cannot differentiate through {label}{where} (no {kind} registered)",
        hint=f"register one with @s2s_ad.{kind}, or wrap the value in "
             f"s2s_ad.stop_gradient(...) if it should be a constant",
        kind=NoDerivativeRule)
