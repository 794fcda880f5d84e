"""The rules of templates/scipy_special.py (and the helpers their derivatives call), checked as
tests/test_rules.py checks the core tables: every row in reverse mode and forward mode against
central differences, the vjp/jvp dot-product identity, second order (hvp, forward over the
generated gradient) against central differences of a central-difference gradient, and HIPS
autograd where autograd.scipy has the function. SciPy is optional: its rules are loaded only
once SciPy is imported, and `import s2s_ad` imports none of it."""
import subprocess
import sys
import textwrap
import types
import zlib
from pathlib import Path

import numpy as np
import pytest

special = pytest.importorskip("scipy.special")

import s2s_ad as ad                                                    # noqa: E402
import test_rules as core                                              # noqa: E402
import test_rules_signals as signals                                   # noqa: E402
from fd import assert_close                                            # noqa: E402
from s2s_ad import runtime                                      # noqa: E402
from s2s_ad.errors import NoDerivativeRule, TransformError             # noqa: E402
from rule_coverage import untested_rules
from test_rules import Arg, Const, Row, check_row, check_tangent_row, normal, table  # noqa: E402

RULE_MODULES = ("scipy_special",)
ROOT = Path(__file__).resolve().parent.parent


def uniform(low, high, *shape):
    """A random argument drawn uniformly from [low, high] (inside a function's domain)."""
    return signals.Drawn(f"u({low},{high})", lambda rng, n: rng.uniform(low, high, n), shape)


def pos(*shape):
    return Arg("pos", shape)


def prob(*shape):
    return uniform(0.1, 0.9, *shape)


# ---------------------------------------------------------------------------------------------
# scipy.special, elementwise
# ---------------------------------------------------------------------------------------------
def sp_expit(x): return special.expit(x)
def sp_logit(x): return special.logit(x)
def sp_log_expit(x): return special.log_expit(x)
def sp_erf(x): return special.erf(x)
def sp_erfc(x): return special.erfc(x)
def sp_erfinv(x): return special.erfinv(x)
def sp_ndtr(x): return special.ndtr(x)
def sp_log_ndtr(x): return special.log_ndtr(x)
def sp_gammaln(x): return special.gammaln(x)
def sp_digamma(x): return special.digamma(x)
def sp_entr(x): return special.entr(x)
def sp_polygamma(n, x): return special.polygamma(n, x)
def sp_betaln(a, b): return special.betaln(a, b)
def sp_xlogy(x, y): return special.xlogy(x, y)
def sp_xlog1py(x, y): return special.xlog1py(x, y)
def sp_rel_entr(x, y): return special.rel_entr(x, y)
def gammaln_of_negative(x): return special.gammaln(x - 3.0)          # log|Gamma| between poles
def log_ndtr_tail(x): return special.log_ndtr(x - 12.0)              # into the lower tail


UNARY = [(sp_expit, normal), (sp_logit, prob), (sp_log_expit, normal), (sp_erf, normal),
         (sp_erfc, normal), (sp_erfinv, lambda *s: uniform(-0.9, 0.9, *s)), (sp_ndtr, normal),
         (sp_log_ndtr, normal), (sp_gammaln, pos), (sp_digamma, pos), (sp_entr, pos),
         (gammaln_of_negative, lambda *s: uniform(0.2, 0.8, *s)), (log_ndtr_tail, normal)]
BINARY = [(sp_betaln, pos, pos), (sp_xlogy, normal, pos), (sp_xlog1py, normal, pos),
          (sp_rel_entr, pos, pos)]
SHAPES = [((3, 4), (3, 4)), ((3, 1), (4,)), ((), (4,)), ((), ())]

ELEMENTWISE_ROWS = [
    *[Row(fn, draw(*shape)) for fn, draw in UNARY for shape in [(3, 4), ()]],
    *[Row(fn, dx(*sx), dy(*sy)) for fn, dx, dy in BINARY for sx, sy in SHAPES],
    *[Row(sp_polygamma, Const(n), pos(*shape)) for n in (0, 1, 3) for shape in [(3, 4), ()]],
    Row(sp_polygamma, Const(np.array([[0], [1], [2]]), "n[3,1]"), pos(3, 4)),
]


# ---------------------------------------------------------------------------------------------
# scipy.special: logsumexp (in a and b), softmax, log_softmax
# ---------------------------------------------------------------------------------------------
def sp_logsumexp(a, axis, keepdims): return special.logsumexp(a, axis=axis, keepdims=keepdims)
def logsumexp_default(a): return special.logsumexp(a)
def logsumexp_positional(a): return special.logsumexp(a, 1)
def logsumexp_b(a, b, axis, keepdims):
    return special.logsumexp(a, axis=axis, b=b, keepdims=keepdims)
def logsumexp_no_sign(a, b): return special.logsumexp(a, 0, b, False, False)
def sp_softmax(x, axis): return special.softmax(x, axis=axis)
def softmax_default(x): return special.softmax(x)
def sp_log_softmax(x, axis): return special.log_softmax(x, axis=axis)
def log_softmax_default(x): return special.log_softmax(x)


AXES = [(None, False), (None, True), (0, False), (1, True), (-1, False), ((0, 1), False)]
REDUCTION_ROWS = [
    *[Row(sp_logsumexp, normal(3, 4), Const(axis), Const(keepdims)) for axis, keepdims in AXES],
    Row(sp_logsumexp, normal(2, 3, 4), Const((0, 2)), Const(True)),
    Row(sp_logsumexp, normal(5), Const(0), Const(False)),
    Row(logsumexp_default, normal(3, 4)), Row(logsumexp_default, normal()),
    Row(logsumexp_positional, normal(3, 4)),
    *[Row(logsumexp_b, normal(*sa), pos(*sb), Const(axis), Const(keepdims))
      for sa, sb, axis, keepdims in [((3, 4), (3, 4), 1, False), ((3, 4), (4,), 0, True),
                                     ((3, 4), (3, 1), None, False), ((4,), (3, 4), 1, False),
                                     ((3, 4), (), -1, True), ((1, 4), (3, 1), (0, 1), True)]],
    Row(logsumexp_no_sign, normal(3, 4), pos(3, 4)),
    *[Row(fn, normal(*shape), Const(axis)) for fn in (sp_softmax, sp_log_softmax)
      for shape, axis in [((3, 4), None), ((3, 4), 0), ((3, 4), -1), ((2, 3, 4), (0, 2)),
                          ((5,), 0)]],
    Row(softmax_default, normal(3, 4)), Row(log_softmax_default, normal(4)),
]


# ---------------------------------------------------------------------------------------------
# the helpers that the rules' derivatives call, directly (their own rules: second order)
# ---------------------------------------------------------------------------------------------
def rt_expand_reduced(r, a, b, axis, keepdims):
    return runtime.expand_reduced(r, a, b, axis, keepdims) * 1.0
def rt_exp_weights(a, b, r, axis, keepdims): return runtime.exp_weights(a, b, r, axis, keepdims)
def rt_exp_shares(a, like, r, axis, keepdims): return runtime.exp_shares(a, like, r, axis, keepdims)


def zeros(*shape):
    return Const(np.zeros(shape), f"zeros{list(shape)}")


HELPER_ROWS = [
    Row(rt_expand_reduced, normal(3), zeros(3, 4), Const(None), Const(1), Const(False)),
    Row(rt_expand_reduced, normal(4), zeros(4), zeros(3, 4), Const(0), Const(False)),
    Row(rt_expand_reduced, normal(), zeros(3, 4), Const(None), Const(None), Const(False)),
    Row(rt_expand_reduced, normal(3, 1), zeros(3, 4), Const(None), Const(1), Const(True)),
    Row(rt_exp_weights, normal(3, 4), pos(4), normal(3), Const(1), Const(False)),
    Row(rt_exp_weights, normal(3, 4), Const(None), normal(1, 4), Const(0), Const(True)),
    Row(rt_exp_weights, normal(4), pos(3, 4), normal(), Const(None), Const(False)),
    Row(rt_exp_shares, normal(3, 4), zeros(4), normal(3), Const(1), Const(False)),
    Row(rt_exp_shares, normal(4), zeros(3, 4), normal(1, 4), Const(0), Const(True)),
    Row(rt_exp_shares, normal(1, 4), zeros(3, 4), normal(4), Const(0), Const(False)),
    Row(rt_exp_shares, normal(3, 4), Const(None), normal(), Const(None), Const(False)),
]

ROWS = ELEMENTWISE_ROWS + REDUCTION_ROWS


# every row, four ways: reverse and forward mode against central differences, vjp against jvp
# (<seed, J v> = <J^T seed, v>), and hvp against central differences of a central-difference
# gradient, along a direction in every differentiated argument at once
CHECKS = {"reverse": check_row, "forward": check_tangent_row,
          "transposes": core.test_vjp_and_jvp_are_transposes,
          "second_order": signals.test_second_order}


@pytest.mark.parametrize("check", CHECKS)
@pytest.mark.parametrize("row", table(*ROWS, *HELPER_ROWS))
def test_rule(row, check):
    CHECKS[check](row)


# ---------------------------------------------------------------------------------------------
# HIPS autograd, where autograd.scipy has the function
# ---------------------------------------------------------------------------------------------
AUTOGRAD_ROWS = [
    Row(sp_expit, normal(3, 4)), Row(sp_logit, prob(3, 4)), Row(sp_erf, normal(3, 4)),
    Row(sp_erfc, normal(3, 4)), Row(sp_erfinv, uniform(-0.9, 0.9, 3, 4)),
    Row(sp_gammaln, pos(3, 4)), Row(sp_digamma, pos(3, 4)),
    Row(sp_polygamma, Const(2), pos(3, 4)), Row(sp_betaln, pos(3, 1), pos(4)),
    Row(sp_logsumexp, normal(3, 4), Const(1), Const(True)),
    Row(sp_logsumexp, normal(3, 4), Const(None), Const(False)),
    Row(logsumexp_b, normal(3, 4), Const(np.array([0.5, 2.0, 1.0, 0.3]), "b[4]"), Const(0),
        Const(False)),
]


def _autograd_version(fn):
    """`fn` with `np` and `special` bound to autograd's: derivatives s2s_ad had no part in."""
    anp = pytest.importorskip("autograd.numpy")
    ag_special = pytest.importorskip("autograd.scipy.special")
    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": anp, "special": ag_special},
                              fn.__name__)


# autograd's logsumexp has no derivative in b: b is a constant in the row above
@pytest.mark.parametrize("row", table(*AUTOGRAD_ROWS))
def test_against_autograd(row):
    """The gradient, and the Hessian along a direction (autograd's grad of its grad)."""
    autograd = pytest.importorskip("autograd")
    rng, args, seed, seeded_sum = signals._seeded(row)
    reference = _autograd_version(row.fn)
    k = row.wrt[0]
    _, grads = ad.vjp(row.fn, wrt=core._wrt(row.wrt))(*args, seed=seed)
    grads = grads if len(row.wrt) > 1 else (grads,)
    for j, g in zip(row.wrt, grads):
        expected = autograd.make_vjp(reference, j)(*args)[0](seed)
        assert_close(g, expected, rtol=1e-9, atol=1e-12)
    direction = core._direction(rng, args[k])

    def directional(*a):
        return autograd.numpy.sum(autograd.grad(
            lambda *b: autograd.numpy.sum(reference(*b) * seed), k)(*a) * direction)
    expected = autograd.grad(directional, k)(*args)
    actual = ad.hvp(seeded_sum, wrt=2 + k)(row.fn, seed, *args, vector=direction)
    assert_close(actual, expected, rtol=1e-8, atol=1e-10)


# ---------------------------------------------------------------------------------------------
# every rule of these tables is reached by a row
# ---------------------------------------------------------------------------------------------
def _run_every_row():
    for row in ROWS + HELPER_ROWS:
        wrt = core._wrt(row.wrt)
        ad.source(ad.vjp(row.fn, wrt=wrt))
        ad.source(ad.jvp(row.fn, wrt=wrt))
    for row in ROWS:
        rng, args, seed, seeded_sum = signals._seeded(row)
        wrt = tuple(2 + k for k in row.wrt)
        vector = tuple(core._direction(rng, args[k]) for k in row.wrt)
        ad.hvp(seeded_sum, wrt=wrt)(row.fn, seed, *args, vector=vector)


def test_every_rule_in_these_templates_has_a_row(monkeypatch):
    """An adjoint or tangent rule added to the SciPy tables without a row that reaches it
    fails here."""
    untested = untested_rules(monkeypatch, RULE_MODULES, _run_every_row)
    assert not untested, f"rules without a row: {untested}"
    assert {f"s2s_ad.templates.{name}" for name in RULE_MODULES} <= set(sys.modules)


# ---------------------------------------------------------------------------------------------
# what the rules do not differentiate is refused, never differentiated wrongly
# ---------------------------------------------------------------------------------------------
def logsumexp_with_sign(a): return special.logsumexp(a, return_sign=True)[0]
def polygamma_in_order(n, x): return np.sum(special.polygamma(n, x))
def no_rule_ufunc(x):
    y = np.sin(x)
    return np.sum(special.i0e(y))
def no_rule_python_function(x):
    y = x * 2.0
    return np.sum(special.spherical_jn(1, y))


TRANSFORMS = {"reverse": lambda fn, x: ad.grad(fn)(x),
              "forward": lambda fn, x: ad.jvp(fn)(x, tangent=np.ones_like(x))}


@pytest.mark.parametrize("mode", TRANSFORMS)
def test_logsumexp_return_sign_is_refused_at_transform_time(mode):
    with pytest.raises(TransformError, match="`return_sign`"):
        TRANSFORMS[mode](logsumexp_with_sign, np.array([0.3, -1.0, 2.0]))


def test_polygamma_is_not_differentiated_in_its_order():
    x = np.array([0.5, 1.5])
    with pytest.raises(NotImplementedError, match="order n"):
        ad.grad(polygamma_in_order, wrt=(0, 1))(1.0, x)
    with pytest.raises(NotImplementedError, match="order n"):
        ad.jvp(polygamma_in_order, wrt=0)(1.0, x, tangent=1.0)


@pytest.mark.parametrize("mode", TRANSFORMS)
@pytest.mark.parametrize("fn, name", [(no_rule_ufunc, "special.i0e"),
                                      (no_rule_python_function, "special.spherical_jn")])
def test_a_scipy_function_without_a_rule_is_refused_at_the_users_line(mode, fn, name):
    """Not somewhere inside SciPy's source: SciPy's Python functions are not read."""
    with pytest.raises(NoDerivativeRule) as info:
        TRANSFORMS[mode](fn, np.array([0.3, 1.2]))
    line = fn.__code__.co_firstlineno + 2
    assert f"test_rules_scipy.py:{line}:" in str(info.value) and name in str(info.value)


def log_ndtr_far(x): return np.sum(special.log_ndtr(x))


def test_log_ndtr_far_into_the_lower_tail():
    """Where the density and the distribution function are both below the smallest float, the
    slope of log ndtr is the inverse of Mills' ratio, 1 / (1/t - 1/t^3 + 3/t^5 - 15/t^7 ...)."""
    x = np.array([-40.0, -60.0])
    t = -x
    mills = 1 / t - 1 / t ** 3 + 3 / t ** 5 - 15 / t ** 7 + 105 / t ** 9
    assert_close(ad.grad(log_ndtr_far)(x), 1 / mills, rtol=1e-12)
    assert_close(ad.jvp(log_ndtr_far)(x, tangent=np.ones(2))[1], np.sum(1 / mills), rtol=1e-12)


def test_a_rule_takes_precedence_over_the_python_source():
    """scipy.special.logsumexp is a Python function (with a `with` block s2s_ad refuses): its
    rule is used, and the derivative code calls no generated derivative of SciPy's source."""
    source = ad.source(ad.grad(logsumexp_default))
    assert "exp_weights(" in source and "vjp_logsumexp(" not in source
    x = np.array([0.3, -1.0, 2.0])
    assert_close(ad.grad(logsumexp_default)(x), special.softmax(x), rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# SciPy stays optional: loaded only once it is imported
# ---------------------------------------------------------------------------------------------
@pytest.fixture
def run(tmp_path):
    """Runs a program in a new interpreter (from a file: s2s_ad reads its functions' source)."""
    def run_program(program):
        path = tmp_path / "program.py"
        path.write_text(textwrap.dedent(program))
        result = subprocess.run([sys.executable, str(path)], cwd=ROOT, capture_output=True,
                                text=True, env={"PYTHONPATH": str(ROOT), "PATH": ""})
        assert result.returncode == 0, result.stderr
        return result.stdout
    return run_program


def test_importing_s2s_ad_imports_no_scipy(run):
    run("""
        import sys
        import numpy as np
        import s2s_ad as ad
        assert "scipy" not in sys.modules
        def f(x):
            return np.sum(np.tanh(x) ** 2)
        ad.grad(f)(np.ones(3))
        ad.jvp(f)(np.ones(3), tangent=np.ones(3))
        ad.hvp(f)(np.ones(3), vector=np.ones(3))
        from s2s_ad import coverage
        coverage.coverage_rows()
        assert "scipy" not in sys.modules, sorted(m for m in sys.modules if "scipy" in m)
    """)


def test_scipy_imported_after_a_first_transform_finds_its_rules(run):
    run("""
        import numpy as np
        import s2s_ad as ad
        ad.grad(lambda x: np.sum(x * x))(np.ones(2))      # the NumPy tables are loaded
        from scipy import special
        def f(x):
            return np.sum(special.expit(x))
        y = special.expit(np.array([0.5, -1.0]))
        assert np.allclose(ad.grad(f)(np.array([0.5, -1.0])), y * (1 - y))
    """)


def test_a_users_rule_registered_before_the_scipy_table_loads_stays(run):
    run("""
        import numpy as np
        import s2s_ad as ad
        from scipy import special
        @ad.adjoint(special.expit)
        def _(y, x):
            d[x] = d[y] * 5.0
        def f(x):
            return np.sum(special.expit(x))
        assert np.allclose(ad.grad(f)(np.array([0.5, -1.0])), 5.0)
        y = special.expit(np.array([0.5, -1.0]))
        _, t = ad.jvp(f)(np.array([0.5, -1.0]), tangent=np.ones(2))   # the shipped tangent
        assert np.isclose(t, np.sum(y * (1 - y)))
    """)
