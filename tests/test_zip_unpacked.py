"""`zip(*rows)` in a loop header, where `rows` is written out (refused until 2026-11-27: zip
has no rule outside a loop it can lower): the loop over `zip(rows[0], rows[1], ...)`, against
central finite differences and HIPS autograd in every mode. A list whose length is not known
where it is written stays refused, at the user's line."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode


def pairs_of_arrays(x):
    pairs = [x[:2] * 2.0, np.sin(x[2:])]
    total = 0.0
    for a, b in zip(*pairs):
        total = total + a * b
    return total


def triples_of_numbers(x):
    rows = ((x[0], x[1] ** 2, 3.0), (np.cos(x[2]), x[3], x[0] * x[1]))
    total = 0.0
    for k, (a, b) in enumerate(zip(*rows)):
        total = total + a * b * (k + 1.0)
    return total


def a_display_unpacked_in_place(x):
    total = 0.0
    for a, b, c in zip(*[x, x[::-1], np.tanh(x)]):
        total = total + a * b - c ** 2
    return total


CASES = [pairs_of_arrays, triples_of_numbers, a_display_unpacked_in_place]


@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_against_both_oracles(fn):
    check_every_mode(fn, np.array([0.3, -0.7, 1.1, 0.4]))


def rows_grown_in_a_loop(x):
    rows = []
    for k in range(2):
        rows.append(x * (k + 1.0))
    total = 0.0
    for a, b in zip(*rows):
        total = total + a * b
    return total


def test_rows_of_a_length_not_written_out():
    # refused until 2026-11-29; zip(*rows) is runtime.zipped(rows) now, with rules
    check_every_mode(rows_grown_in_a_loop, np.array([0.3, -0.7]))
