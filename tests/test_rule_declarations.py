"""Rules declared once for both modes (rules.elementwise, linear, bilinear, transposes): the
template each mode derives is the one a hand-written rule would be, and a declaration that does
not fit its kind is refused. (tests/test_rules.py checks the derivatives themselves.)"""
import ast
import operator

import gast
import numpy as np
import pytest

from s2s_ad import rules, runtime
from s2s_ad.errors import RuleError
from s2s_ad.rules import d


def _body(rule):
    """The derived template's statements, as source."""
    module = gast.gast_to_ast(gast.Module(body=rule.node.body, type_ignores=[]))
    return ast.unparse(ast.fix_missing_locations(module))


@pytest.mark.parametrize("table, primal, expected", [
    # linear: the function itself applied to the tangent, by keyword where the table says so
    ("tangent", np.sum, "d[y] = np.sum(d[x], axis=axis, keepdims=keepdims)"),
    ("tangent", np.flip, "d[y] = np.flip(d[m], axis)"),
    ("tangent", runtime.scatter, "d[y] = scatter(x, index, d[g])"),
    # bilinear: one term per factor, an operator spelled as the operator
    ("tangent", np.dot, "d[z] = np.dot(d[x], y) + np.dot(x, d[y])"),
    ("tangent", operator.matmul, "d[z] = d[x] @ y + x @ d[y]"),
    # elementwise, several inputs: unbroadcast each adjoint; a term that may be smaller than
    # the result is broadcast to it; a leading minus becomes a subtraction
    ("adjoint", np.add, "d[x] = unbroadcast(d[z], x)\nd[y] = unbroadcast(d[z], y)"),
    ("tangent", np.subtract, "d[z] = broadcast_like(d[x], z) - broadcast_like(d[y], z)"),
    ("tangent", np.arctan2, "d[z] = d[y] * x / (x * x + y * y) - d[x] * y / (x * x + y * y)"),
    ("tangent", np.maximum, "d[z] = d[x] * tie_share(x, y) + d[y] * tie_share(y, x)"),
    # elementwise, one input: no unbroadcast, the sign left where it is
    ("adjoint", np.cos, "d[x] = -d[y] * np.sin(x)"),
    # transposes: the partner's adjoint is the first helper, each tangent itself
    ("adjoint", runtime.transpose_by, "d[g] = untranspose(d[y], axes)"),
    ("tangent", runtime.transpose_by, "d[y] = transpose_by(d[g], axes)"),
])
def test_derived_template(table, primal, expected):
    lookup = rules.adjoint_rule if table == "adjoint" else rules.tangent_rule
    assert _body(lookup(primal)) == expected


def test_a_helper_the_table_does_not_import_is_called_by_its_own_name():
    rule = rules.tangent_rule(runtime.snapshot)
    assert _body(rule) == "d[y] = snapshot(d[value])"
    assert rule.globals["snapshot"] is runtime.snapshot


def first(x, y):
    return x


def second(x, y):
    return x


@pytest.fixture
def clean_tables():
    yield
    for table in (rules.ADJOINTS, rules.TANGENTS):
        for primal in (first, second):
            table.pop(primal, None)


def test_a_linear_rule_writing_two_inputs_is_refused(clean_tables):
    @rules.linear(first)
    def _(z, x, y):
        d[x] = d[z]
        d[y] = d[z]
    with pytest.raises(RuleError, match="linear in 1 input"):
        rules.tangent_rule(first).node


def test_a_pair_of_transposes_whose_template_is_not_the_partner_call_is_refused(clean_tables):
    @rules.transposes(first, second)
    def _(z, x, y):
        d[x] = second(d[z], 2 * y)
    with pytest.raises(RuleError, match="pair of transposes"):
        rules.adjoint_rule(second).node
