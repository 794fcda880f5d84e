"""Golden files: the emitted derivative source, pinned. Regenerate on purpose only:

    pytest tests/test_golden.py --update-golden

then read the diff; longer or uglier output is a regression.
"""
import importlib
import inspect
import os
import re
import types
from pathlib import Path

import numpy as np
import pytest

import golden_programs
import s2s_ad as ad
from fd import assert_close, numerical_grad

GOLDEN = Path(__file__).parent / "golden"


TRANSFORMS = {"reverse": (ad.grad, golden_programs.CASES, GOLDEN),
              "forward": (ad.jvp, golden_programs.FORWARD_CASES, GOLDEN / "forward"),
              "hvp": (ad.hvp, golden_programs.HVP_CASES, GOLDEN / "hvp")}


def _stable(source):
    """hvp comments name the generated gradient's file, numbered in order of generation; run-time
    checks name the user's file, wherever the tests are."""
    source = source.replace(f"'{Path(__file__).parent}{os.sep}", "'")
    return re.sub(r"(<s2s_ad [^>#]*)#\d+>", r"\1#N>", source)


@pytest.mark.parametrize("kind, name", [(kind, name) for kind, (_, cases, _) in TRANSFORMS.items()
                                        for name in sorted(cases)])
def test_emitted_source_matches_golden_file(kind, name, request):
    transform, cases, folder = TRANSFORMS[kind]
    fn, wrt = cases[name]
    source = _stable(ad.source(transform(fn, wrt=wrt)))
    path = folder / f"{name}.py"
    if request.config.getoption("--update-golden"):
        folder.mkdir(exist_ok=True)
        path.write_text(source)
    assert path.exists(), f"no golden file {path.name}: run pytest --update-golden and review it"
    assert source == path.read_text(), (
        f"the generated {kind} source of {name} changed; if intended, regenerate with "
        f"--update-golden and review the diff")


def test_every_golden_file_has_a_case():
    for _, cases, folder in TRANSFORMS.values():
        stale = {p.stem for p in folder.glob("*.py")} - set(cases)
        assert not stale, f"golden files in {folder.name} without a case: {sorted(stale)}"


# ---------------------------------------------------------------------------------------------
# the pinned programs compute the right derivatives (a golden file pins text, not correctness)
# ---------------------------------------------------------------------------------------------
def _wrt_indices(fn, wrt):
    names = list(inspect.signature(fn).parameters)
    wrt = wrt if isinstance(wrt, tuple) else (wrt,)
    return [names.index(w) if isinstance(w, str) else w for w in wrt]


def _leaves(value):
    """(getter, setter) pairs over the arrays of an argument: itself, or a dict's entries."""
    if isinstance(value, dict):
        return [(lambda v, k=k: v[k], lambda v, x, k=k: {**v, k: x}) for k in sorted(value)]
    return [(lambda v: v, lambda v, x: x)]


def _numerical(fn, args, k, get, put):
    def along(leaf):
        shifted = list(args)
        shifted[k] = put(args[k], leaf)
        return fn(*shifted)
    return numerical_grad(along, [get(args[k])], 0)


@pytest.mark.parametrize("name", sorted(golden_programs.CASES))
def test_golden_program_gradient_matches_finite_differences(name):
    fn, wrt = golden_programs.CASES[name]
    args = golden_programs.golden_arguments(name)
    grads = ad.grad(fn, wrt=wrt)(*args)
    grads = grads if isinstance(wrt, tuple) else (grads,)
    for k, g in zip(_wrt_indices(fn, wrt), grads):
        for get, put in _leaves(args[k]):
            assert_close(get(g), _numerical(fn, args, k, get, put), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", sorted(golden_programs.FORWARD_CASES))
def test_golden_program_tangent_matches_finite_differences(name):
    fn, wrt = golden_programs.FORWARD_CASES[name]
    args = golden_programs.golden_arguments(name)
    indices = _wrt_indices(fn, wrt)
    rng = np.random.default_rng(3)
    directions = [rng.standard_normal(np.shape(args[k])) for k in indices]

    def moved(step):
        shifted = list(args)
        for k, v in zip(indices, directions):
            shifted[k] = args[k] + step * v
        return fn(*shifted)

    tangent = tuple(directions) if isinstance(wrt, tuple) else directions[0]
    _, t = ad.jvp(fn, wrt=wrt)(*args, tangent=tangent)
    assert_close(t, (moved(1e-6) - moved(-1e-6)) / 2e-6, rtol=1e-6, atol=1e-8)


def _with_autograd_numpy(fn):
    """`fn` with its module's `np` replaced by autograd.numpy: an independent gradient."""
    anp = importlib.import_module("autograd.numpy")
    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": anp}, fn.__name__,
                              fn.__defaults__, fn.__closure__)


@pytest.mark.parametrize("name", sorted(golden_programs.HVP_CASES))
def test_golden_program_hvp_matches_differences_of_an_independent_gradient(name):
    autograd = importlib.import_module("autograd")
    fn, wrt = golden_programs.HVP_CASES[name]
    args = golden_programs.golden_arguments(name)
    (k,) = _wrt_indices(fn, wrt)
    gradient = autograd.grad(_with_autograd_numpy(fn), k)
    v = np.random.default_rng(5).standard_normal(np.shape(args[k]))

    def gradient_at(step):
        shifted = list(args)
        shifted[k] = args[k] + step * v
        return gradient(*shifted)

    expected = (gradient_at(1e-6) - gradient_at(-1e-6)) / 2e-6
    assert_close(ad.hvp(fn, wrt=wrt)(*args, vector=v), expected, rtol=1e-5, atol=1e-7)
