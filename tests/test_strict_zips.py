"""`zip(..., strict=True)` (issue 15): the zip after a check of the lengths that raises the
ValueError Python raises. In a loop header, a generator expression, and `list(zip(...))`, in
every mode against central finite differences and HIPS autograd."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode

X = np.array([0.3, -0.7, 1.1, 0.4])


def loop_header(x):
    total = 0.0
    for a, w in zip([x, np.sin(x)], [1.5, -2.0], strict=True):
        total = total + np.sum(a * w)
    return total


def generator_sum(x):
    ws = [1.0, 2.0, 3.0]
    return sum(a * w for a, w in zip(x[:3], ws, strict=True)) * x[3]


def pairs_at_once(x):
    pairs = list(zip([x, x * 2.0], [np.sin(x), x], strict=True))
    return np.sum(pairs[1][0] * pairs[0][1])


def strict_false(x):
    return sum(np.sum(a * b) for a, b in zip([x, x * x], [x, 1.0], strict=False))


@pytest.mark.parametrize("fn", [loop_header, generator_sum, pairs_at_once, strict_false])
def test_every_mode(fn):
    check_every_mode(fn, X)


def unequal(x):
    total = 0.0
    for a, w in zip(x, [1.0, 2.0], strict=True):
        total = total + a * w
    return total


@pytest.mark.parametrize("transform", [ad.grad, lambda f: (lambda x: ad.jvp(f)(x, tangent=x))])
def test_unequal_lengths_raise_as_python_does(transform):
    with pytest.raises(ValueError, match="strict=True"):
        transform(unequal)(X)
