"""Golden files: the emitted derivative source, pinned. Regenerate on purpose only:

    python -m pytest tests/test_golden.py --update-golden

then read the diff; longer or uglier output is a regression.
"""
from pathlib import Path

import pytest

import golden_programs
import s2s_ad as ad

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name", sorted(golden_programs.CASES))
def test_emitted_source_matches_golden_file(name, request):
    fn, wrt = golden_programs.CASES[name]
    source = ad.source(ad.grad(fn, wrt=wrt))
    path = GOLDEN / f"{name}.py"
    if request.config.getoption("--update-golden"):
        path.write_text(source)
    assert path.exists(), f"no golden file {path.name}: run pytest --update-golden and review it"
    assert source == path.read_text(), (
        f"the generated source of {name} changed; if intended, regenerate with "
        f"--update-golden and review the diff")


def test_every_golden_file_has_a_case():
    stale = {p.stem for p in GOLDEN.glob("*.py")} - set(golden_programs.CASES)
    assert not stale, f"golden files without a case: {sorted(stale)}"
