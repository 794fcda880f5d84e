"""The rules of templates/scipy_special.py and scipy_stats.py (and of the helpers their
derivatives call), checked as
tests/test_rules.py checks the core tables: every row in reverse mode and forward mode against
central differences, the vjp/jvp dot-product identity, second order (hvp, forward over the
generated gradient) against central differences of a central-difference gradient, and HIPS
autograd where autograd.scipy has the function. SciPy is optional: its rules are loaded only
once SciPy is imported, and `import s2s_ad` imports none of it."""
import importlib
import subprocess
import sys
import textwrap
import types
import zlib
from pathlib import Path

import numpy as np
import pytest

special = importlib.import_module("scipy.special")
stats = importlib.import_module("scipy.stats")

import s2s_ad as ad                                                    # noqa: E402
import test_rules as core                                              # noqa: E402
import test_rules_signals as signals                                   # noqa: E402
from installed import environment
from fd import assert_close, numerical_grad                                         # noqa: E402
from s2s_ad import runtime                                      # noqa: E402
from s2s_ad.errors import NoDerivativeRule, TransformError             # noqa: E402
from rule_coverage import rows_built, untested_rules
from test_rules import Arg, Const, Row, check_row, check_tangent_row, normal, table  # noqa: E402

RULE_MODULES = ("scipy_special", "scipy_stats")
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
# scipy.stats: methods of the distribution objects, in every non-integer argument
# ---------------------------------------------------------------------------------------------
def norm_logpdf(x, loc, scale): return stats.norm.logpdf(x, loc, scale)
def norm_pdf(x, loc, scale): return stats.norm.pdf(x, loc, scale)
def norm_cdf(x, loc, scale): return stats.norm.cdf(x, loc, scale)
def norm_logcdf(x, loc, scale): return stats.norm.logcdf(x, loc, scale)
def norm_keywords(x, loc, scale):
    return (stats.norm.logpdf(x, loc=loc, scale=scale) + stats.norm.pdf(x, scale=scale, loc=loc)
            + stats.norm.cdf(x, loc, scale=scale) * stats.norm.logcdf(x, loc=loc, scale=scale))
def norm_default(x):
    return stats.norm.logpdf(x) + stats.norm.pdf(x) + stats.norm.cdf(x) * stats.norm.logcdf(x)
def norm_scale_only(x, scale): return stats.norm.logpdf(x, scale=scale) * stats.norm.cdf(x, scale=scale)
def norm_logcdf_tail(x): return stats.norm.logcdf(x - 5.0, 0.5, 2.0 / 3.0)
def t_logpdf(x, df, loc, scale): return stats.t.logpdf(x, df, loc, scale)
def t_logpdf_default(x, df): return stats.t.logpdf(x, df)
def gamma_logpdf(x, a, loc, scale): return stats.gamma.logpdf(x, a, loc, scale)
def gamma_logpdf_default(x, a): return stats.gamma.logpdf(x, a)
def beta_logpdf(x, a, b): return stats.beta.logpdf(x, a, b)
def beta_logpdf_shifted(x, a, b, loc, scale): return stats.beta.logpdf(x, a, b, loc, scale)
def poisson_logpmf(k, mu): return stats.poisson.logpmf(k, mu)
def poisson_logpmf_shifted(k, mu, loc): return stats.poisson.logpmf(k, mu, loc)
def t_cdf(x, df, loc, scale): return stats.t.cdf(x, df, loc, scale)
def t_logcdf(x, df, loc, scale): return stats.t.logcdf(x, df, loc, scale)
def t_pdf(x, df, loc, scale): return stats.t.pdf(x, df, loc, scale)
def gamma_cdf(x, a, loc, scale): return stats.gamma.cdf(x, a, loc, scale)
def gamma_logcdf(x, a, loc, scale): return stats.gamma.logcdf(x, a, loc, scale)
def gamma_pdf(x, a, loc, scale): return stats.gamma.pdf(x, a, loc, scale)
def beta_cdf(x, a, b, loc, scale): return stats.beta.cdf(x, a, b, loc, scale)
def beta_logcdf(x, a, b, loc, scale): return stats.beta.logcdf(x, a, b, loc, scale)
def beta_pdf(x, a, b, loc, scale): return stats.beta.pdf(x, a, b, loc, scale)
def poisson_cdf(k, mu): return stats.poisson.cdf(k, mu)
def poisson_logcdf_shifted(k, mu, loc): return stats.poisson.logcdf(k, mu, loc)
def poisson_pmf(k, mu): return stats.poisson.pmf(k, mu)
def gram(c): return c @ c.T + np.eye(c.shape[0])       # symmetric positive definite
def mvn_logpdf(x, mean, c): return stats.multivariate_normal.logpdf(x, mean, gram(c))
def mvn_logpdf_keywords(x, c): return stats.multivariate_normal.logpdf(x, cov=gram(c))
def mvn_pdf(x, mean, c): return stats.multivariate_normal.pdf(x, mean, gram(c))
def mvn_logpdf_not_singular(x, mean, c):
    return stats.multivariate_normal.logpdf(x, mean=mean, cov=gram(c), allow_singular=False)


def loc(*shape):
    return uniform(-0.3, 0.3, *shape)


def shifted(*shape):
    """Points of a distribution on (loc, infinity) with loc in [-0.3, 0.3]."""
    return uniform(0.5, 2.5, *shape)


COUNTS = Const(np.array([[0, 1, 2, 5], [3, 0, 1, 1], [7, 2, 0, 4]]), "k[3,4]")
STATS_ROWS = [
    *[Row(fn, normal(*sx), normal(*sl), pos(*ss)) for fn in (norm_logpdf, norm_pdf, norm_cdf,
                                                             norm_logcdf)
      for sx, sl, ss in [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), ()), ((), (3, 1), (4,))]],
    Row(norm_keywords, normal(3, 4), normal(4), pos(3, 1)),
    Row(norm_default, normal(3, 4)), Row(norm_default, normal()),
    Row(norm_scale_only, normal(3, 4), pos()), Row(norm_logcdf_tail, normal(3, 4)),
    *[Row(t_logpdf, normal(*sx), pos(*sd), normal(*sl), pos(*ss))
      for sx, sd, sl, ss in [((3, 4), (3, 4), (3, 4), (3, 4)), ((3, 4), (), (4,), (3, 1))]],
    Row(t_logpdf_default, normal(3, 4), pos()), Row(t_logpdf_default, normal(), pos()),
    *[Row(gamma_logpdf, shifted(*sx), pos(*sa), loc(*sl), pos(*ss))
      for sx, sa, sl, ss in [((3, 4), (3, 4), (3, 4), (3, 4)), ((3, 4), (4,), (), (3, 1))]],
    Row(gamma_logpdf_default, pos(3, 4), pos(3, 4)), Row(gamma_logpdf_default, pos(), pos()),
    Row(beta_logpdf, prob(3, 4), pos(3, 4), pos(3, 4)), Row(beta_logpdf, prob(3, 4), pos(), pos(4)),
    Row(beta_logpdf_shifted, prob(3, 4), pos(3, 4), pos(4), uniform(-0.2, 0.0, 3, 1),
        uniform(1.5, 2.0)),
    Row(poisson_logpmf, COUNTS, pos(3, 4)), Row(poisson_logpmf, COUNTS, pos(4)),
    Row(poisson_logpmf, Const(3), pos()),
    Row(poisson_logpmf_shifted, Const(np.array([1, 2, 6])), pos(3), Const(1)),
    # the distribution functions in x, loc and scale (shape parameters constant: refused),
    # the densities through their definitions (exp of the log density)
    *[Row(fn, normal(*sx), Const(3.0), normal(*sl), pos(*ss)) for fn in (t_cdf, t_logcdf, t_pdf)
      for sx, sl, ss in [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), ())]],
    Row(t_pdf, normal(3, 4), pos(4), normal(), pos(3, 1)),
    *[Row(fn, shifted(*sx), Const(2.5), loc(*sl), pos(*ss)) for fn in (gamma_cdf, gamma_logcdf)
      for sx, sl, ss in [((3, 4), (3, 4), (3, 4)), ((3, 4), (4,), ())]],
    Row(gamma_pdf, shifted(3, 4), pos(3, 4), loc(4), pos()),
    *[Row(fn, prob(3, 4), Const(2.0), Const(3.0), uniform(-0.2, 0.0, 3, 1), uniform(1.5, 2.0))
      for fn in (beta_cdf, beta_logcdf)],
    Row(beta_pdf, prob(3, 4), pos(3, 4), pos(4), uniform(-0.2, 0.0, 3, 1), uniform(1.5, 2.0)),
    Row(poisson_cdf, COUNTS, pos(3, 4)), Row(poisson_cdf, Const(3), pos()),
    Row(poisson_logcdf_shifted, Const(np.array([1, 2, 6])), pos(3), Const(1)),
    Row(poisson_pmf, COUNTS, pos(3, 4)),
    *[Row(mvn_logpdf, normal(*sx), normal(3), normal(3, 3)) for sx in [(5, 3), (3,), (2, 4, 3)]],
    Row(mvn_logpdf, normal(4), normal(1), normal(1, 1)),     # one dimension: 4 points
    Row(mvn_logpdf_keywords, normal(5, 2), normal(2, 2)),
    Row(mvn_pdf, normal(5, 2), normal(2), normal(2, 2)),    # through its definition
    Row(mvn_logpdf_not_singular, normal(1, 3), normal(3), normal(3, 3)),
]


# ---------------------------------------------------------------------------------------------
# the helpers that the rules' derivatives call, directly (their own rules: second order)
# ---------------------------------------------------------------------------------------------
def rt_expand_reduced(r, a, b, axis, keepdims):
    return runtime.expand_reduced(r, a, b, axis, keepdims) * 1.0
def rt_exp_weights(a, b, r, axis, keepdims): return runtime.exp_weights(a, b, r, axis, keepdims)
def rt_exp_shares(a, like, r, axis, keepdims): return runtime.exp_shares(a, like, r, axis, keepdims)
def rt_gaussian_centered(x, mean, cov): return runtime.gaussian_centered(x, mean, cov)
def rt_expand_covariance(cov, ndim, size): return runtime.expand_covariance(cov, ndim, size)
def rt_contract_covariance(m, ndim, size): return runtime.contract_covariance(m, ndim, size)


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
    Row(rt_gaussian_centered, normal(5, 3), normal(3), zeros(3, 3)),
    Row(rt_gaussian_centered, normal(2, 2, 3), normal(), zeros(3, 3)),
    Row(rt_gaussian_centered, normal(4), Const(None), zeros(1, 1)),
    Row(rt_expand_covariance, normal(), Const(0), Const(3)),
    Row(rt_expand_covariance, normal(3), Const(1), Const(3)),
    Row(rt_expand_covariance, normal(3, 3), Const(2), Const(3)),
    Row(rt_contract_covariance, normal(3, 3), Const(0), Const(3)),
    Row(rt_contract_covariance, normal(3, 3), Const(1), Const(3)),
    Row(rt_contract_covariance, normal(3, 3), Const(2), Const(3)),
]

ROWS = ELEMENTWISE_ROWS + REDUCTION_ROWS + STATS_ROWS


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
    *[Row(fn, normal(3, 4), normal(4), pos(3, 1)) for fn in (norm_logpdf, norm_pdf, norm_cdf,
                                                             norm_logcdf)],
    Row(t_logpdf, normal(3, 4), pos(4), normal(3, 1), pos()),
    Row(gamma_logpdf_default, pos(3, 4), pos(4)), Row(beta_logpdf, prob(3, 4), pos(4), pos(3, 1)),
    Row(poisson_logpmf, COUNTS, pos(3, 4)),
    Row(mvn_logpdf, normal(5, 3), normal(3), normal(3, 3)),
]


def _autograd_version(fn):
    """`fn` with `np`, `special` and `stats` bound to autograd's: derivatives s2s_ad had no
    part in."""
    bound = {"np": importlib.import_module("autograd.numpy"),
             "special": importlib.import_module("autograd.scipy.special"),
             "stats": importlib.import_module("autograd.scipy.stats")}
    return types.FunctionType(fn.__code__, {**fn.__globals__, **bound}, fn.__name__)


# autograd's logsumexp has no derivative in b (b is a constant in the row above), nor its
# gamma.logpdf in loc and scale
@pytest.mark.parametrize("row", table(*AUTOGRAD_ROWS))
def test_against_autograd(row):
    """The gradient, and the Hessian along a direction (autograd's grad of its grad)."""
    autograd = importlib.import_module("autograd")
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
def test_every_rule_in_these_templates_has_a_row(monkeypatch):
    """An adjoint or tangent rule added to the SciPy tables without a row that reaches it
    fails here."""
    built = rows_built(ROWS + HELPER_ROWS, second_order_rows=ROWS, seeded=signals._seeded)
    untested = untested_rules(monkeypatch, RULE_MODULES, built)
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


def mvn_allow_singular(x): return stats.multivariate_normal.logpdf(x, cov=np.eye(3), allow_singular=True)
def poisson_in_counts(k, mu): return np.sum(stats.poisson.logpmf(k, mu))
def no_rule_method(x): return np.sum(stats.expon.logpdf(x) * 2.0)
def frozen_distribution(x): return np.sum(stats.norm(0.0, 2.0).logpdf(x))


@pytest.mark.parametrize("mode", TRANSFORMS)
@pytest.mark.parametrize("fn, keyword", [(logsumexp_with_sign, "return_sign"),
                                         (mvn_allow_singular, "allow_singular")])
def test_options_the_rules_do_not_follow_are_refused_at_transform_time(mode, fn, keyword):
    with pytest.raises(TransformError, match=f"`{keyword}`"):
        TRANSFORMS[mode](fn, np.array([0.3, -1.0, 2.0]))


def mvn_cov_given(x, cov): return np.sum(stats.multivariate_normal.logpdf(x, np.zeros(3), cov))
def mvn_default_cov(x, mean): return np.sum(stats.multivariate_normal.logpdf(x, mean))


@pytest.mark.parametrize("cov", [1.7, np.array([0.5, 1.5, 2.0])], ids=["number", "diagonal"])
def test_a_covariance_given_as_a_number_or_a_diagonal(cov):
    """SciPy reads a number c as c I and a vector as the diagonal: the derivative in cov is the
    trace or the diagonal of the matrix's (central differences in cov itself)."""
    x = np.array([[0.3, -0.2, 0.5], [1.0, 0.1, -0.4]])
    for wrt in (0, 1):
        expected = numerical_grad(mvn_cov_given, (x, cov), wrt)
        assert_close(ad.grad(mvn_cov_given, wrt=wrt)(x, cov), expected)
        direction = np.ones_like(x if wrt == 0 else cov)
        _, tangent = ad.jvp(mvn_cov_given, wrt=wrt)(x, cov, tangent=direction)
        assert_close(tangent, np.sum(expected * direction))
    assert_close(ad.hessian(mvn_cov_given, wrt=1)(x, cov),
                 numerical_jacobian(lambda c: ad.grad(mvn_cov_given, wrt=1)(x, c), cov),
                 rtol=1e-5, atol=1e-7)


def test_the_default_covariance_is_the_identity():
    x, mean = np.array([[0.3, -0.2, 0.5], [1.0, 0.1, -0.4]]), np.array([0.1, 0.2, -0.3])
    assert_close(ad.grad(mvn_default_cov, wrt=1)(x, mean), np.sum(x - mean, axis=0))
    assert_close(ad.grad(mvn_default_cov)(x, mean), -(x - mean))


def numerical_jacobian(f, c, eps=1e-5):
    """Central differences of f (array valued) in c (a number or a vector): (f's shape, c's)."""
    c = np.asarray(c, dtype=float)
    columns = [(f(c + eps * e.reshape(c.shape)) - f(c - eps * e.reshape(c.shape))) / (2 * eps)
               for e in np.eye(c.size)]
    return np.reshape(np.stack(columns, axis=-1), np.shape(f(c)) + c.shape)


def test_poisson_is_not_differentiated_in_its_counts():
    k, mu = np.array([1.0, 3.0]), np.array([0.5, 2.0])
    with pytest.raises(NotImplementedError, match="with respect to k"):
        ad.grad(poisson_in_counts, wrt=(0, 1))(k, mu)
    with pytest.raises(NotImplementedError, match="with respect to k"):
        ad.jvp(poisson_in_counts, wrt=0)(k, mu, tangent=np.ones(2))
    assert_close(ad.grad(poisson_in_counts, wrt=1)(k, mu), k / mu - 1, rtol=1e-12)


def test_a_frozen_distribution_is_differentiated_as_its_distribution():
    """`stats.norm(loc, scale).logpdf(x)` is `stats.norm.logpdf(x, loc, scale)`, whose
    derivative in x is -(x - loc) / scale**2 (more in tests/test_frozen_distributions.py)."""
    x = np.array([0.3, 1.2])
    assert_close(ad.grad(frozen_distribution)(x), -x / 4.0)
    assert_close(ad.jvp(frozen_distribution)(x, tangent=np.ones(2))[1], np.sum(-x / 4.0))


def test_polygamma_is_not_differentiated_in_its_order():
    x = np.array([0.5, 1.5])
    with pytest.raises(NotImplementedError, match="order n"):
        ad.grad(polygamma_in_order, wrt=(0, 1))(1.0, x)
    with pytest.raises(NotImplementedError, match="order n"):
        ad.jvp(polygamma_in_order, wrt=0)(1.0, x, tangent=1.0)


@pytest.mark.parametrize("mode", TRANSFORMS)
@pytest.mark.parametrize("fn, name", [(no_rule_ufunc, "special.i0e"),
                                      (no_rule_python_function, "special.spherical_jn"),
                                      (no_rule_method, "stats.expon.logpdf")])
def test_a_scipy_function_without_a_rule_is_refused_at_the_users_line(mode, fn, name):
    """Not somewhere inside SciPy's source: SciPy's Python functions are not read."""
    with pytest.raises(NoDerivativeRule) as info:
        TRANSFORMS[mode](fn, np.array([0.3, 1.2]))
    line = fn.__code__.co_firstlineno + (2 if fn is not no_rule_method else 0)
    assert f"test_rules_scipy.py:{line}:" in str(info.value) and name in str(info.value)


def log_ndtr_far(x): return np.sum(special.log_ndtr(x))
def norm_logcdf_far(x): return np.sum(stats.norm.logcdf(x))


@pytest.mark.parametrize("fn", [log_ndtr_far, norm_logcdf_far])
def test_the_log_normal_distribution_function_far_into_the_lower_tail(fn):
    """Where the density and the distribution function are both below the smallest float, the
    slope of log ndtr is the inverse of Mills' ratio, 1 / (1/t - 1/t^3 + 3/t^5 - 15/t^7 ...)."""
    x = np.array([-40.0, -60.0])
    t = -x
    mills = 1 / t - 1 / t ** 3 + 3 / t ** 5 - 15 / t ** 7 + 105 / t ** 9
    assert_close(ad.grad(fn)(x), 1 / mills, rtol=1e-12)
    assert_close(ad.jvp(fn)(x, tangent=np.ones(2))[1], np.sum(1 / mills), rtol=1e-12)


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
                                text=True, env=environment({"PATH": ""}))
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
