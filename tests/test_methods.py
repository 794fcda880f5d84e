"""Bound methods and callable objects as transform targets; check_grad on containers; wrt and
seed conversions (NumPy integer wrt, list seeds)."""
import numpy as np
import pytest

import method_programs as P
import s2s_ad as ad
import s2s_ad.rules
from s2s_ad import d
from fd import assert_close, numerical_grad

W = np.array([0.5, -1.0, 2.0])
X = np.array([0.3, -0.7, 1.1])


def method_fd(method, args, argnum):
    """Finite differences of a bound method with respect to its visible argument `argnum`."""
    return numerical_grad(method, args, argnum)


@pytest.mark.parametrize("wrt", [0, "x", -2, np.int64(0)])
def test_grad_of_a_bound_method_is_with_respect_to_its_visible_parameters(wrt):
    m = P.Model(W)
    g = ad.grad(m.loss2, wrt=wrt)(X, 1.5)
    assert_close(g, method_fd(m.loss2, [X, 1.5], 0))


def test_bound_method_default_and_tuple_wrt():
    m = P.Model(W)
    gx, gy = ad.grad(m.loss2, wrt=("x", 1))(X, 1.5)
    assert_close(gx, method_fd(m.loss2, [X, 1.5], 0))
    assert_close(gy, method_fd(m.loss2, [X, 1.5], 1))
    assert_close(ad.grad(m.loss2)(X), method_fd(m.loss2, [X], 0))     # y's default
    assert_close(ad.grad(m.loss2)(x=X, y=1.5), method_fd(m.loss2, [X, 1.5], 0))


def test_wrt_cannot_name_the_bound_instance():
    m = P.Model(W)
    with pytest.raises(ValueError, match=r"wrt='self' is not a parameter of Model.loss \(x\) "
                                         r"\(the instance is bound already\)"):
        ad.grad(m.loss, wrt="self")
    with pytest.raises(ValueError, match=r"wrt=1 is out of range: Model.loss has 1 parameter"):
        ad.grad(m.loss, wrt=1)


def test_two_instances_share_the_derivative_but_not_the_instance():
    ad.clear_cache()
    a, b = P.Model(W), P.Model(np.array([3.0, 0.1, -0.4]))
    ga = ad.grad(a.loss)(X)
    gb = ad.grad(b.loss)(X)              # same generated code, b passed as self
    assert_close(ga, method_fd(a.loss, [X], 0))
    assert_close(gb, method_fd(b.loss, [X], 0))
    assert not np.allclose(ga, gb)
    assert ad.source(ad.grad(a.loss)).startswith("def grad_loss(self, x):")
    size = s2s_ad.cache.size()
    ad.grad(b.loss)(X)
    ad.grad(P.Model.loss, wrt=1)(a, X)   # the unbound form is the same derivative
    assert s2s_ad.cache.size() == size
    # an instance changed after the transform was made is read at call time
    df = ad.grad(a.loss)
    a.w = b.w
    assert_close(df(X), gb)


def test_every_transform_accepts_a_bound_method():
    m = P.Model(W)
    value, g = ad.value_and_grad(m.loss)(X)
    assert value == pytest.approx(m.loss(X))
    assert_close(g, method_fd(m.loss, [X], 0))
    seed = np.array([1.0, -2.0, 0.5])
    y, g = ad.vjp(m.out)(X, seed=seed)
    assert_close(y, m.out(X))
    assert_close(g, numerical_grad(lambda x: np.sum(m.out(x) * seed), [X], 0))
    t = np.array([0.2, 0.1, -1.0])
    value, dy = ad.jvp(m.loss)(X, tangent=t)
    assert dy == pytest.approx(float(method_fd(m.loss, [X], 0) @ t), rel=1e-6)
    assert_close(ad.jacobian(m.out)(X), np.diag(W * np.cos(X)))
    H = ad.hessian(m.loss)(X)
    assert_close(H, np.diag(-2 * W ** 2 * np.tanh(W * X) / np.cosh(W * X) ** 2), rtol=1e-6)
    assert_close(ad.hvp(m.loss)(X, vector=t), H @ t)
    assert ad.check_grad(m.loss2, X, 1.5, wrt=(0, 1)) < 1e-6
    assert "def grad_loss(self, x" in ad.source(ad.grad(m.loss))


def test_method_calling_another_method_and_classmethod():
    m = P.Model(W)
    assert_close(ad.grad(m.calls_method)(X), method_fd(m.calls_method, [X], 0))
    assert_close(ad.grad(P.Model.scaled)(X, 3.0), method_fd(P.Model.scaled, [X, 3.0], 0))
    assert_close(ad.grad(m.scaled, wrt="k")(X, 3.0), np.sum(X ** 2))


def test_second_order_through_a_bound_method():
    m = P.Model(W)
    h = ad.grad(ad.grad(m.loss2, wrt=1), wrt=1)(X, 1.5)      # d2/dy2 of sum(w sin x) y^2
    assert h == pytest.approx(2 * np.sum(W * np.sin(X)))
    other = P.Model(np.array([1.0, 1.0, 1.0]))
    h = ad.grad(ad.grad(other.loss2, wrt=1), wrt=1)(X, 1.5)
    assert h == pytest.approx(2 * np.sum(np.sin(X)))


def test_callable_object_is_its_call_method_bound_to_it():
    rng = np.random.default_rng(1)
    layer_a, layer_b = P.Layer(rng.normal(size=(2, 3))), P.Layer(rng.normal(size=(2, 3)))
    assert_close(ad.grad(layer_a)(X), numerical_grad(layer_a, [X], 0))
    assert_close(ad.grad(layer_b)(X), numerical_grad(layer_b, [X], 0))
    assert ad.check_grad(layer_b, X) < 1e-6
    assert_close(ad.hessian(layer_a)(X), ad.jacobian(ad.grad(layer_a))(X), rtol=1e-6)


# check_grad on dict / list / tuple arguments ---------------------------------------------------

def mlp_args(rng):
    params = {"W": rng.normal(size=(3, 4)), "b": rng.normal(size=4), "v": rng.normal(size=4)}
    return params, rng.normal(size=(5, 3)), rng.normal(size=5)


def test_check_grad_on_a_dict_of_parameters(rng):
    assert ad.check_grad(P.mlp, *mlp_args(rng)) < 1e-6


def test_check_grad_on_nested_containers_and_floats(rng):
    p = {"layers": [rng.normal(size=3), rng.normal(size=3)], "scale": 1.7}
    assert ad.check_grad(P.nested, p, X) < 1e-6
    assert ad.check_grad(P.nested, p, X, wrt=(0, 1)) < 1e-6
    assert ad.check_grad(P.tuple_params, (rng.normal(size=3), 0.4), X) < 1e-6
    assert p["scale"] == 1.7 and isinstance(p["layers"], list)     # the arguments are untouched


@pytest.fixture
def wrong_cube_rule():
    @ad.adjoint(P.cube)
    def _(y, x):
        d[x] = d[y] * 2 * x ** 2               # should be 3 x**2
    ad.clear_cache()
    yield
    s2s_ad.rules.ADJOINTS.pop(P.cube, None)
    ad.clear_cache()


def test_check_grad_detects_a_wrong_gradient_inside_a_container(wrong_cube_rule):
    p = {"w": np.array([0.5, 1.5, -1.0]), "b": np.array([0.3, 0.2])}
    assert ad.check_grad(P.uses_cube, p, X) == pytest.approx(1 / 3, rel=1e-4)
    assert ad.check_grad(P.uses_cube, p, X, wrt=1) > 0.3


def test_check_grad_after_the_wrong_rule_is_gone():
    p = {"w": np.array([0.5, 1.5, -1.0]), "b": np.array([0.3, 0.2])}
    assert ad.check_grad(P.uses_cube, p, X) < 1e-6


# wrt as a NumPy integer; list seeds ------------------------------------------------------------

def test_numpy_integer_wrt_is_an_index():
    assert_close(ad.grad(P.Model.loss, wrt=np.int64(1))(P.Model(W), X),
                 method_fd(P.Model(W).loss, [X], 0))
    assert_close(ad.grad(P.mlp, wrt=(np.int32(2),))(*mlp_args(np.random.default_rng(0)))[0],
                 numerical_grad(P.mlp, mlp_args(np.random.default_rng(0)), 2))
    with pytest.raises(TypeError, match="wrt must be a parameter index or name"):
        ad.grad(P.double, wrt=np.bool_(False))


@pytest.mark.parametrize("seed", [[1.0, -2.0, 0.5], (1.0, -2.0, 0.5)])
def test_a_list_seed_for_an_array_output_is_converted(seed):
    y, g = ad.vjp(P.double)(X, seed=seed)
    assert_close(g, 2.0 * np.asarray(seed))
    y, g = ad.vjp(P.double)(X.astype(np.float32), seed=seed)
    assert g.dtype == np.float32


def test_a_list_seed_of_the_wrong_length_names_the_shapes():
    with pytest.raises(ValueError, match=r"the seed has shape \(2,\) but double returned shape "
                                         r"\(3,\); the seed must have the output's shape"):
        ad.vjp(P.double)(X, seed=[1.0, 1.0])
