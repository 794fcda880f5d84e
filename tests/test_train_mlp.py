"""The training-loop example: its gradients are right, and its loss falls below the target."""
import os
import subprocess
import sys

import numpy as np

import s2s_ad as ad
from fd import assert_close, numerical_grad

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")
sys.path.insert(0, EXAMPLES)
import train_mlp  # noqa: E402


def test_loss_gradient_matches_finite_differences():
    rng = np.random.default_rng(3)
    X, y = train_mlp.make_data(rng, n=10)
    params = train_mlp.init_params(rng, hidden=4)
    grads = ad.grad(train_mlp.loss_fn)(params, X, y)
    for key in params:
        def loss_of(value, key=key):
            return train_mlp.loss_fn({**params, key: value}, X, y)
        assert_close(grads[key], numerical_grad(loss_of, [params[key]], 0), rtol=1e-5)


def test_training_reaches_the_stated_loss():
    loss, accuracy = train_mlp.train(verbose=False)
    assert loss < train_mlp.TARGET_LOSS
    assert accuracy > 0.9


def test_example_runs_as_a_script():
    result = subprocess.run([sys.executable, os.path.join(EXAMPLES, "train_mlp.py")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "final loss" in result.stdout
