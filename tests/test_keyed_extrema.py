"""`max(xs, key=...)` and `min(..., key=...)` (issue 15): the item at the position the keys
pick, a constant choice; the derivative flows through the item picked. A list bound to a name,
a display of reads (`max(x[0], x[1], key=abs)`), a key that is a lambda, a NumPy function or a
function of the module, ties (the first wins, as in Python). Every mode against central finite
differences and HIPS autograd."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode

X = np.array([0.3, -0.7, 1.1, 0.4])


def energy(v):
    return np.sum(v * v)


def lambda_key(x):
    xs = [x, x * 2.0, np.sin(x)]
    best = max(xs, key=lambda v: np.sum(v))
    return np.sum(best * x)


def numpy_key(x):
    xs = [np.cos(x), x * 0.5, np.tanh(x)]
    return np.sum(min(xs, key=np.sum) ** 2)


def module_function_key(x):
    candidates = (x * x, np.exp(x) * 0.1)
    return np.sum(max(candidates, key=energy) * x)


def entries(x):
    return max(x[0], x[1], x[2], key=abs) * min(x[1], x[3], key=abs)


def in_a_loop(x):
    total = 0.0
    for k in range(1, 4):
        parts = [x * k, np.sin(x * k)]
        total = total + np.sum(max(parts, key=np.mean))
    return total


def ties(x):
    xs = [x * 1.0, x + 0.0, x * 3.0]
    return np.sum(max(xs, key=lambda v: 1.0) * np.sin(x))   # every key equal: the first


@pytest.mark.parametrize("fn", [lambda_key, numpy_key, module_function_key, entries,
                                in_a_loop, ties])
def test_every_mode(fn):
    check_every_mode(fn, X)


def test_empty_sequence_raises_as_python_does():
    def empty(x):
        xs = []
        return max(xs, key=abs) + np.sum(x)
    with pytest.raises(ValueError, match="empty"):
        ad.grad(empty)(X)
