"""analysis/numpy_writes.py: which arguments of a NumPy call it writes into."""
import gast
import numpy as np
import pytest

from s2s_ad.analysis.numpy_writes import written_arguments


def written(text, function):
    call = gast.parse(text).body[0].value
    return [gast.unparse(w).strip() for w in written_arguments(call, function)]


@pytest.mark.parametrize("text, function, expected", [
    ("np.multiply(a, b, y)", np.multiply, ["y"]),
    ("np.multiply(a, b, out=y)", np.multiply, ["y"]),
    ("np.modf(x, f, i)", np.modf, ["f", "i"]),
    ("np.modf(x, out=(f, None))", np.modf, ["f"]),
    ("np.add.reduce(x, 0, None, y)", np.add.reduce, ["y"]),
    ("np.clip(x, 0, 1, y)", np.clip, ["y"]),
    ("np.copyto(y, x)", np.copyto, ["y"]),
    ("np.putmask(y, m, v)", np.putmask, ["y"]),
    ("np.fill_diagonal(y, 0.0)", np.fill_diagonal, ["y"]),
    ("rng.shuffle(y)", np.random.default_rng(0).shuffle, ["y"]),
    ("np.mean(x, 0, None, None, keep)", np.mean, []),          # out=None; `keep` is keepdims
    ("np.sum(x, axis=0)", np.sum, []),
    ("f(x, y)", None, []),                                      # not known: no out= keyword
    ("f(x, out=y[0])", None, ["y[0]"]),
])
def test_written_arguments(text, function, expected):
    assert written(text, function) == expected


@pytest.mark.parametrize("text, function, expected", [
    ("np.copyto(dst=y, src=x)", np.copyto, ["y"]),
    ("np.putmask(a=y, mask=m, values=v)", np.putmask, ["y"]),
    ("np.multiply.at(y, [0, 0], 3.0)", np.multiply.at, ["y"]),
    ("rng.shuffle(y)", None, ["y"]),                           # `rng` a parameter: not known
    ("obj.method(y)", None, []),
])
def test_written_arguments_by_keyword_and_by_method(text, function, expected):
    assert written(text, function) == expected
