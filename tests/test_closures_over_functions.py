"""A closure whose cells hold functions made at each call (a Newton fit's `f = lambda r:
grad(loglike)(r, p_best(r))`, `loglike` and `p_best` closures over the fit's data) gets the
derivative of the first such closure, made again for the functions its own cells hold
(s2s_ad/closure_templates.py): each fit's derivatives are those of its own data, and a fit
after the first transforms (almost) nothing."""
import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad import cache


def loglike_of(r, p, x):
    return np.sum(r * np.log(p * x + 1.0) - r ** 2 * p * x)


def dloglike_dr(r, p, x):                       # by hand, for the expected values
    return np.sum(np.log(p * x + 1.0) - 2.0 * r * p * x)


def closures(x):
    """What a fit makes: closures over its data, and one over those closures."""
    loglike = lambda r, p: loglike_of(r, p, x)                  # noqa: E731
    p_best = lambda r: np.sum(x) / np.sum(r + x)                # noqa: E731
    f = lambda r: ad.grad(loglike)(r, p_best(r))                # noqa: E731
    return f, (lambda r: dloglike_dr(r, p_best(r), x))


def central(f, r, eps=1e-5):
    return (f(r + eps) - f(r - eps)) / (2 * eps)


def data(count, size=20, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 3.0, size=size) for _ in range(count)]


@pytest.mark.parametrize("r", [0.7, 1.9])
def test_each_fits_derivatives_are_those_of_its_own_data(r):
    for x in data(4):
        f, by_hand = closures(x)
        np.testing.assert_allclose(f(r), by_hand(r), rtol=1e-12)
        np.testing.assert_allclose(ad.grad(f)(r), central(by_hand, r), rtol=1e-7)
        np.testing.assert_allclose(ad.grad(ad.grad(f))(r),
                                   central(lambda s: central(by_hand, s, 1e-4), r, 1e-4),
                                   rtol=1e-4)


def test_later_fits_make_no_new_derivative_of_the_closures():
    sets = data(5, seed=1)
    for x in sets[:2]:
        f, _ = closures(x)
        ad.grad(f)(1.3)
    size = cache.size()
    for x in sets[2:]:
        f, by_hand = closures(x)
        np.testing.assert_allclose(ad.grad(f)(1.3), central(by_hand, 1.3), rtol=1e-7)
    assert cache.size() == size


def test_data_of_another_shape_gets_a_derivative_of_its_own():
    for x in data(2, size=7, seed=2) + data(2, size=11, seed=3):
        f, by_hand = closures(x)
        np.testing.assert_allclose(ad.grad(f)(0.9), central(by_hand, 0.9), rtol=1e-7)


def test_a_closure_over_a_helper_closure_and_a_module_function():
    for scale in data(3, size=3, seed=4):
        weigh = lambda v: v * scale                                    # noqa: E731
        g = lambda v: np.sum(np.tanh(weigh(v)) ** 2) + loglike_of(1.0, 0.5, v)   # noqa: E731
        v = np.array([0.2, -0.4, 0.3])
        expected = [central(lambda s: g(v + s * e), 0.0) for e in np.eye(3)]
        np.testing.assert_allclose(ad.grad(g)(v), expected, rtol=1e-6)


def weigher(scale):
    def weigh(v):
        return v * scale

    def rescale(new):
        nonlocal scale
        scale = new
    return weigh, rescale


def test_a_cell_of_a_held_closure_rebound_later_is_followed():
    v = np.array([0.2, -0.4, 0.3])
    for first, second in data(3, size=3, seed=5)[:2], data(2, size=3, seed=6):
        weigh, rescale = weigher(first)
        g = lambda u: np.sum(np.tanh(weigh(u)) ** 2)              # noqa: E731
        np.testing.assert_allclose(ad.grad(g)(v), 2 * np.tanh(first * v) * first /
                                   np.cosh(first * v) ** 2, rtol=1e-12)
        rescale(second)
        np.testing.assert_allclose(ad.grad(g)(v), 2 * np.tanh(second * v) * second /
                                   np.cosh(second * v) ** 2, rtol=1e-12)


def fit_of(x):
    p_best = lambda r: np.sum(x) / np.sum(r + x)                # noqa: E731
    return lambda r: r * p_best(r)


@pytest.mark.parametrize("order", ["jvp", "hvp", "hessian"])
def test_forward_mode_of_later_closures_uses_their_own_helpers(order):
    """Forward mode binds the helper's tangent code (calls.CalleeTangent), which is not made
    again for a new closure: the template is not used there, and each closure gets its own
    (the first closure's helper was used for later ones on 2026-11-29, before the release)."""
    for x in [np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 4.0]), np.array([2.0, 5.0, 4.0])]:
        f = fit_of(x)
        if order == "jvp":
            value, tangent = ad.jvp(f)(1.3, tangent=1.0)
            np.testing.assert_allclose([value, tangent], [f(1.3), central(f, 1.3)], rtol=1e-8)
        else:
            second = ad.hvp(f)(1.3, vector=1.0) if order == "hvp" else ad.hessian(f)(1.3)
            np.testing.assert_allclose(second, central(lambda s: central(f, s, 1e-4), 1.3, 1e-4),
                                       rtol=1e-5)


def test_no_fits_data_is_kept_alive():
    """Derivatives made from a template are kept on their closure: a fit's closures, and what
    their derivatives made at run time (the readable function of `grad(loglike)`,
    differentiated again), go with the fit (every fit's data stayed alive on 2026-11-29)."""
    import gc
    import weakref
    held = []
    for x in data(12, size=30, seed=8):
        f, _ = closures(x)
        ad.grad(ad.grad(f))(1.1)
        held.append(weakref.ref(x))
        del x, f
    gc.collect()
    assert sum(ref() is not None for ref in held) <= 2       # the template's, the last one's
