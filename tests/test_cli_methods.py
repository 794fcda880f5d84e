"""A `Class.method` target on the command line: like `s2s_ad.grad(model.loss)`, the default
`--wrt` is the first parameter after `self`, indices count from there, and `check` builds the
instance with `--init` (the target's module is in scope for --init and --args)."""
from test_cli import _ok, cli, run_python

MODEL = '''\
import numpy as np


class Model:
    def __init__(self, scale=2.0):
        self.scale = scale

    def loss(self, w, x):
        return np.sum(np.tanh(x @ w) * self.scale)

    @staticmethod
    def penalty(w, c):
        return c * np.sum(w ** 2)
'''


def test_a_method_is_differentiated_for_the_first_parameter_after_self(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    text = _ok(cli("grad", "model.py:Model.loss", cwd=tmp_path)).stdout
    assert "--wrt w" in text and "def grad_loss(self, w, x):" in text
    assert "wrt=x" in _ok(cli("grad", "model.py:Model.loss", "--wrt", "1", cwd=tmp_path)).stdout
    assert "wrt=self" in _ok(cli("grad", "model.py:Model.loss", "--wrt", "self",
                                 cwd=tmp_path)).stdout
    out_of_range = cli("grad", "model.py:Model.loss", "--wrt", "2", cwd=tmp_path)
    assert out_of_range.returncode == 2 and "after self (w, x)" in out_of_range.stderr
    # a static method has no self: its first parameter is the default
    assert "--wrt w" in _ok(cli("grad", "model.py:Model.penalty", cwd=tmp_path)).stdout


def test_check_builds_the_instance(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    for flags in (["--init", "Model(3.0)", "--args", "np.full((3, 2), 0.1), np.ones((4, 3))"],
                  ["--args", "Model(), rng.normal(size=(3, 2)), np.ones((4, 3))"]):
        result = _ok(cli("check", "model.py:Model.loss", *flags, cwd=tmp_path))
        assert "OK" in result.stdout
    misuse = cli("check", "model.py:Model.penalty", "--init", "Model()", "--args", "1.0, 2.0",
                 cwd=tmp_path)
    assert misuse.returncode == 2 and "--init builds the instance of a method" in misuse.stderr


def test_the_written_module_takes_the_instance_first(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    _ok(cli("grad", "model.py:Model.loss", "-o", "out/loss_grad.py", cwd=tmp_path))
    result = _ok(run_python("""
        import sys
        sys.path[:0] = ["out", "."]
        import numpy as np
        import loss_grad, model
        w, x = np.full((3, 2), 0.1), np.ones((4, 3))
        dw = loss_grad.grad_loss(model.Model(3.0), w, x)
        expected = 3.0 * x.T @ (1 - np.tanh(x @ w) ** 2)
        print(np.allclose(dw, expected))
    """, tmp_path))
    assert result.stdout.strip() == "True"
