"""s2s_ad on the programs modelled on HIPS autograd's examples (benchmarks/autograd_examples/):
its gradient agrees with autograd's where autograd is installed and, independent of autograd,
with central differences on a few entries of one parameter. Timing is never part of a test
(benchmarks/autograd_examples/run.py times them)."""
import os
import sys

import numpy as np
import pytest

import s2s_ad
from fd import assert_close, numerical_grad

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
from autograd_examples import harness  # noqa: E402


@pytest.mark.parametrize("name", harness.PROGRAMS)
def test_the_gradient_agrees_with_autograds(name):
    pytest.importorskip("autograd")
    ours, theirs = harness.gradients(name)
    assert harness.structure(ours) == harness.structure(theirs)
    mine, ref = harness.leaves(ours), harness.leaves(theirs)
    largest = max(float(np.max(np.abs(b))) for b in ref if b.size)
    for a, b in zip(mine, ref):
        # relative 1e-8 of the leaf's largest entry, plus an absolute term scaled to the largest
        # entry of any leaf: the biases that feed a batch normalisation (variational_autoencoder,
        # generative_adversarial_net) have a true gradient of zero, and both tools return
        # roundoff there (~1e-19 against a largest entry ~1e-2) that agrees to nothing relative
        # to itself; measured against the largest leaf it agrees to ~1e-10 and better
        assert np.max(np.abs(a - b)) <= 1e-8 * np.max(np.abs(b)) + 1e-12 * largest


def test_the_negative_binomial_fits_agree_with_autograds():
    pytest.importorskip("autograd")
    ours, theirs = harness.fits("negative_binomial")
    np.testing.assert_allclose(np.asarray(ours, float), np.asarray(theirs, float), rtol=1e-8)


def test_fits_to_other_data_agree_with_autograds():
    """A fit after the first reuses the first fit's derivatives, made again for its own
    closures (s2s_ad/closure_templates.py): each lands where autograd's fit of its data does."""
    pytest.importorskip("autograd")
    ours, theirs = harness.load_numpy("negative_binomial"), harness.load_autograd("negative_binomial")
    rs = np.random.RandomState(harness.SEED + 1)
    for r, p, size in [(5.0, 0.5, 1000), (3.0, 0.3, 400), (8.0, 0.6, 1000)]:
        counts = ours.sample_counts(rs, r, p, size)
        np.testing.assert_allclose(np.asarray(ours.fit_maxlike(counts, 1.0), float),
                                   np.asarray(theirs.fit_maxlike(counts, 1.0), float), rtol=1e-8)


def test_the_negative_binomial_fit_is_a_stationary_point():
    """Newton's method with s2s_ad's second and third derivatives lands where the likelihood's
    gradient (by central differences, not by either tool) vanishes."""
    program = harness.load_numpy("negative_binomial")
    counts, r_guess = program.fit_args(np.random.RandomState(harness.SEED))
    r, p = program.fit_maxlike(counts, r_guess)
    assert abs(r - r_guess) > 1.0                       # it moved: the data have r = 5
    for argnum in (0, 1):
        slope = numerical_grad(program.loss, (r, p, counts), argnum)
        assert abs(float(slope)) < 1e-4


# program -> (the argument of loss that holds the parameter, the path to the parameter inside
# it, the flat indices of the entries perturbed); each entry's true gradient is not zero
SPOTS = {
    "convnet": (0, (), [0, 41, 300, -1]),
    "neural_net": (0, (0, 0), [0, 777, -1]),
    "rnn": (0, ("change",), [5, 400, -1]),
    "variational_autoencoder": (0, (1, 0, 0), [0, 1000, -1]),
    "generative_adversarial_net": (1, (1, 0), [3, 500, -1]),
}


def _at(tree, path):
    for key in path:
        tree = tree[key]
    return tree


def _spot_differences(loss, args, array, entries, eps=1e-6):
    """Central differences of loss(*args) in the given flat entries of `array` (one of the
    arrays inside args, perturbed in place and restored)."""
    flat = array.reshape(-1)
    out = []
    for i in entries:
        kept = flat[i]
        flat[i] = kept + eps
        up = loss(*args)
        flat[i] = kept - eps
        down = loss(*args)
        flat[i] = kept
        out.append((up - down) / (2 * eps))
    return np.array(out)


@pytest.mark.parametrize("name", list(SPOTS))
def test_the_gradient_agrees_with_central_differences(name):
    program = harness.load_numpy(name)
    args = program.make_args(np.random.RandomState(harness.SEED))
    argnum, path, entries = SPOTS[name]
    gradient = s2s_ad.grad(program.loss, wrt=program.WRT)(*args)
    if isinstance(program.WRT, tuple):
        gradient = gradient[program.WRT.index(argnum)]
    exact = _at(gradient, path).reshape(-1)[entries]
    array = _at(args[argnum], path)
    numerical = _spot_differences(program.loss, args, array, entries)
    assert np.all(np.abs(exact) > 1e-6 * np.max(np.abs(exact)))
    assert_close(exact, numerical, rtol=1e-5, atol=1e-6 * np.max(np.abs(exact)))


def test_the_negative_binomial_gradient_agrees_with_central_differences():
    program = harness.load_numpy("negative_binomial")
    args = program.make_args(np.random.RandomState(harness.SEED))
    dr, dp = s2s_ad.grad(program.loss, wrt=program.WRT)(*args)
    assert_close(dr, numerical_grad(program.loss, args, 0), rtol=1e-6)
    assert_close(dp, numerical_grad(program.loss, args, 1), rtol=1e-6)
