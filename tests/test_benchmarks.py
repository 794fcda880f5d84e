"""The benchmark workloads stay correct: the runner's self-check in quick form, NumPy contenders
only (hand-written gradient against central differences, s2s_ad's gradient, jvp and hvp against
the hand-written one). Timing is never part of a test."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
import runner  # noqa: E402
from selfcheck import Disagreement, check_by_hand  # noqa: E402
from workloads import WORKLOADS, Workload  # noqa: E402


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_workload_gradients_agree(name):
    assert runner.self_check([name]) == []


def test_a_wrong_hand_written_gradient_is_caught():
    mlp = WORKLOADS["mlp_small"]
    halved = lambda *args: {k: v / 2 for k, v in mlp.by_hand(*args).items()}   # noqa: E731
    wrong = Workload("wrong", mlp.function, halved, mlp.make_inputs, mlp.wrt, "")
    rng = np.random.default_rng(0)
    with pytest.raises(Disagreement):
        check_by_hand(wrong, wrong.make_inputs(rng), rng)


def test_the_runner_prints_its_tables_in_quick_mode(capsys):
    import run
    assert run.main(["--quick", "--only", "mlp_small", "--no-peers", "--repeats", "1",
                     "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| mlp_small |" in out and "s2s_ad / hand-written" in out


def test_the_dask_cluster_benchmark_checks_its_gradient_and_prints_its_table(capsys):
    pytest.importorskip("distributed")
    import dask_cluster
    assert dask_cluster.main(["--rows", "20000", "--chunk-rows", "5000", "--repeats", "1",
                              "--workers", "1", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| 1 |" in out and "s2s_ad / hand-written" in out
