"""Each example runs as a script in a fresh interpreter, exits 0 and prints its checked results."""
import importlib.util
import os
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")


def run_example(name, *args, cwd):
    path = os.path.join(EXAMPLES, name)
    result = subprocess.run([sys.executable, path, *args], cwd=cwd, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, f"{name} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def test_d2l_autograd(tmp_path):
    out = run_example("d2l_autograd.py", cwd=tmp_path)
    lines = out.splitlines()
    assert "gradient of 2 * x @ x (expect 4x): [ 0.  4.  8. 12.]" in lines
    assert "gradient of sum(x) (expect ones): [1. 1. 1. 1.]" in lines
    assert "vjp of x * x with a seed of ones (expect 2x): [0. 2. 4. 6.]" in lines
    assert "gradient of sum(stop_gradient(x * x) * x) (expect u = x * x): [0. 1. 4. 9.]" in lines
    assert "gradient of 2 * x @ x, called a second time (same as the first): [ 0.  4.  8. 12.]" \
        in lines
    assert any(line.startswith("gradient of f at a = ") for line in lines)
    assert "def grad_dot_twice(x):" in lines
    assert lines[-1] == "all results match the chapter"


def test_sin_derivative_plot(tmp_path):
    png = tmp_path / "sin.png"
    out = run_example("sin_derivative_plot.py", str(png), cwd=tmp_path)
    assert "the derivative of sin is cos" in out.splitlines()
    if importlib.util.find_spec("matplotlib") is None:
        assert "matplotlib is not installed: skipped the plot" in out
        assert not png.exists()
    else:
        assert f"plot saved to {png}" in out
        assert png.stat().st_size > 0


def test_sin_derivative_plot_without_argument_writes_to_a_temporary_directory(tmp_path):
    out = run_example("sin_derivative_plot.py", cwd=tmp_path)
    assert "the derivative of sin is cos" in out
    assert list(tmp_path.iterdir()) == []          # nothing written into the working directory


def test_dask_gradient_on_a_local_cluster(tmp_path):
    out = run_example("dask_gradient.py", cwd=tmp_path)
    if importlib.util.find_spec("distributed") is None or importlib.util.find_spec("dask") is None:
        assert out.startswith("skipped: ")
        pytest.skip("dask[array] or distributed is not installed")
    lines = out.splitlines()
    assert lines[0] == "lazy gradient: dask.array.core.Array over 8 chunks of 5000 rows"
    assert lines[-1] == "the cluster's gradient equals NumPy's"


# --- the README shows real output ----------------------------------------------------------------

README = os.path.join(os.path.dirname(EXAMPLES), "README.md")


def _code_blocks(text):
    """(language, body) of each fenced code block in a Markdown text."""
    blocks, language, body = [], None, None
    for line in text.splitlines():
        if body is None and line.startswith("```"):
            language, body = line[3:].strip(), []
        elif body is not None and line.startswith("```"):
            blocks.append((language, "\n".join(body) + "\n"))
            body = None
        elif body is not None:
            body.append(line)
    return blocks


def _section(text, title):
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def test_readme_example_output_is_current(tmp_path):
    """The README's example, run as example.py, prints exactly what the README shows."""
    with open(README) as fh:
        blocks = _code_blocks(_section(fh.read(), "Example"))
    (_, program), (_, shown) = blocks[0], blocks[1]
    (tmp_path / "example.py").write_text(program)
    result = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.rstrip("\n") == shown.rstrip("\n"), (
        "the generated code changed: paste this output into README.md's Example section\n"
        + result.stdout)


def test_readme_control_flow_source_is_current(tmp_path):
    """The loop-and-branch function of "How it works", saved as cf.py, generates what is shown."""
    with open(README) as fh:
        blocks = [body for language, body in _code_blocks(_section(fh.read(), "How it works"))
                  if language == "python"]
    function, shown = blocks[0], blocks[1]
    (tmp_path / "cf.py").write_text("import numpy as np\nimport s2s_ad as ad\n\n" + function
                                    + "\nprint(ad.source(ad.grad(f)), end='')\n")
    result = subprocess.run([sys.executable, "cf.py"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == shown, (
        "the generated code changed: paste this output into README.md's How it works section\n"
        + result.stdout)
