"""GuardMethodOwners: `o.m(v)` read as the array method `m` where `o` may be something else.

A call on a local name (`np.sum(x)` where `np` is a parameter, `xp.dot(a, b)`) is differentiated
with the rule of the array method of that name, which reads `o` as the array and the
arguments as the method's (`axis` for `sum`). That fits when `o` is an array. Where `o` does
not depend on what is differentiated but an argument does, transform time cannot tell: the
derivative checks `o` when it runs (`check_method_owner(o, 'm', 'file:line:col')`), so a
module or other object is refused at the user's line instead of giving a zero derivative."""
import gast

from .. import build, rules
from ..analysis.call_results import method_of_a_user_class
from ..analysis.primitives import classify
from ..traversal import rewrite_blocks, walk_statements


def guard_method_owners(parsed, body, local_names, varied, check_name):
    """`body` with a check before each call of a method with a rule on an owner that does not
    vary while one of its arguments does."""
    checks = {}
    for statement in walk_statements(body):
        if not isinstance(statement, (gast.Assign, gast.Expr)) or \
                not isinstance(statement.value, gast.Call):
            continue
        primitive = classify(statement.value, parsed, local_names)
        key = primitive.key
        if not isinstance(key, rules.method) or not isinstance(primitive.args[0], gast.Name):
            continue
        owner, operands = primitive.args[0].id, primitive.args[1:] + list(primitive.keywords.values())
        if owner in varied or not any(isinstance(a, gast.Name) and a.id in varied for a in operands):
            continue
        if rules.adjoint_rule(key) is None and rules.tangent_rule(key) is None or \
                method_of_a_user_class(primitive, parsed):
            continue                     # no method rule: run-time dispatch reads the callee
        line, col = parsed.location(statement.value)
        where = f"{parsed.filename}:{line}:{col + 1}"
        checks[id(statement)] = [gast.copy_location(build.quote(
            f"{check_name}({owner}, {key.name!r}, {where!r})")[0], statement)]
    return rewrite_blocks(body, lambda s: checks.get(id(s), []) + [s]) if checks else body
