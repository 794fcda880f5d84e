"""GuardMethodOwners: `o.m(v)` read as the array method `m` where `o` may be something else.

A call on a local name (`np.sum(x)` where `np` is a parameter, `xp.dot(a, b)`) is differentiated
with the rule of the array method of that name, which reads `o` as the array and the
arguments as the method's (`axis` for `sum`). That fits when `o` is an array. Where `o` may
be something else, transform time cannot tell: the derivative checks `o` when it runs
(`check_method_owner(o, 'm', 'file:line:col')`), so a module or other object is refused at
the user's line instead of giving a wrong derivative. That is where `o` does not depend on
what is differentiated but an argument does (`xp.sum(x)`, a zero derivative otherwise), and
where `o` carries a derivative but may not be an array (analysis.array_owners: a dataclass
whose own `sum` the rule would read as the array's). Reading an array attribute of such an
`o` (`p.T`, `p.shape`) is checked the same way (`check_attribute_owner`)."""
import gast
import numpy as np

from .. import build, rules, runtime
from ..analysis.activity import assigned_names
from ..analysis.call_results import method_of_a_user_class
from ..analysis.primitives import classify
from ..traversal import rewrite_each_block, walk_statements


def guard_method_owners(parsed, body, local_names, varied, inserted_check, sure_arrays):
    """`body` with a check before each call of a method with a rule (or read of an attribute
    with one: `p.T`) on an owner that does not vary while one of its arguments does, or
    that varies and may not be an array
    (`sure_arrays()`: the names that surely hold arrays or numbers; `inserted_check(f)` names
    the run-time check `f` in the code); an owner checked
    earlier in the same block, not bound again since, is not checked twice."""
    owners, sure = {}, None
    for statement in walk_statements(body):
        if not isinstance(statement, (gast.Assign, gast.Expr)) or \
                not isinstance(statement.value, (gast.Call, gast.Attribute)):
            continue
        primitive = classify(statement.value, parsed, local_names)
        key = primitive.key
        if not isinstance(key, (rules.method, rules.attribute)) or \
                not isinstance(primitive.args[0], gast.Name):
            continue
        owner, operands = primitive.args[0].id, primitive.args[1:] + list(primitive.keywords.values())
        if owner in varied:
            sure = sure_arrays() if sure is None else sure
            if owner in sure:
                continue
        elif not any(isinstance(a, gast.Name) and a.id in varied for a in operands):
            continue
        if isinstance(key, rules.attribute):
            if not hasattr(np.ndarray, key.name):
                continue                 # a field of a record (`p.W`), read as one
        elif rules.adjoint_rule(key) is None and rules.tangent_rule(key) is None or \
                method_of_a_user_class(primitive, parsed):
            continue                     # no method rule: run-time dispatch reads the callee
        line, col = parsed.location(statement.value)
        where = f"{parsed.filename}:{line}:{col + 1}"
        check = inserted_check(runtime.check_attribute_owner if isinstance(key, rules.attribute)
                               else runtime.check_method_owner)
        owners[id(statement)] = (owner, f"{check}({owner}, {key.name!r}, {where!r})")
    return rewrite_each_block(body, lambda block: _checked(block, owners)) if owners else body


def _checked(block, owners):
    out, checked = [], set()
    for statement in block:
        owner, check = owners.get(id(statement), (None, None))
        if owner is not None and owner not in checked:
            out.append(gast.copy_location(build.quote(check)[0], statement))
            checked.add(owner)
        out.append(statement)
        checked -= set(assigned_names([statement]))
    return out
