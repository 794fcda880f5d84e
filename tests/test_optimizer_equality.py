"""The optimizer changes how the derivative is written, never what it computes: with it on
and off, each golden program gives the same value and gradients, in the general code and in
the code specialized to its arguments (shape facts). The fuzz batch checks the same on every
generated program (tests/fuzz/oracle.py)."""
import inspect

import numpy as np
import pytest

import golden_programs
from s2s_ad import pipeline
from s2s_ad.analysis.kinds import kinds_of


def _wrt_names(fn, wrt):
    names = list(inspect.signature(fn).parameters)
    wrt = wrt if isinstance(wrt, tuple) else (wrt,)
    return [names[w] if isinstance(w, int) else w for w in wrt]


def _leaves(value):
    if isinstance(value, dict):
        return [leaf for key in sorted(value) for leaf in _leaves(value[key])]
    if isinstance(value, (list, tuple)):
        return [leaf for entry in value for leaf in _leaves(entry)]
    return [np.asarray(value)]


@pytest.mark.parametrize("specialized", [False, True], ids=["general", "specialized"])
@pytest.mark.parametrize("name", sorted(golden_programs.CASES))
def test_optimized_and_unoptimized_derivatives_agree(name, specialized):
    fn, wrt = golden_programs.CASES[name]
    args = golden_programs.golden_arguments(name)
    kinds = kinds_of(args) if specialized else None
    results = []
    for optimize in (True, False):
        generated = pipeline.reverse_mode(fn, _wrt_names(fn, wrt), optimize=optimize, kinds=kinds)
        results.append(generated.function(*golden_programs.golden_arguments(name), None))
    (value, grads), (value_plain, grads_plain) = results
    np.testing.assert_allclose(value, value_plain, rtol=1e-13, atol=0)
    for leaf, plain in zip(_leaves(grads), _leaves(grads_plain), strict=True):
        np.testing.assert_allclose(leaf, plain, rtol=1e-12, atol=1e-14)
