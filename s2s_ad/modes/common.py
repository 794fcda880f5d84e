"""What both modes' emitters hold and ask the same way: the function they build from, its
final return, the refusal of a call that has no rule, and the copies of the arguments the
function writes into."""
import builtins
import linecache

import gast

from .. import build, rules, runtime
from ..analysis.activity import assigned_names
from ..analysis.container_kinds import container_kinds
from ..errors import NoDerivativeRule
from ..frontend.source_text import derived_from
from ..generated_globals import GlobalNames
from ..instantiate import BINDING_HINT
from ..passes.guard_key_loops import guard_key_loops, known_sequences
from ..passes.lower_dict_views import view_hint


class Transform(GlobalNames):
    """A derivative being built from a normal-form `body` of `parsed` with `params`, with
    respect to `wrt`; `kinds` are what the arguments were at the first call, if known."""

    def __init__(self, parsed, body, params, wrt, namer, globals_, kinds=None):
        self.parsed = parsed
        self.body = body
        self.params = params
        self.wrt = wrt
        self.namer = namer
        self.globals = globals_           # name -> object the generated code needs
        self.local_names = set(params) | set(assigned_names(body))
        self.kinds = kinds
        self.function_name = None

    def guard_key_loops(self, body):
        """`body` with a run-time check before each loop whose active target may walk a
        dict's keys (passes/guard_key_loops.py)."""
        containers = container_kinds(body, self.params, self.parsed.namespace)
        sequences = known_sequences(self.params, self.kinds, containers)
        return guard_key_loops(self.parsed, body, self.activity.active, sequences,
                               self.inserted_check(runtime.check_not_mapping))


def copies_of_written_arguments(transform, writes):
    """`a = own_copy(a, 'a', 'file:line:col', b=b)` for each parameter `a` that `writes`
    ({parameter: its first in-place write}) names, in parameter order: the caller's arrays
    never change, and another argument that is the same array is refused (`f(t, t)`)."""
    code = []
    helper = transform.helper(runtime.own_copy) if writes else None
    for param in transform.params:
        if param not in writes:
            continue
        line, col = transform.parsed.location(writes[param])
        where = f"{transform.parsed.filename}:{line}:{col + 1}"
        others = ", ".join(f"{p}={p}" for p in transform.params if p != param)
        code += build.quote(f"{param} = {helper}({param}, {param!r}, {where!r}"
                            + (f", {others})" if others else ")"))
    return code


def split_return(parsed, body):
    """(the body before the final `return`, the returned expression); refused without one."""
    body = list(body)
    if not body or not isinstance(body[-1], gast.Return):
        raise parsed.error(parsed.node, f"{parsed.name} has no return value",
                           hint="return the value to differentiate")
    return body[:-1], body[-1].value


def no_rule_error(parsed, node, label, mode, key=None):
    """The refusal of `label` at `node`: no adjoint (mode 'reverse') or tangent registered.
    In a derivative s2s_ad wrote, a helper of its rules is refused at the user's line."""
    kind, where = ("adjoint", "") if mode == "reverse" else ("tangent", " in forward mode")
    helper = (getattr(key, "__module__", None) or "").startswith("s2s_ad.")
    origin = derived_from(parsed.filename, parsed.location(node)[0]) if parsed.generated and \
        helper else None
    if origin is not None:
        filename, line, text = origin
        return NoDerivativeRule(
            f"cannot differentiate `{text}` this many times: the derivative s2s_ad wrote for "
            f"it calls {label}, which has no {kind} of its own",
            filename=filename, lineno=line, col=0,
            source_line=linecache.getline(filename, line).rstrip("\n"),
            hint="differentiate it fewer times (see docs/numpy_coverage.md for the orders each "
                 "rule reaches), or give the function that calls it a rule of its own with "
                 "@s2s_ad.adjoint and @s2s_ad.tangent")
    hint = view_hint(key, f"register one with @s2s_ad.{kind}, or wrap the value in "
                          f"s2s_ad.stop_gradient(...) if it should be a constant")
    if key is builtins.zip:         # differentiated as the loop it stands for, only there
        hint = ("zip in a loop's header (`for a, b in zip(xs, ys):`), unpacked (`a, b = "
                "zip(*rows)`) or read at once (`list(zip(xs, ys))`), with each list passed "
                "by itself or `*rows` of a list written out (`rows = [xs, ys]`)")
    return parsed.error(
        node, f"cannot differentiate through {label}{where} (no {kind} registered)",
        hint=hint,
        kind=NoDerivativeRule)


def refuse_ignored_derivatives(parsed, node, primitive, rule, bindings, carries_derivative,
                               mode):
    """Refuse a rule that would drop the derivative of an operand: the rule has no `d[p]` for a
    parameter bound to an operand that depends on the inputs. Rules of s2s_ad's own run-time
    helpers read many operands only for their shape; their rules are checked by tests."""
    module = getattr(rule.key, "__module__", None) or ""
    if module.startswith("s2s_ad.runtime") or module == "s2s_ad.dispatch":
        return
    if isinstance(primitive.key, rules.method) and primitive.args \
            and not carries_derivative(primitive.args[0]):
        return      # `m.sum(v)` on a constant owner may be a module's function: checked as it runs
    ignored = rules.ignored_parameters(rule, bindings, carries_derivative)
    if not ignored:
        return
    kind = "adjoint" if mode == "reverse" else "tangent"
    names = ", ".join(f"`{name}`" for name in ignored)
    raise parsed.error(
        node, f"the {kind} rule for {primitive.label} gives no derivative with respect to "
              f"{names}, which depends on the differentiated inputs here",
        hint=f"add a `d[{ignored[0]}] = ...` line to the rule, or wrap that argument in "
             f"s2s_ad.stop_gradient(...) if its derivative should be zero",
        kind=NoDerivativeRule)


def binding_error(parsed, node, primitive, error, kind="rule"):
    """The refusal of a call that does not fit its rule's signature (`error`, a BindingError).
    A call on a local name is read as an array method: where the name holds a module instead
    (`m.dot(x, y)` with `m` a parameter), the mismatch says so in the hint."""
    hint = error.hint or BINDING_HINT
    owner = primitive.args[0] if primitive.args else None
    if isinstance(primitive.key, rules.method) and isinstance(owner, gast.Name):
        name = parsed.describe(owner.id)
        hint = (f"{hint}; if `{name}` holds a module, call `{primitive.key.name}` through a "
                f"module imported at the top of the file: s2s_ad reads `{name}."
                f"{primitive.key.name}(...)` as the method of an array")
    return parsed.error(node, f"the {kind} for {primitive.label} does not accept these "
                        f"arguments: {error}", hint=hint)
