"""Stale written modules: `s2s-ad check-stale` exits 1 when a module's source changed since it
was written (for CI), and importing such a module warns, naming the command that regenerates it."""
import pytest

from test_cli import _ok, cli, model, run_python  # noqa: F401  (model is a fixture)


@pytest.fixture
def written(model):       # noqa: F811
    _ok(cli("grad", "model.py:loss", "--wrt", "W", "-o", "out/loss_grad.py", cwd=model))
    _ok(cli("grad", "model.py:scaled", "--standalone", "-o", "out/scaled_grad.py", cwd=model))
    return model


def test_fresh_modules_are_up_to_date(written):
    result = _ok(cli("check-stale", "out", cwd=written))
    assert "2 of 2 written module(s) up to date" in result.stderr and "stale" not in result.stdout


def test_a_changed_source_makes_every_module_from_it_stale(written):
    with open(written / "model.py", "a") as handle:
        handle.write("\n# edited\n")
    result = cli("check-stale", "out", cwd=written)
    assert result.returncode == 1
    assert result.stdout.count("stale: ") == 2 and "changed since it was written" in result.stdout
    assert "regenerate: s2s-ad grad model.py:loss --wrt W -o out/loss_grad.py --force" \
        in result.stdout
    _ok(cli("grad", "model.py:loss", "--wrt", "W", "-o", "out/loss_grad.py", "--force",
            cwd=written))
    result = cli("check-stale", "out/loss_grad.py", cwd=written)
    assert result.returncode == 0, result.stdout


def test_a_missing_source_is_stale_and_a_path_with_no_module_is_a_usage_error(written):
    (written / "model.py").rename(written / "renamed.py")
    result = cli("check-stale", "out", cwd=written)
    assert result.returncode == 1 and "is missing" in result.stdout
    assert cli("check-stale", "renamed.py", cwd=written).returncode == 2
    missing = cli("check-stale", "out", "nowhere/", cwd=written)
    assert missing.returncode == 2 and "no such file or directory: nowhere/" in missing.stderr


@pytest.mark.parametrize("module", ["loss_grad", "scaled_grad"])
def test_importing_a_stale_module_warns(written, module):
    code = f"""
        import sys, warnings
        sys.path.insert(0, "out")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import {module}
        print([str(w.message) for w in caught])
    """
    assert "changed since" not in _ok(run_python(code, written)).stdout
    with open(written / "model.py", "a") as handle:
        handle.write("\n# edited\n")
    out = _ok(run_python(code, written)).stdout
    assert f"changed since {module} was written from it" in out and "regenerate it: s2s-ad" in out
