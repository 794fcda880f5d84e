"""np.r_[t] / np.c_[t] with `t` a tuple variable is refused with file:line (NumPy spreads the
tuple into entries; it was differentiated as one entry: wrong jvp and grad), and hessian, hvp
and jacobian called inside a differentiated function are differentiated (the value was wrong
under jvp), checked against closed-form third derivatives."""
import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad.errors import TransformError


def g(x):
    return np.sin(x) * x ** 2


def gs(x):
    return np.sum(g(x))


def d2(x):
    return -np.sin(x) * x ** 2 + 4 * x * np.cos(x) + 2 * np.sin(x)


def d3(x):
    return -np.cos(x) * x ** 2 - 6 * x * np.sin(x) + 6 * np.cos(x)


def test_jvp_of_hessian_inside():
    def n(x):
        return ad.hessian(g)(x)
    value, t = ad.jvp(n)(0.4, tangent=1.0)
    assert np.allclose(value, d2(0.4)) and np.allclose(t, d3(0.4))

    def m(x):
        return np.sum(ad.hessian(g)(x))
    assert np.allclose(ad.jvp(m)(0.4, tangent=1.0)[1], d3(0.4))
    assert np.allclose(ad.grad(m)(0.4), d3(0.4))


def test_grad_of_array_hessian_hvp_jacobian_inside():
    x = np.array([0.3, 0.5, 0.7])

    def m(x):
        return np.sum(ad.hessian(gs)(x))

    def h(x):
        return np.sum(ad.hvp(gs)(x, vector=np.ones_like(x)))

    def gv(x):
        return g(x) * np.array([1., 2., 3.])

    def j(x):
        return np.sum(ad.jacobian(gv)(x))
    e0 = np.array([1., 0., 0.])
    for fn in (m, h):
        assert np.allclose(ad.grad(fn)(x), d3(x))
        assert np.allclose(ad.jvp(fn)(x, tangent=e0)[1], d3(x[0]))
    assert np.allclose(ad.grad(j)(x), d3(x) * [1, 2, 3] * 0 + (
        -np.sin(x) * x ** 2 + 4 * x * np.cos(x) + 2 * np.sin(x)) * [1, 2, 3])


def test_tuple_wrt_hessian_inside_is_refused_with_location():
    def g2(x, y):
        return np.sum(np.sin(x) * y ** 2)

    def k(x, y):
        return np.sum(ad.hessian(g2, wrt=(0, 1))(x, y)[0][0])
    for run in (lambda: ad.jvp(k)(0.4, 0.5, tangent=1.0), lambda: ad.grad(k)(0.4, 0.5)):
        with pytest.raises(TransformError) as info:
            run()
        assert info.value.filename == __file__ and "hessian" in str(info.value)
        assert "ad.hessian(g2" in info.value.source_line


def f_r(x):
    parts = (x, 2 * x)
    return np.sum(np.r_[parts][1:4] ** 2 * np.array([1., 10., 100.]))


def f_c(x):
    parts = (x, 2 * x)
    return np.sum(np.c_[parts] ** 2 * np.arange(6.).reshape(3, 2))


@pytest.mark.parametrize("fn", [f_r, f_c])
def test_concatenator_of_tuple_variable_is_refused(fn):
    x = np.array([0.3, 0.5, 0.7])
    for run in (lambda: ad.grad(fn)(x), lambda: ad.jvp(fn)(x, tangent=x),
                lambda: ad.hvp(fn)(x, vector=x)):
        with pytest.raises(TransformError) as info:
            run()
        assert info.value.filename == __file__ and "parts" in info.value.source_line
        assert "np.concatenate" in info.value.hint


def test_concatenator_with_entries_written_still_works():
    def ok(x):
        return np.sum(np.r_[x, 2 * x] ** 2)
    x = np.array([0.3, 0.5, 0.7])
    assert np.allclose(ad.grad(ok)(x), 10 * x)
