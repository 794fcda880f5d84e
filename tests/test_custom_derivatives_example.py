"""examples/custom_derivatives.py, the README's "Custom derivatives": a stable softplus, a C
routine with no Python source, a straight-through estimator; each rule gives the derivative it
promises."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close
from installed import environment

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")
sys.path.insert(0, EXAMPLES)
custom = pytest.importorskip("custom_derivatives", reason="needs the C math library (libm)")


def logistic(v):
    return 1.0 / (1.0 + np.exp(-v))


def test_softplus_rule_does_not_overflow():
    x = np.array([-800.0, 0.0, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ad.grad(lambda v: np.sum(custom.softplus(v)))(x)
    assert_close(got, [0.0, 0.5, logistic(3.0)], rtol=1e-15)
    assert_close(ad.jvp(custom.softplus)(x, tangent=np.ones(3))[1], [0.0, 0.5, logistic(3.0)])


def test_a_c_routine_through_its_rule():
    assert ad.grad(custom.c_cbrt)(8.0) == pytest.approx(1 / 12, rel=1e-15)
    assert ad.jvp(custom.c_cbrt)(27.0, tangent=2.0)[1] == pytest.approx(2 / 27, rel=1e-15)


def test_the_model_uses_all_three():
    w, x = np.array([0.3, -0.6, 1.2]), np.array([1.0, 2.0, -1.0])
    quantized = np.round(w * 4.0) / 4.0
    total = float(np.sum(w * w)) + 1.0
    # the straight-through estimator passes d/d(quantized) to w unchanged
    expected = logistic(quantized * x) * x + 2 * w / (3 * total ** (2 / 3))
    assert_close(ad.grad(custom.model)(w, x), expected, rtol=1e-12)


def test_the_example_runs():
    result = subprocess.run([sys.executable, os.path.join(EXAMPLES, "custom_derivatives.py")],
                            capture_output=True, text=True, env=environment(), timeout=120)
    assert result.returncode == 0, result.stderr
    assert "d cbrt(x)/dx at 8: 0.08333333333333333" in result.stdout
    assert "RuntimeWarning" not in result.stderr
