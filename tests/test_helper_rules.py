"""Every helper that a rule's template calls has rules of its own in the other mode, so
derivatives of derivatives (hessian, hvp, grad of grad, grad of jvp) run through it. A helper
without one makes a second derivative refuse, pointing into generated code."""
import re
from pathlib import Path

import gast
import numpy as np
import pytest

from s2s_ad import dispatch, rules, runtime
from s2s_ad.errors import RuleError
from s2s_ad.rules import d

RUNTIME_MODULES = {"s2s_ad.dispatch"}     # besides s2s_ad.runtime.*
PACKAGE = Path(rules.__file__).resolve().parent

# Helpers known to lack the rule of the other mode. This list may only shrink: the test fails
# when a helper in it gains its rule (remove it here) and when a new helper lacks one.
KNOWN_WITHOUT_TANGENT = {
    "einsum_grad_swap", "einsum_swap", "norm_curvature", "norm_slope", "prod_hvp", "jvp_call",
    "jvp_vjp_call", "vjp_call_adjoints",
}
# forward mode differentiates reverse-mode code's dispatch without a rule (`jvp_vjp_call`)
HANDLED_WITHOUT_A_RULE = {"vjp_call"}
KNOWN_WITHOUT_ADJOINT = {
    "cholesky_tangent", "concatenator_tangent", "container_scatter", "einsum_grad_swap",
    "einsum_grad_tangent", "einsum_swap", "einsum_tangent", "norm_direction",
    "norm_direction_tangent", "pick_tangent", "prod_hvp", "prod_others",
    "tangent_cast", "tree_gradient", "jvp_call", "jvp_vjp_call",
    # the SVD's tangent (np.linalg.svd, and the spectral and nuclear norms' direction): grad of
    # jvp through it is refused
    "svd_factors", "svd_factors_tangent", "svd_result_tangent",
    # the same for QR, the pseudo-inverse and least squares
    "qr_factors", "qr_factors_tangent", "qr_result_tangent", "pinv_tangent", "lstsq_tangent",
    # np.linalg.multi_dot's tangents: grad of jvp through multi_dot is refused
    "multi_dot_tangent", "multi_dot_grads_tangent",
}


def _template_helpers(table):
    """The run-time helpers the templates in `table` call."""
    found = set()
    for rule in list(table.values()):
        for node in gast.walk(rule.node):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
                obj = rule.globals.get(node.func.id)
                module = getattr(obj, "__module__", None) or ""
                if module in RUNTIME_MODULES or module.startswith("s2s_ad.runtime."):
                    found.add(obj)
    return found


def _emitted_helpers():
    """Helpers the modes emit into generated code directly (`self.helper(runtime.snapshot)`)."""
    modules = {"runtime": runtime, "dispatch": dispatch}
    found = set()
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        for owner, name in re.findall(r"helper\((runtime|dispatch)\.(\w+)\)", text):
            found.add(getattr(modules[owner], name))
    found.add(dispatch.vjp_call)
    return found


def _missing(helpers, other_rule):
    return {h.__name__ for h in helpers
            if other_rule(h) is None and not rules.is_non_differentiable(h)}


def test_helpers_of_adjoint_templates_have_tangent_rules():
    rules.load_templates()
    helpers = _template_helpers(rules.ADJOINTS) | _emitted_helpers()
    missing = _missing(helpers, rules.tangent_rule) - HANDLED_WITHOUT_A_RULE
    assert missing == KNOWN_WITHOUT_TANGENT


def test_helpers_of_tangent_templates_have_adjoint_rules():
    rules.load_templates()
    helpers = _template_helpers(rules.TANGENTS) | _emitted_helpers()
    assert _missing(helpers, rules.adjoint_rule) == KNOWN_WITHOUT_ADJOINT


def test_a_shipped_table_may_not_register_a_key_twice():
    """A second rule for a key would silently replace the first: the tables refuse it."""
    import types
    rules.load_templates()
    shipped = types.ModuleType("s2s_ad.templates.second_table")

    def second(y, x):
        d[x] = d[y]
    second.__module__ = shipped.__name__
    with pytest.raises(RuleError, match="a second rule for tanh"):
        rules.adjoint(np.tanh)(second)
    assert rules.adjoint_rule(np.tanh).template.__module__ == "s2s_ad.templates.elementwise"
