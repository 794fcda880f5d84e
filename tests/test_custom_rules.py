"""Custom rules registered with @s2s_ad.adjoint: validated, and used wherever the function is called."""
import math

import numpy as np
import pytest

import custom_rule_programs as C
import s2s_ad as ad
import s2s_ad.rules
from s2s_ad import d
from s2s_ad.errors import NoDerivativeRule
from fd import assert_close, numerical_grad

needs_scipy = pytest.mark.skipif(C.scipy is None, reason="scipy is not installed")


def stable_sigmoid(x):
    return 0.5 * (1 + np.tanh(x / 2))


@pytest.fixture(scope="module", autouse=True)
def rules():
    s2s_ad.rules.load_templates()     # the shipped rules these replace (scipy.special.ndtr's)
    shipped = {primal: s2s_ad.rules.ADJOINTS.get(primal) for primal in
               [C.softplus, math.erf] + ([C.scipy.special.ndtr] if C.scipy is not None else [])}

    @ad.adjoint(C.softplus)
    def _(y, x):
        d[x] = d[y] * stable_sigmoid(x)

    @ad.adjoint(math.erf)
    def _(y, x):
        d[x] = d[y] * 2 / math.sqrt(math.pi) * math.exp(-x * x)

    primals = [C.softplus, math.erf]
    if C.scipy is not None:
        primals.append(C.scipy.special.ndtr)

        @ad.adjoint(C.scipy.special.ndtr)
        def _(y, x):
            d[x] = d[y] * np.exp(-x * x / 2) / np.sqrt(2 * np.pi)

    yield
    for primal in primals:      # leave no rule behind for other tests, and the shipped ones
        s2s_ad.rules.ADJOINTS.pop(primal, None)
        if shipped[primal] is not None:
            s2s_ad.rules.ADJOINTS[primal] = shipped[primal]
    ad.clear_cache()


def test_rule_replaces_the_source_of_a_user_function():
    source = ad.source(ad.grad(C.uses_softplus))
    assert "stable_sigmoid" in source and "vjp_softplus" not in source
    x = np.array([-3.0, 0.5, 2.0])
    assert_close(ad.grad(C.uses_softplus)(x), numerical_grad(C.uses_softplus, [x], 0))


def test_stable_rule_stays_finite_where_the_naive_derivative_overflows():
    with np.errstate(over="ignore"):
        g = ad.grad(C.uses_softplus)(np.array([800.0]))
    assert np.isfinite(g).all() and np.allclose(g, 2.0)


def test_rule_is_used_inside_callees():
    x = np.array([-1.0, 0.3, 1.7])
    assert_close(ad.grad(C.calls_helper)(x), numerical_grad(C.calls_helper, [x], 0))
    assert "stable_sigmoid" in ad.source(ad.grad(C.helper_that_uses_softplus))


@pytest.mark.parametrize("x", [-0.7, 0.5, 1.2])
def test_rule_for_a_builtin_without_python_source(x):
    assert_close(ad.grad(C.uses_erf)(x), numerical_grad(C.uses_erf, [x], 0), rtol=1e-6)


@needs_scipy
def test_rule_for_a_scipy_ufunc():
    x = np.array([-0.7, 0.5, 1.2])
    assert_close(ad.grad(C.uses_ndtr)(x), numerical_grad(C.uses_ndtr, [x], 0), rtol=1e-6)


def test_a_builtin_without_source_or_rule_is_refused_clearly():
    with pytest.raises(ad.TransformError, match="lgamma") as info:
        ad.grad(C.uses_lgamma_without_rule)(1.5)
    assert "custom_rule_programs.py:" in str(info.value)
    assert "@s2s_ad.adjoint" in str(info.value)


@needs_scipy
def test_a_scipy_ufunc_without_rule_is_refused_clearly():
    with pytest.raises(ad.TransformError, match="loggamma") as info:
        ad.grad(C.uses_gammaln_without_rule)(np.array([1.5]))
    assert "custom_rule_programs.py:" in str(info.value)
    assert "@s2s_ad.adjoint" in str(info.value)


def test_a_rule_whose_parameters_do_not_match_is_rejected_when_registered():
    with pytest.raises(ad.TransformError, match=r"takes parameters \(a\).*takes \(x\)") as info:
        @ad.adjoint(C.softplus)
        def _(y, a):
            d[a] = d[y]
    assert "test_custom_rules.py:" in str(info.value)
    assert "def _(result, x)" in str(info.value)


def test_registering_a_rule_refreshes_cached_derivatives():
    x = np.array([0.2, 0.4])
    before = ad.grad(C.uses_expm1)
    before(x)
    original = s2s_ad.rules.adjoint_rule(np.expm1)

    @ad.adjoint(np.expm1)
    def _(y, x):
        d[x] = d[y] * 0.0           # deliberately different, to see it take effect

    try:
        assert_close(ad.grad(C.uses_expm1)(x), np.zeros(2))
    finally:
        s2s_ad.rules.ADJOINTS[np.expm1] = original
        ad.clear_cache()
    assert_close(ad.grad(C.uses_expm1)(x), np.exp(x))


def test_a_tangent_rule_whose_parameters_do_not_match_is_rejected_when_registered():
    with pytest.raises(ad.TransformError, match=r"takes parameters \(a\).*takes \(x\)") as info:
        @ad.tangent(C.softplus)
        def _(y, a):
            d[y] = d[a]
    assert "test_custom_rules.py:" in str(info.value)


def test_a_tangent_rule_is_used_by_jvp():
    @ad.tangent(C.softplus)
    def _(y, x):
        d[y] = d[x] * stable_sigmoid(x)

    try:
        x, v = np.array([-3.0, 0.5, 800.0]), np.array([1.0, -2.0, 0.5])
        with np.errstate(over="ignore"):
            _, t = ad.jvp(C.uses_softplus)(x, tangent=v)
        assert np.isfinite(t) and np.isclose(t, np.sum(2 * v * stable_sigmoid(x)))
    finally:
        s2s_ad.rules.TANGENTS.pop(C.softplus, None)
        ad.clear_cache()


def test_a_rule_takes_the_defaults_of_the_function_it_replaces():
    """`def _(y, x, factor)` for `scaled(x, factor=2.0)`: the call `scaled(x)` fits the rule,
    with factor=2.0, in both modes."""
    @ad.adjoint(C.scaled)
    def _(y, x, factor):
        d[x] = d[y] * factor

    @ad.tangent(C.scaled)
    def _(y, x, factor):
        d[y] = d[x] * factor

    try:
        f = C.uses_scaled_with_and_without_the_default
        x, v = np.array([0.3, -1.2]), np.array([1.0, 0.5])
        expected = numerical_grad(f, [x], 0)
        assert "vjp_scaled" not in ad.source(ad.grad(f))
        assert_close(ad.grad(f)(x), expected)
        assert_close(ad.jvp(f)(x, tangent=v)[1], expected @ v)
    finally:
        s2s_ad.rules.ADJOINTS.pop(C.scaled, None)
        s2s_ad.rules.TANGENTS.pop(C.scaled, None)
        ad.clear_cache()


def test_a_tangent_term_reading_a_missing_tangent_beside_a_present_one_keeps_the_present_one():
    """`np.cumsum(d[b] + d[a] * 2)` with b constant: the term is linear in both tangents
    together, so the missing one is a zero inside it, not a reason to drop the term."""
    @ad.tangent(C.running_blend)
    def _(y, a, b):
        d[y] = np.cumsum(d[b] + d[a] * 2.0)

    try:
        f = C.blends_with_a_constant
        x, v = np.array([0.3, -1.2, 0.5]), np.array([1.0, 0.5, -2.0])
        assert_close(ad.jvp(f)(x, tangent=v)[1], numerical_grad(f, [x], 0) @ v)
    finally:
        s2s_ad.rules.TANGENTS.pop(C.running_blend, None)
        ad.clear_cache()


@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_a_rule_without_the_derivative_of_a_varied_argument_is_refused(mode):
    """A rule with no `d[b]` line would give b's derivative as zero without a word: refused at
    the user's call, with the fix; stop_gradient (the hint) makes the zero deliberate."""
    if mode == "reverse":
        @ad.adjoint(C.weighted)
        def _(y, a, b):
            d[a] = d[y] * b
    else:
        @ad.tangent(C.weighted)
        def _(y, a, b):
            d[y] = d[a] * b

    table = s2s_ad.rules.ADJOINTS if mode == "reverse" else s2s_ad.rules.TANGENTS
    x = np.array([0.5, -1.0, 2.0])
    derivative = {"reverse": lambda f: ad.grad(f)(x),
                  "forward": lambda f: ad.jvp(f)(x, tangent=np.ones(3))[1]}[mode]
    try:
        with pytest.raises(NoDerivativeRule, match="no derivative with respect to `b`") \
                as info:
            derivative(C.uses_weighted)
        assert info.value.filename == C.__file__ and "weighted(x, x ** 2)" in info.value.source_line
        assert "stop_gradient" in info.value.hint
        expected = x ** 2 if mode == "reverse" else np.sum(x ** 2)
        assert_close(derivative(C.uses_weighted_with_a_stopped_weight), expected)
    finally:
        table.pop(C.weighted, None)
        ad.clear_cache()
