"""The `s2s-ad` command line, run as `python -m s2s_ad` in subprocesses on model files in tmp_path.

Written modules are imported in fresh interpreters and must give the same numbers as the
in-memory `s2s_ad.grad`; `--standalone` modules must work where s2s_ad cannot be imported.
"""
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import textwrap

import numpy as np
import pytest

import s2s_ad
from s2s_ad import export, pipeline
from installed import environment

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODEL = '''\
import numpy as np

SCALE = 0.5


def helper(z, k=2.0):
    if k == 0.0:                # a branch: a call, written as fwd_helper (not copied in)
        return z * 0.0
    return np.sin(z) * k


def loss(W, b, x):
    h = np.tanh(x @ W + b)
    s = 0.0
    for i in range(3):
        s = s + np.sum(h * h) * SCALE
    if s > 0.1:
        s = s * 2.0
    return s + np.sum(helper(h))


def scaled(x, /, c, *, power=2.0):
    return np.sum(c * x ** power)


def unsupported(x, *rest):
    return np.sum(x)
'''


def _env():
    return environment()


def cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "s2s_ad", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, env=_env(), timeout=120)


def run_python(code, cwd, *flags, env=None):
    return subprocess.run([sys.executable, *flags, "-c", textwrap.dedent(code)], cwd=cwd,
                          capture_output=True, text=True, env=env or _env(), timeout=120)


@pytest.fixture
def model(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    return tmp_path


def _ok(result):
    assert result.returncode == 0, f"exit {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result


# --- grad: the written module ----------------------------------------------------------------

def test_written_module_imports_in_a_fresh_interpreter_and_matches_grad(model):
    _ok(cli("grad", "model.py:loss", "--wrt", "W,b", "-o", "out/loss_grad.py", cwd=model))
    check = run_python("""
        import importlib.util, sys
        import numpy as np
        spec = importlib.util.spec_from_file_location("loss_grad", "out/loss_grad.py")
        written = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(written)
        import s2s_ad
        sys.path.insert(0, ".")
        import model
        rng = np.random.default_rng(0)
        W, b, x = rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(4, 3))
        dW, db = written.grad_loss(W, b, x)
        eW, eb = s2s_ad.grad(model.loss, wrt=("W", "b"))(W, b, x)
        assert np.allclose(dW, eW, rtol=1e-12, atol=0) and np.allclose(db, eb, rtol=1e-12, atol=0)
        dW2, db2 = written.grad_loss(W, b=b, x=x)            # bound like the in-memory grad
        assert np.array_equal(dW2, dW) and np.array_equal(db2, db)
        assert written._model is model          # one copy of the user module, shared
        print("same numbers")
    """, cwd=model)
    assert "same numbers" in _ok(check).stdout


def test_written_module_header(model):
    _ok(cli("grad", "model.py:loss", "--wrt", "W,b", "-o", "out/loss_grad.py", cwd=model))
    text = (model / "out" / "loss_grad.py").read_text()
    header = text.split('"""')[0]
    sha = hashlib.sha256((model / "model.py").read_bytes()).hexdigest()
    assert f"s2s_ad {s2s_ad.__version__}" in header
    assert "# source:   model.py" in header
    assert f"# sha256:   {sha}" in header
    assert "# function: loss" in header
    assert "mode=reverse wrt=W,b standalone=no optimize=yes" in header
    command = "s2s-ad grad model.py:loss --wrt W,b -o out/loss_grad.py --force"
    assert f"#     {command}" in header
    assert "def grad_loss(W, b, x):" in text and "def vjp_loss(" in text
    assert "def fwd_helper(" in text                          # the callee's derivative, too
    assert "from s2s_ad.runtime import" in text
    assert not [n for n in os.listdir(model / "out") if n != "loss_grad.py"]   # no temp files

    # the recorded command regenerates the very same file (so `git diff` shows only real changes)
    words = shlex.split(command)
    result = _ok(cli(*words[1:], cwd=model))
    assert "unchanged out/loss_grad.py" in result.stderr
    assert (model / "out" / "loss_grad.py").read_text() == text


def test_stdout_by_default_and_importable_dotted_module(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "models.py").write_text(MODEL)
    text = _ok(cli("grad", "pkg.models:loss", cwd=tmp_path)).stdout
    assert "import pkg.models as _models" in text          # it reads SCALE and helper
    assert "SCALE = _models.SCALE" in text
    assert "pkg.models (pkg/models.py)" in text
    (tmp_path / "loss_grad.py").write_text(text)
    text = _ok(cli("grad", "pkg.models:scaled", "--wrt", "0,c", cwd=tmp_path)).stdout
    assert "def grad_scaled(x, /, c, *, power=2.0):" in text
    (tmp_path / "scaled_grad.py").write_text(text)
    check = run_python("""
        import numpy as np, s2s_ad, scaled_grad, loss_grad, pkg.models as m
        assert loss_grad._models is m
        W, b, x = np.ones((3, 2)), np.zeros(2), np.linspace(-1, 1, 12).reshape(4, 3)
        assert np.allclose(loss_grad.grad_loss(W, b, x), s2s_ad.grad(m.loss)(W, b, x))
        x = np.linspace(0.5, 1.5, 4)
        got = scaled_grad.grad_scaled(x, 3.0, power=3.0)
        want = s2s_ad.grad(m.scaled, wrt=(0, "c"))(x, 3.0, power=3.0)
        assert np.allclose(got[0], want[0]) and np.isclose(got[1], want[1]), (got, want)
        try:
            scaled_grad.grad_scaled(np.arange(3), 3.0)
        except TypeError as exc:
            assert "integer" in str(exc)
        else:
            raise AssertionError("an integer argument was accepted")
        print("ok")
    """, cwd=tmp_path)
    assert "ok" in _ok(check).stdout


def test_existing_file_is_not_overwritten_without_force(model):
    out = model / "loss_grad.py"
    out.write_text("# mine\n")
    result = cli("grad", "model.py:loss", "-o", out, cwd=model)
    assert result.returncode == 2
    assert "exists" in result.stderr and "--force" in result.stderr
    assert out.read_text() == "# mine\n"
    _ok(cli("grad", "model.py:loss", "-o", out, "--force", cwd=model))
    assert "def grad_loss(" in out.read_text()
    assert sorted(os.listdir(model)) == ["loss_grad.py", "model.py"]


def test_several_targets_into_a_directory(model):
    (model / "other.py").write_text("import numpy as np\n\ndef energy(q):\n"
                                    "    return np.sum(np.cos(q))\n")
    _ok(cli("grad", "model.py:loss@W", "model.py:scaled@c", "other.py:energy", "-o", "derived/",
            cwd=model))
    assert sorted(os.listdir(model / "derived")) == ["energy_grad.py", "loss_grad.py",
                                                     "scaled_grad.py"]
    assert "# options:  mode=reverse wrt=c " in (model / "derived" / "scaled_grad.py").read_text()
    again = cli("grad", "model.py:loss@W", "model.py:scaled@c", "other.py:energy", "-o",
                "derived/", cwd=model)
    assert again.returncode == 2                            # nothing is overwritten ...
    forced = _ok(cli("grad", "model.py:loss@W", "model.py:scaled@c", "other.py:energy", "-o",
                     "derived/", "--force", cwd=model))
    assert forced.stderr.count("unchanged") == 3            # ... and regenerating is a no-op
    assert "[1/3] model.py:loss" in forced.stderr and "[3/3] other.py:energy" in forced.stderr
    several_to_stdout = cli("grad", "model.py:loss", "other.py:energy", cwd=model)
    assert several_to_stdout.returncode == 2


# --- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["grad", "missing.py:loss"], "no such file"),
    (["grad", "model.py:nope"], "defines no function 'nope'"),
    (["grad", "model.py"], "must look like"),
    (["grad", "model.py:loss", "--wrt", "q"], "not a parameter"),
    (["grad", "model.py:loss", "--wrt", "7"], "out of range"),
    (["grad", "model.py:loss", "--mode", "sideways"], "invalid choice"),
    (["grad", "no_such_module_xyz:f"], "no module named"),
    (["check", "model.py:loss"], "--args"),
])
def test_usage_errors_exit_2(model, args, message):
    result = cli(*args, cwd=model)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_transform_error_exits_1_naming_file_and_line(model):
    result = cli("grad", "model.py:unsupported", cwd=model)
    assert result.returncode == 1
    line = MODEL.splitlines().index("def unsupported(x, *rest):") + 1
    assert f"model.py:{line}:" in result.stderr
    assert "*args" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_error_in_the_users_module_exits_1(tmp_path):
    (tmp_path / "broken.py").write_text("import numpy as np\nraise RuntimeError('boom')\n")
    result = cli("grad", "broken.py:f", cwd=tmp_path)
    assert result.returncode == 1
    assert "boom" in result.stderr and "broken.py" in result.stderr


def test_forward_mode(model):
    result = cli("grad", "model.py:scaled", "--wrt", "x", "--mode", "forward", "-o",
                 "scaled_jvp.py", cwd=model)
    if not hasattr(pipeline, "forward_mode"):
        assert result.returncode == 2
        assert "forward mode is not available yet" in result.stderr
        return
    _ok(result)
    text = (model / "scaled_jvp.py").read_text()
    assert "def jvp_scaled(x, /, c, *, power=2.0, tangent):" in text
    assert "mode=forward" in text
    check = run_python("""
        import numpy as np, scaled_jvp
        x, t = np.linspace(0.5, 1.5, 4), np.array([1.0, -2.0, 0.5, 3.0])
        value, jvp = scaled_jvp.jvp_scaled(x, 3.0, power=3.0, tangent=t)
        assert np.isclose(value, np.sum(3.0 * x ** 3))
        assert np.isclose(jvp, np.sum(9.0 * x ** 2 * t)), jvp
        print("ok")
    """, cwd=model)
    assert "ok" in _ok(check).stdout
    checked = _ok(cli("check", "model.py:loss", "--wrt", "W,b", "--mode", "forward", "--args",
                      "rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(4, 3))",
                      cwd=model))
    assert "OK" in checked.stdout


def test_help_shows_every_option_with_an_example(model):
    for command, options in [("grad", ["--wrt", "--mode", "--output", "--standalone",
                                       "--no-optimize", "--force"]),
                             ("show", ["--wrt", "--mode", "--no-optimize"]),
                             ("check", ["--args", "--wrt", "--mode", "--tol", "--eps"])]:
        text = _ok(cli(command, "--help", cwd=model)).stdout
        assert "examples:" in text
        for option in options:
            help_line = text[text.index(option):]
            help_line = help_line[:help_line.find("\n  -", 1)]
            assert "e.g." in help_line, (command, option)
    assert "grad" in _ok(cli("--help", cwd=model)).stdout


# --- show and check --------------------------------------------------------------------------

def test_show_prints_the_source(model):
    result = _ok(cli("show", "model.py:loss", "--wrt", "W", cwd=model))
    assert result.stdout.startswith("def vjp_loss(W, b, x, seed=None):")
    assert "# grad of:" in result.stdout
    unoptimized = _ok(cli("show", "model.py:loss", "--wrt", "W", "--no-optimize", cwd=model))
    assert unoptimized.stdout.startswith("def vjp_loss(")


def test_check_passes_on_a_correct_gradient(model):
    result = _ok(cli("check", "model.py:loss", "--wrt", "W,b", "--args",
                     "rng.normal(size=(3, 2)), rng.normal(size=2), x=rng.normal(size=(4, 3))",
                     cwd=model))
    assert "max relative error" in result.stdout and "OK" in result.stdout


def test_check_fails_when_the_gradient_disagrees(tmp_path):
    (tmp_path / "lying.py").write_text(
        "import numpy as np\nfrom s2s_ad import stop_gradient\n\n"
        "def f(x):\n    return np.sum(x * stop_gradient(x))\n")
    result = cli("check", "lying.py:f", "--args", "np.linspace(1.0, 2.0, 3)", cwd=tmp_path)
    assert result.returncode == 1
    assert "MISMATCH" in result.stdout and "max relative error" in result.stdout
    integer = cli("check", "lying.py:f", "--args", "np.arange(3)", cwd=tmp_path)
    assert integer.returncode == 2 and "float" in integer.stderr


def test_check_takes_a_list_of_layers_leaf_by_leaf(tmp_path):
    # a new user's `--args '[W1, W2], [b1, b2], X'` was refused (2026-11-30): a list is
    # checked leaf by leaf, as s2s_ad.check_grad checks it; a wrong leaf still fails
    (tmp_path / "layers.py").write_text(
        "import numpy as np\nfrom s2s_ad import stop_gradient\n\n"
        "def loss(ws, bs, x):\n    for i in range(len(ws)):\n"
        "        x = np.tanh(x @ ws[i] + bs[i])\n    return np.sum(x ** 2)\n\n"
        "def lying(ws, x):\n    return np.sum((x @ ws[0]) * stop_gradient(ws[1]))\n")
    arguments = ("[rng.normal(size=(3, 4)), rng.normal(size=(4, 2))], "
                 "[rng.normal(size=4), rng.normal(size=2)], rng.normal(size=(5, 3))")
    result = _ok(cli("check", "layers.py:loss", "--wrt", "ws,bs", "--args", arguments,
                     cwd=tmp_path))
    assert "dloss/dws" in result.stdout and "OK" in result.stdout
    lying = cli("check", "layers.py:lying", "--args",
                "[rng.normal(size=(3, 2)), rng.normal(size=2)], rng.normal(size=(5, 3))",
                cwd=tmp_path)
    assert lying.returncode == 1 and "MISMATCH" in lying.stdout
    integers = cli("check", "layers.py:lying", "--args", "[np.ones((3, 2)), np.arange(2)], "
                   "rng.normal(size=(5, 3))", cwd=tmp_path)
    assert integers.returncode == 2 and "ws[1] is an array of int64" in integers.stderr
    forward = cli("check", "layers.py:lying", "--mode", "forward", "--args",
                  "[np.ones((3, 2)), np.ones(2)], rng.normal(size=(5, 3))", cwd=tmp_path)
    assert forward.returncode == 2 and "reverse mode" in forward.stderr


# --- --standalone: runs where s2s_ad cannot be imported --------------------------------------

def _isolated_path(tmp_path):
    """A directory holding only numpy (links), for `python -I -S` with no s2s_ad anywhere."""
    site = tmp_path / "only_numpy"
    site.mkdir()
    numpy_dir = os.path.dirname(np.__file__)
    for name in ("numpy", "numpy.libs"):
        source = os.path.join(os.path.dirname(numpy_dir), name)
        if os.path.exists(source):
            os.symlink(source, site / name)
    return site


def test_standalone_module_runs_without_s2s_ad(model):
    _ok(cli("grad", "model.py:loss", "--wrt", "W,b", "--standalone", "-o", "loss_grad.py",
            cwd=model))
    text = (model / "loss_grad.py").read_text()
    assert "s2s_ad" not in "\n".join(line for line in text.splitlines()
                                     if line.startswith(("import", "from")))
    assert "def unbroadcast(" in text and "def fwd_helper(" in text

    rng = np.random.default_rng(1)
    W, b, x = rng.normal(size=(3, 2)), rng.normal(size=2), rng.normal(size=(4, 3))
    np.savez(model / "inputs.npz", W=W, b=b, x=x)
    sys.path.insert(0, str(model))
    try:
        import model as user_model
        expected = s2s_ad.grad(user_model.loss, wrt=("W", "b"))(W, b, x)
    finally:
        sys.path.remove(str(model))
        sys.modules.pop("model", None)
    np.savez(model / "expected.npz", dW=expected[0], db=expected[1])

    site = _isolated_path(model)
    stdlib = sorted({sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]})
    stdlib += [os.path.join(d, "lib-dynload") for d in stdlib]
    stdlib += [p for p in sys.path if p.endswith(".zip")]
    paths = [str(model), str(site)] + stdlib
    code = f"""
        import sys
        sys.path[:] = {json.dumps(paths)}
        try:
            import s2s_ad
        except ImportError:
            pass
        else:
            raise SystemExit("s2s_ad is importable here: " + s2s_ad.__file__)
        import numpy as np
        import loss_grad
        inputs, expected = np.load("inputs.npz"), np.load("expected.npz")
        dW, db = loss_grad.grad_loss(inputs["W"], inputs["b"], inputs["x"])
        assert np.allclose(dW, expected["dW"], rtol=1e-12, atol=0)
        assert np.allclose(db, expected["db"], rtol=1e-12, atol=0)
        assert not [m for m in sys.modules if m.startswith("s2s_ad")]
        print("standalone ok")
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    result = run_python(code, model, "-I", "-S", env=env)
    assert "standalone ok" in _ok(result).stdout


def test_standalone_refuses_what_needs_s2s_ad_at_run_time(tmp_path):
    (tmp_path / "dyn.py").write_text("import numpy as np\n\ndef apply(x, g):\n"
                                     "    return np.sum(g(x))\n")
    result = cli("grad", "dyn.py:apply", "--standalone", cwd=tmp_path)
    assert result.returncode == 1
    assert "without s2s_ad" in result.stderr and "dyn.py:3:" in result.stderr


FORWARD_MODEL = """\
import numpy as np


def f(x):
    y = np.tanh(x).astype(np.float32)
    z = float(np.sum(y * y))
    return z / np.linalg.norm(x) + np.sum(np.zeros(3) + x[:3])
"""


def test_standalone_forward_module_defines_each_helper_once(tmp_path):
    """Tangent helpers and the others share their private helpers (one `_xp`), and the
    copies import nothing from s2s_ad when they run."""
    (tmp_path / "fwd.py").write_text(FORWARD_MODEL)
    _ok(cli("grad", "fwd.py:f", "--mode", "forward", "--standalone", "-o", "fwd_jvp.py",
            cwd=tmp_path))
    text = (tmp_path / "fwd_jvp.py").read_text()
    defined = [line.split("(")[0].split()[1] for line in text.splitlines()
               if line.startswith(("def ", "class "))]
    assert defined.count("_xp") == 1
    assert len(defined) == len(set(defined)), defined
    assert "def tangent_cast(" in text and "def norm_direction(" in text
    code = """
        import sys
        import numpy as np
        import fwd_jvp
        x, t = np.linspace(0.5, 1.5, 4), np.array([1.0, -2.0, 0.5, 3.0])
        value, jvp = fwd_jvp.jvp_f(x, tangent=t)
        assert not [m for m in sys.modules if m.startswith("s2s_ad")]
        import s2s_ad, fwd
        expected = s2s_ad.jvp(fwd.f)(x, tangent=t)
        assert np.allclose(value, expected[0], rtol=1e-12) and np.allclose(jvp, expected[1], rtol=1e-12)
        print("same numbers")
    """
    assert "same numbers" in _ok(run_python(code, tmp_path)).stdout


# --- pieces, in process ----------------------------------------------------------------------

def test_free_names():
    source = "def f(x, seed=None):\n    y = np.sin(x) + SCALE\n    return [y for _ in range(2)]\n"
    assert export.free_names(source) == ["np", "SCALE", "range"]


def test_forward_wrapper_passes_the_tangent(tmp_path):
    """A stand-in for the forward transform: the wrapper binds arguments and forwards extras."""
    path = tmp_path / "fwd_model.py"
    path.write_text("import numpy as np\n\ndef f(x, c=2.0):\n    return np.sum(c * x * x)\n")
    module = type(sys)("fwd_model")
    module.__file__ = str(path)
    exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
    source = ("def jvp_f(x, c, tangent=None):\n"
              "    return np.sum(c * x * x), np.sum(2 * c * x * tangent)\n")
    generated = pipeline.Generated(None, source, "jvp_f", {"np": np}, ["x", "c"], ("x",))
    target = export.Target(function=module.f, attr="f", module=module, path=str(path),
                           display_path="fwd_model.py")
    options = export.Options(mode="forward", wrt=("x",))
    text = export.write_module(generated, target, options, command="s2s-ad ...")
    assert "def _jvp_f(x, c, tangent=None):" in text
    assert "def jvp_f(x, c=2.0, *, tangent=None):" in text
    namespace = {}
    exec(compile(text, "<written>", "exec"), namespace)
    value, jvp = namespace["jvp_f"](np.array([1.0, 2.0]), tangent=np.array([1.0, 0.0]))
    assert value == 10.0 and jvp == 4.0


def test_cli_demo_script(tmp_path):
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    env = _env()
    env["PYTHON"] = sys.executable
    result = subprocess.run(["bash", os.path.join(REPO, "examples", "cli_demo.sh")],
                            cwd=tmp_path, capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cli demo done" in result.stdout
    assert "2 of 2 written module(s) up to date" in result.stderr       # check-stale
    assert re.search(r"^np\.sin\s+yes\s+yes\s+yes", result.stdout, flags=re.M)    # s2s-ad rules


def test_a_failed_write_leaves_neither_a_partial_file_nor_a_temporary(tmp_path, monkeypatch):
    from s2s_ad import cli as command_line
    target = tmp_path / "loss_grad.py"
    target.write_text("# the previous version\n")

    def disk_full(descriptor):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(command_line.os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space"):
        command_line.write_atomically(str(target), "def grad_loss(x):\n    ...\n", force=True)
    assert target.read_text() == "# the previous version\n"
    assert sorted(os.listdir(tmp_path)) == ["loss_grad.py"]
    monkeypatch.undo()
    assert command_line.write_atomically(str(target), "# new\n", force=True) == "wrote"
    assert target.read_text() == "# new\n"
    assert sorted(os.listdir(tmp_path)) == ["loss_grad.py"]


def test_standalone_module_keeps_the_run_time_alias_check(tmp_path):
    (tmp_path / "aliased.py").write_text(textwrap.dedent("""
        import numpy as np

        def f(a):
            s = np.asarray(a)      # `a` itself where it is an array (not seen through)
            s += 2.0
            s *= a
            return s
    """))
    _ok(cli("grad", "aliased.py:f", "--standalone", "-o", "aliased_grad.py", cwd=tmp_path))
    code = """
        import numpy as np
        import aliased_grad
        assert aliased_grad.grad_f(1.5) == 2 * 1.5 + 2.0        # a number is rebound
        try:
            aliased_grad.grad_f(np.ones(2))
        except TypeError as exc:
            assert "aliased.py:6:5" in str(exc) and "`a` may be that same array" in str(exc)
            print("refused")
    """
    assert "refused" in _ok(run_python(code, tmp_path)).stdout


PASSES_A_LAMBDA = '''
import numpy as np


def apply_twice(f, x):
    for _ in range(2):          # a loop: a call, not copied into loss
        x = f(x)
    return x


def loss(x):
    return np.sum(apply_twice(lambda t: np.sin(t) * 2.0, x))
'''


def test_a_lambda_passed_on_names_its_line_when_no_module_can_import_it(tmp_path):
    """A lambda passed to a helper is differentiated in Python (tests/
    test_functions_as_arguments.py); a written module cannot import the function s2s_ad made
    of it, and the refusal names the lambda's line, not a generated name."""
    (tmp_path / "lam.py").write_text(PASSES_A_LAMBDA)
    result = cli("grad", "lam.py:loss", "-o", "lam_grad.py", cwd=tmp_path)
    assert result.returncode != 0
    assert "lambda or nested def at" in result.stderr and "lam.py:12" in result.stderr, \
        result.stderr
    assert "'_lambda'" not in result.stderr
