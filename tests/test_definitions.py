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
from s2s_ad import d, definitions

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
