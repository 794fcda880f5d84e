"""The NumPy coverage table (docs/numpy_coverage.md, `s2s-ad rules`) is read from the rule
registry and kept current; a function missing from it is refused where the user called it."""
import importlib
import inspect
from pathlib import Path

import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad import cli, coverage, rules
from s2s_ad.errors import NoDerivativeRule

DOC = Path(__file__).resolve().parent.parent / "docs" / "numpy_coverage.md"


def test_the_coverage_document_is_current():
    """The document is generated with SciPy imported (its rows are rules loaded then)."""
    for name in coverage.OPTIONAL_NAMESPACES:
        importlib.import_module(name)         # scipy: in the test extra
    assert DOC.read_text() == coverage.markdown(), \
        "docs/numpy_coverage.md is stale: regenerate it with `s2s-ad rules --markdown`"


def test_the_rules_command_prints_the_table(capsys):
    assert cli.main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert rows["np.sin"][:2] == ["yes", "yes"]
    assert rows["np.argmax"][0] == "constant"
    assert "np.unwrap" not in rows


def test_aliases_share_one_row():
    names = [row[0] for row in coverage.coverage_rows()]
    assert "np.true_divide / np.divide" in names
    assert not any(name == "np.divide" for name in names)


def _rule_calling(template):
    return rules.Rule(key=template, template=template)


def _needs_unwrap(y, x):
    rules.d[x] = rules.d[y] * np.unwrap(x) * np.cos(x)


def _needs_nothing(y, x):
    rules.d[x] = rules.d[y] * np.cos(x) * np.shape(x)[0]


def test_second_order_names_what_a_rule_calls_without_a_tangent():
    assert coverage.missing_second_order(_rule_calling(_needs_unwrap)) == ["np.unwrap"]
    assert coverage.missing_second_order(_rule_calling(_needs_nothing)) == []


def unwrapped(x):
    y = np.sin(x)
    return np.sum(np.unwrap(y))


CALLS = {"reverse": lambda x: ad.grad(unwrapped)(x),
         "forward": lambda x: ad.jvp(unwrapped)(x, tangent=np.ones_like(x))}


@pytest.mark.parametrize("mode", CALLS)
def test_a_function_missing_from_the_table_is_refused_at_the_users_line(mode):
    with pytest.raises(NoDerivativeRule) as info:
        CALLS[mode](np.array([0.1, 0.2]))
    line = inspect.getsourcelines(unwrapped)[1] + 2
    assert f"test_coverage.py:{line}:" in str(info.value) and "np.unwrap" in str(info.value)
