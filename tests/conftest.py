import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))


def pytest_report_header(config):
    import s2s_ad
    return f"s2s_ad {s2s_ad.__version__} from {os.path.dirname(s2s_ad.__file__)}"


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true",
                     help="rewrite tests/golden/*.py from the current generator output")


@pytest.fixture
def rng():
    return np.random.default_rng(0)
