"""The heating-schedule example: the gradient through the hourly loop is right, and it runs."""
import os
import subprocess
import sys

import numpy as np

import s2s_ad as ad
from fd import assert_close, numerical_grad

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")
sys.path.insert(0, EXAMPLES)
import building_heating as B  # noqa: E402


def test_cost_gradient_through_the_simulation_loop():
    power = np.random.default_rng(5).uniform(0, 6, size=B.HOURS)
    assert_close(ad.grad(B.cost)(power), numerical_grad(B.cost, [power], 0), rtol=1e-5)


def test_the_schedule_improves():
    _, history = B.optimize(steps=60, verbose=False)
    assert history[-1] < 0.1 * history[0]


def test_example_runs_as_a_script(tmp_path):
    result = subprocess.run([sys.executable, os.path.join(EXAMPLES, "building_heating.py"),
                             str(tmp_path / "plot.png")], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "hour  outside  power  room" in result.stdout
