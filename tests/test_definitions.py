"""NumPy functions s2s_ad differentiates through a definition in Python (s2s_ad/definitions.py):
each definition's value is NumPy's, and derivatives through it match central differences in
both modes and at second order; a user's rule for the NumPy function wins; a module written
with --standalone carries the definition."""
import subprocess
import sys

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from installed import environment
from s2s_ad import d, definitions, runtime

RNG = np.random.default_rng(7)
X = RNG.normal(size=(3, 6))
F_WEIGHTS = np.array([1, 2, 1, 3, 1, 2])
A_WEIGHTS = RNG.uniform(0.5, 2.0, size=6)

CALLS = [
    (np.cov, (X,), {}), (np.cov, (X.T,), {"rowvar": False}), (np.cov, (X[0],), {}),
    (np.cov, (X[0], X[1]), {}), (np.cov, (X,), {"bias": True}), (np.cov, (X,), {"ddof": 0}),
    (np.cov, (X[:2], X[2:]), {"ddof": 2}), (np.cov, (X,), {"fweights": F_WEIGHTS}),
    (np.cov, (X,), {"aweights": A_WEIGHTS}),
    (np.cov, (X,), {"fweights": F_WEIGHTS, "aweights": A_WEIGHTS, "ddof": 0}),
    (np.corrcoef, (X,), {}), (np.corrcoef, (X[0], X[1]), {}), (np.corrcoef, (X.T,), {"rowvar": False}),
    (np.corrcoef, (X[0],), {}),
    (np.logspace, (0.5, 2.0), {}), (np.logspace, (0.5, 2.0, 7), {"endpoint": False}),
    (np.logspace, (1.0, 3.0, 5), {"base": 2.0}), (np.logspace, (X[0, :2], X[1, :2], 4), {}),
    (np.logspace, (X[0, :2], 2.0, 4), {"axis": 1}),
    (np.logspace, (0.5, 2.0, 5), {"base": np.array([2.0, 3.0])}),
    (np.geomspace, (1.0, 1000.0, 4), {}), (np.geomspace, (-1.0, -100.0, 5), {}),
    (np.geomspace, (2.0, 50.0, 6), {"endpoint": False}), (np.geomspace, (3.0, 5.0, 1), {}),
    (np.geomspace, (np.array([1.0, 2.0]), np.array([10.0, 30.0]), 4), {}),
    (np.geomspace, (np.array([1.0, 2.0]), 30.0, 4), {"axis": 1}),
]


@pytest.mark.parametrize("function, args, keywords", CALLS)
def test_a_definition_computes_what_numpy_does(function, args, keywords):
    np.testing.assert_allclose(definitions.DEFINED[function](*args, **keywords),
                               function(*args, **keywords), rtol=1e-12, atol=1e-14)


def weighted_loss(x, aweights):
    c = np.cov(x, aweights=aweights)
    return np.sum(c * np.arange(9.0).reshape(3, 3)) + np.sum(np.corrcoef(x) ** 3)


def test_derivatives_through_definitions_match_central_differences():
    for wrt in (0, 1):
        expected = numerical_grad(weighted_loss, (X, A_WEIGHTS), wrt)
        assert_close(ad.grad(weighted_loss, wrt=wrt)(X, A_WEIGHTS), expected)
    direction = RNG.normal(size=X.shape)
    _, tangent = ad.jvp(weighted_loss, wrt=0)(X, A_WEIGHTS, tangent=direction)
    assert tangent == pytest.approx(np.sum(numerical_grad(weighted_loss, (X, A_WEIGHTS), 0)
                                           * direction))
    hvp = ad.hvp(weighted_loss, wrt=0)(X, A_WEIGHTS, vector=direction)
    g = ad.grad(weighted_loss, wrt=0)
    eps = 1e-6
    assert_close(hvp, (g(X + eps * direction, A_WEIGHTS) - g(X - eps * direction, A_WEIGHTS))
                 / (2 * eps), rtol=1e-5, atol=1e-6)


def spaced(x):
    return np.sum(np.logspace(x[0], x[1], 5) * np.arange(5.0)) \
        + np.sum(np.geomspace(x[2], x[3], 4) ** 2) \
        + np.sum(np.logspace(x[:2], x[2:], 3, base=2.0, axis=1)) \
        + np.sum(np.geomspace(x[:2] + 2, 5.0, 3))


def test_derivatives_through_logspace_and_geomspace():
    x = np.array([0.3, 0.7, 1.5, 4.0])
    expected = numerical_grad(spaced, (x,), 0)
    assert_close(ad.grad(spaced)(x), expected)
    assert ad.jvp(spaced)(x, tangent=np.ones(4))[1] == pytest.approx(np.sum(expected))


def sum_of_covariance(x):
    return np.sum(np.cov(x))


def test_a_rule_of_the_users_wins_over_the_definition():
    @ad.adjoint(np.cov)
    def cov_adjoint(c, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,
                    aweights=None):
        d[m] = np.full_like(m, 7.0)         # deliberately not cov's derivative
    try:
        assert np.all(ad.grad(sum_of_covariance)(X) == 7.0)
    finally:
        from s2s_ad import rules
        rules.ADJOINTS.pop(np.cov)
        ad.clear_cache()
    assert_close(ad.grad(sum_of_covariance)(X), numerical_grad(sum_of_covariance, (X,), 0))


def correlated(x):
    return np.sum(np.corrcoef(x) * np.arange(9.0).reshape(3, 3))


PROGRAM = """
import numpy as np

def f(x):
    return np.sum(np.corrcoef(x) * np.arange(9.0).reshape(3, 3))
"""


def test_a_standalone_module_carries_the_definition(tmp_path):
    (tmp_path / "correlated.py").write_text(PROGRAM)
    written = tmp_path / "d_correlated.py"
    subprocess.run([sys.executable, "-m", "s2s_ad", "grad", f"{tmp_path / 'correlated.py'}:f",
                    "--standalone", "-o", str(written)], check=True, capture_output=True,
                   env=environment())
    assert "s2s_ad" not in "".join(line for line in written.read_text().splitlines()
                                   if line.startswith(("import", "from")))
    np.save(tmp_path / "x.npy", X)
    run = subprocess.run(
        [sys.executable, "-c", "import sys, numpy as np; sys.modules['s2s_ad'] = None; "
         "import d_correlated; print(repr(d_correlated.grad_f(np.load('x.npy')).tolist()))"],
        cwd=tmp_path, capture_output=True, text=True, check=True)
    assert_close(np.array(eval(run.stdout)), numerical_grad(correlated, (X,), 0))


# ---------------------------------------------------------------------------------------------
# np.roots, np.polyfit, np.unique, np.histogram and np.histogram_bin_edges: NumPy's values, and
# one row per use in reverse and forward mode against central differences, the vjp/jvp
# dot-product identity and second order (rows: test_rules.Row; away from ties and bin edges)
# ---------------------------------------------------------------------------------------------
import test_rules as core                      # noqa: E402  (its tests are called, not run here)
from test_rules import Arg, Const, Row, table  # noqa: E402

# coefficients of polynomials with roots 1, 2, ..., n - 1, each moved by up to 0.05%: real,
# distinct roots (sensitive ones: first differences resolve their derivatives to 1e-4 only,
# hence the rows' rtol, and second differences of first ones not even that: their second order
# is checked against differences of the gradient, test_second_order_of_roots)
core.DRAWS["real_roots"] = lambda rng, n: np.poly(np.arange(1.0, n)) * rng.uniform(0.9995, 1.0005, n)
# data spread over [-2, 2] no closer than 0.05 to each other (no ties for np.unique, no entry
# on an edge of 3 or 4 bins of a histogram between the extremes)
core.DRAWS["spread"] = lambda rng, n: -2.0 + 4.0 * (rng.permutation(n) + rng.uniform(0.3, 0.7, n)) / n

SAMPLE = np.array([0.31, -1.2, 0.74, 2.5, 1.93, -0.4, 0.05, 1.1])
VALUE_CALLS = [
    (np.roots, (np.array([1.0, -6.0, 11.0, -6.0]),), {}), (np.roots, (np.array([0.0, 2.0, 1.0, 0.0, 0.0]),), {}),
    (np.roots, (np.array([1.0, 0.5, 2.0, -1.0]),), {}), (np.roots, (np.array([3.0]),), {}),
    (np.roots, (np.zeros(3),), {}), (np.roots, (np.array([1.0 + 1j, 2.0, -1j]),), {}),
    (np.polyfit, (SAMPLE, SAMPLE ** 3, 2), {}), (np.polyfit, (SAMPLE, np.stack([SAMPLE, SAMPLE ** 2], 1), 3), {"w": SAMPLE + 3}),
    (np.polyfit, (SAMPLE, np.sin(SAMPLE), 1), {"rcond": 1e-3}),
    (np.unique, (np.array([3.0, 1.0, 2.0, 1.0, 3.0]),), {}),
    (np.unique, (np.array([3.0, 1.0, 2.0, 1.0, 3.0]), True, True, True), {}),
    (np.unique, (np.array([[1.0, 2.0], [0.0, 1.0], [1.0, 2.0]]),), {"axis": 0, "return_counts": True}),
    (np.unique, (np.array([np.nan, 1.0, np.nan]),), {"equal_nan": False}),
    (np.unique, (np.array([3.0, 1.0, 2.0, 1.0]), True), {"sorted": False, "return_counts": True}),
    (np.histogram, (SAMPLE,), {}), (np.histogram, (SAMPLE, 3), {"density": True}),
    (np.histogram, (SAMPLE, "auto"), {}), (np.histogram, (SAMPLE, [-1.0, 0.0, 2.0]), {"weights": SAMPLE}),
    (np.histogram, (SAMPLE, 4), {"range": (0.0, 2.0), "weights": SAMPLE * 2, "density": True}),
    (np.histogram, (np.ones(4), 2), {}), (np.histogram, (np.arange(5), 2), {}),
    (np.gradient, (SAMPLE,), {}), (np.gradient, (SAMPLE.reshape(2, 4), 0.5), {}),
    (np.gradient, (SAMPLE.reshape(4, 2), np.cumsum(SAMPLE[:4] ** 2), np.arange(2)), {}),
    (np.gradient, (SAMPLE.reshape(2, 4), np.array([0.0, 0.5, 2.0, 2.5])), {"axis": 1, "edge_order": 2}),
    (np.gradient, (np.arange(6) ** 2, 2.0), {"axis": -1}),
    (np.histogram_bin_edges, (SAMPLE, "fd"), {}), (np.histogram_bin_edges, (SAMPLE.astype(np.float32), 3), {}),
]


def _parts(value):
    return value if isinstance(value, tuple) else (value,)


@pytest.mark.parametrize("function, args, keywords", VALUE_CALLS)
def test_a_counting_or_fitting_definition_computes_what_numpy_does(function, args, keywords):
    expected, defined = function(*args, **keywords), definitions.DEFINED[function](*args, **keywords)
    assert len(_parts(defined)) == len(_parts(expected))
    for mine, numpys in zip(_parts(defined), _parts(expected)):
        assert np.result_type(mine) == np.result_type(numpys)
        np.testing.assert_allclose(mine, numpys, rtol=1e-12, atol=1e-14)


def np_roots(p): return np.roots(p)
def roots_stripped(p): return np.sum(np.roots(np.concatenate(([0.0], p, [0.0, 0.0]))) ** 2)
def roots_of_constants(x): return np.sum(np.roots(np.array([0.0, 1.0, -3.0, 2.0, 0.0])) * x)  # 2, 1, 0
def np_polyfit(x, y, deg): return np.polyfit(x, y, deg)
def polyfit_weighted(y, x, w): return np.polyfit(x, y, 2, w=w)
def polyfit_in_weights(w, x, y): return np.polyfit(x, y, 1, w=w)
def unique_values(a): return np.unique(a) * np.arange(1.0, np.size(a) + 1)
def unique_rows(a): return np.unique(a, axis=0) ** 2
def unique_everything(a):
    values, index, inverse, counts = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    return values[inverse] * counts[inverse] + values[index % 2]
def histogram_weighted(w, a):
    counts, edges = np.histogram(a, 4, weights=w)
    return counts * edges[1:]
def histogram_density(a, w):
    counts, edges = np.histogram(a, 3, weights=w, density=True)
    return np.concatenate((counts, edges))
def histogram_counts(a): return np.concatenate((np.histogram(a, 4)[0] * 1.0, np.histogram(a, "auto")[1]))
def histogram_range(a, lo, hi): return np.concatenate(np.histogram(a, 3, range=(lo, hi), density=True))
def bin_edges(a): return np.histogram_bin_edges(a, 5) ** 2
def rt_bin_spread(g, a): return runtime.bin_spread(g, a, np.array([-1.0, 0.0, 0.5, 2.0]))


def spread(*shape):
    return Arg("spread", shape)


DEFINITION_ROWS = [
    Row(np_roots, Arg("real_roots", (4,)), rtol=1e-4), Row(np_roots, Arg("real_roots", (5,)), rtol=1e-4),
    Row(roots_of_constants, core.normal(3)),
    Row(np_polyfit, spread(6), core.normal(6), Const(2)), Row(np_polyfit, spread(5), core.normal(5, 2), Const(3)),
    Row(polyfit_weighted, core.normal(7), spread(7), Arg("pos", (7,))),
    Row(polyfit_in_weights, Arg("pos", (6,)), Const(SAMPLE[:6]), Const(np.cos(SAMPLE[:6]))),
    Row(unique_values, spread(6)), Row(unique_values, spread(2, 3)),
    Row(unique_rows, spread(3, 2)), Row(unique_everything, spread(5)),
    Row(histogram_weighted, core.normal(8), Const(SAMPLE)), Row(histogram_weighted, core.normal(5), spread(5)),
    Row(histogram_density, spread(9), Arg("pos", (9,))), Row(histogram_density, spread(7), Const(None)),
    Row(histogram_counts, spread(10)), Row(histogram_counts, spread(6)),
    Row(histogram_range, spread(8), Arg("neg", ()), Arg("pos", ())),
    Row(bin_edges, spread(6)), Row(bin_edges, spread(2, 2)),
    Row(rt_bin_spread, core.normal(3), Const(SAMPLE)), Row(rt_bin_spread, core.normal(3), spread(2, 3)),
]


@pytest.mark.parametrize("row", table(*DEFINITION_ROWS))
def test_both_modes_and_their_dot_product(row):
    """vjp and jvp against central differences, and <seed, J v> == <J^T seed, v>."""
    core.check_row(row)
    core.check_tangent_row(row)
    core.test_vjp_and_jvp_are_transposes(row)


@pytest.mark.parametrize("row", table(*[r for r in DEFINITION_ROWS if "roots" not in r.fn.__name__]))
def test_second_order(row):
    core.check_second_order_row(row, by_autograd=False)


def sum_of_roots_cubed(p): return np.real(np.sum(np.roots(p) ** 3 + np.roots(p * p)))


@pytest.mark.parametrize("p", [np.array([1.0, -6.0, 11.0, -6.0]), np.array([2.0, -3.0, 1.0]),
                               np.array([1.0, 0.5, 2.0, -1.0]) + 0j])
def test_second_order_of_roots(p):
    """hvp and hessian against central differences of the gradient (checked against central
    differences of the function above); a real polynomial and a complex one."""
    v = np.cos(np.arange(len(p) * 1.0)) * (1 + 0.5j if np.iscomplexobj(p) else 1)
    grad, eps = ad.grad(sum_of_roots_cubed), 1e-6
    expected = (grad(p + eps * v) - grad(p - eps * v)) / (2 * eps)
    np.testing.assert_allclose(ad.hvp(sum_of_roots_cubed)(p, vector=v), expected, rtol=1e-6)
    if not np.iscomplexobj(p):
        np.testing.assert_allclose(ad.hessian(sum_of_roots_cubed)(p) @ v, expected, rtol=1e-6)


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_roots_through_the_coefficients_numpy_strips_are_refused(mode):
    """A zero first or last coefficient, which np.roots strips: moving it changes the number of
    roots, or moves the root at 0 NumPy appends; refused, never a derivative of 0."""
    p = np.array([1.0, -6.0, 11.0, -6.0])
    with pytest.raises(NotImplementedError, match="first and last coefficients are not 0"):
        if mode == "grad":
            ad.grad(roots_stripped)(p)
        else:
            ad.jvp(roots_stripped)(p, tangent=np.ones(4))


def unique_with_ties(a): return np.sum(np.unique(a) * np.array([1.0, 10.0, 100.0]))
def counts_and_edges(a): return np.sum(np.histogram(a, 3)[0] * 1.0) + np.sum(np.histogram(a, 3)[1])


def test_unique_at_ties_sends_the_derivative_to_the_first_occurrence():
    """Equal entries tie: the unique value is read from the first of them, which gets the
    whole derivative (the value is one entry's, not their mean: a move of any one of them
    alone would split the value)."""
    a = np.array([3.0, 1.0, 2.0, 1.0, 3.0, 3.0])
    expected = np.array([100.0, 1.0, 10.0, 0.0, 0.0, 0.0])
    assert_close(ad.grad(unique_with_ties)(a), expected, rtol=0, atol=0)
    assert ad.jvp(unique_with_ties)(a, tangent=np.arange(6.0))[1] == pytest.approx(0 * 100 + 1 + 20)


def test_histogram_counts_are_constant_in_the_data_and_the_edges_follow_its_extremes():
    """The counts do not move with the data (their derivative is 0, not refused); the edges
    are evenly spaced from the smallest entry to the largest, so their sum, 4 times the
    mean of the two extremes, moves with those two only."""
    a = np.array([0.3, -1.0, 0.7, 2.0, 1.1])
    assert_close(ad.grad(counts_and_edges)(a), [0.0, 2.0, 0.0, 2.0, 0.0], rtol=1e-12, atol=0)
    assert ad.jvp(counts_and_edges)(a, tangent=np.ones(5))[1] == pytest.approx(4.0)
    # entries that tie for the largest share its derivative equally, as np.max's do
    tied = np.array([0.3, 2.0, 0.7, 2.0, -1.0])
    assert_close(ad.grad(counts_and_edges)(tied), [0.0, 1.0, 0.0, 1.0, 2.0], rtol=1e-12, atol=0)


def test_every_rule_of_the_definitions_helpers_has_a_row(monkeypatch):
    from rule_coverage import rows_built, untested_rules
    built = rows_built(DEFINITION_ROWS + [Row(roots_stripped, Arg("real_roots", (4,)))])
    untested = untested_rules(monkeypatch, ("definition_helpers",), built)
    assert not untested, f"rules without a row: {untested}"
