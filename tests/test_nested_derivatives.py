"""Derivatives called inside a differentiated function (`jvp(g)(x, tangent=v)`,
`vjp(g)(x, seed=s)`, `value_and_grad(g)(x)`, `grad(g)(x)`) are differentiated from their
generated source, in reverse and forward mode, checked against central differences."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def elementwise(x):
    return np.sin(x) * x


def scalar(x):
    return np.sum(np.sin(x) * x)


def cubed_tanh(x):
    return np.sum(np.tanh(x) ** 3)


def calls_jvp(x):
    y, t = ad.jvp(scalar)(x, tangent=np.ones_like(x))
    return t * y


def calls_jvp_with_a_varied_direction(x):
    _, t = ad.jvp(scalar)(x, tangent=np.cos(x))
    return t


def calls_vjp(x):
    y, cotangent = ad.vjp(elementwise)(x, seed=np.cos(x))
    return np.sum(cotangent * y)


def calls_value_and_grad(x):
    value, gradient = ad.value_and_grad(scalar)(x)
    return value * np.sum(gradient ** 2)


def calls_grad(x):
    return np.sum(ad.grad(cubed_tanh)(x) * x)


NESTED = [calls_jvp, calls_jvp_with_a_varied_direction, calls_vjp, calls_value_and_grad,
          calls_grad]
X = np.array([0.3, -0.5, 0.8])


@pytest.mark.parametrize("f", NESTED)
def test_reverse_mode_through_a_derivative_called_inside(f):
    expected = numerical_grad(f, [X], 0)
    assert_close(ad.grad(f)(X), expected)
    _, cotangent = ad.vjp(f)(X, seed=1.0)
    assert_close(cotangent, expected)


@pytest.mark.parametrize("f", NESTED)
def test_forward_mode_through_a_derivative_called_inside(f):
    direction = np.array([1.0, -2.0, 0.5])
    expected = numerical_grad(f, [X], 0) @ direction
    assert_close(ad.jvp(f)(X, tangent=direction)[1], expected)


def vector_calls_vjp(x):
    _, cotangent = ad.vjp(elementwise)(x, seed=x * x)
    return cotangent * 2.0


def test_vjp_of_a_function_that_calls_vjp():
    # it raised "cannot differentiate <s2s_ad.vjp of g> again", with no location
    seed = np.array([0.5, -1.0, 2.0])
    value, cotangent = ad.vjp(vector_calls_vjp)(X, seed=seed)
    assert_close(value, vector_calls_vjp(X))
    assert_close(cotangent, numerical_grad(lambda x: vector_calls_vjp(x) @ seed, [X], 0))


# Second derivatives of functions that build a list from the argument (issue 12): the
# adjoint of `l` holds None for the constant entries, which the adjoint of that adjoint read
# as a value (`TypeError: NoneType * float`). Each oracle is a closed-form first derivative,
# differenced centrally.

def list_product(a):
    items = [1.0, a, 3.0]
    return np.sum(items[1] * items[0] * a ** 2)


def list_product_gradient(a):
    return 3.0 * a ** 2


def list_loop(a):
    items = [1.0, a, 3.0]
    s = 0.0
    for v in items:
        s = s + v * v
    return np.sum(s * a)


def list_loop_gradient(a):
    return 10.0 + 3.0 * a ** 2


LIST_CASES = [(list_product, list_product_gradient), (list_loop, list_loop_gradient)]


@pytest.mark.parametrize("f, gradient", LIST_CASES)
def test_grad_of_grad_through_a_list_built_from_the_argument(f, gradient):
    expected = numerical_grad(lambda a: gradient(a), [0.7], 0)
    assert_close(ad.grad(ad.grad(f))(0.7), expected)


@pytest.mark.parametrize("f, gradient", LIST_CASES)
def test_hvp_and_hessian_through_a_list_built_from_the_argument(f, gradient):
    x = np.array([0.3, -0.5, 0.8])
    v = np.array([1.0, -2.0, 0.5])
    hessian = np.stack([numerical_grad(lambda a: gradient(a)[i], [x], 0) for i in range(3)])
    assert_close(ad.hessian(f)(x), hessian)
    assert_close(ad.hvp(f)(x, vector=v), hessian @ v)


# grad of a function that calls grad(h) on a container (issue 12): a list of arrays of
# different shapes (it raised "inhomogeneous shape") and a dict walked in sorted order (it
# raised "list_reverseiterator has no len()"). The oracle differences the same function with
# h's closed-form gradient in place of s2s_ad's.

def squares(xs):
    s = 0.0
    for v in xs:
        s = s + np.sum(v ** 3)
    return s


def cubes_by_key(d):
    s = 0.0
    for k in sorted(d):
        s = s + np.sum(np.sin(d[k]) * d[k])
    return s


def sums_grad_of_a_list(a, grad_of_squares):
    gradient = grad_of_squares([a * np.ones(2), np.sin(a) * np.ones(3)])
    return np.sum(gradient[0] * a) + np.sum(gradient[1])


def sums_grad_of_a_dict(a, grad_of_cubes):
    gradient = grad_of_cubes({"w": a * np.ones(2), "b": a ** 2 * np.ones(3)})
    return np.sum(gradient["w"]) + np.sum(gradient["b"] * a)


def calls_grad_on_a_list(a):
    return sums_grad_of_a_list(a, ad.grad(squares))


def calls_grad_on_a_dict(a):
    return sums_grad_of_a_dict(a, ad.grad(cubes_by_key))


def _squares_gradient(xs):
    return [3 * v ** 2 for v in xs]


def _cubes_by_key_gradient(d):
    return {k: np.cos(v) * v + np.sin(v) for k, v in d.items()}


@pytest.mark.parametrize("f, oracle", [
    (calls_grad_on_a_list, lambda a: sums_grad_of_a_list(a, _squares_gradient)),
    (calls_grad_on_a_dict, lambda a: sums_grad_of_a_dict(a, _cubes_by_key_gradient))])
def test_grad_through_grad_of_a_container(f, oracle):
    assert_close(f(0.7), oracle(0.7))
    assert_close(ad.grad(f)(0.7), numerical_grad(oracle, [0.7], 0))
    assert_close(ad.jvp(f)(0.7, tangent=1.0)[1], numerical_grad(oracle, [0.7], 0))


# A callee reached through a function value, second order (issue 12): run-time dispatch got
# the tangent of its argument tuple as (da, zero_tangent(p)), so the constant exponent counted
# as varied and the power rule's 0 * p * log(x) was nan for a negative base. The oracle is the
# closed-form gradient p * x ** (p - 1) * seed, differenced centrally.

def power(x, p):
    return x ** p


def weighted_by_position(fn, seed, a, p):
    return np.sum(fn(a, p) * seed)


def weighted_by_keyword(fn, seed, a, p):
    return np.sum(fn(a, p=p) * seed)


@pytest.mark.parametrize("f", [weighted_by_position, weighted_by_keyword])
def test_hvp_through_a_function_value_with_a_constant_argument(f):
    x = np.array([-0.5, -1.2, 0.7])
    seed = np.array([1.0, 2.0, -0.5])
    v = np.array([1.0, -1.0, 0.25])
    hessian = np.stack([numerical_grad(lambda a: (4 * a ** 3 * seed)[i], [x], 0)
                        for i in range(3)])
    assert_close(ad.hvp(f, wrt=2)(power, seed, x, 4, vector=v), hessian @ v)
    assert_close(ad.hessian(f, wrt=2)(power, seed, x, 4), hessian)


# Derivatives made with has_aux=True, called inside f (issue 12): they refused with an
# unlocated TypeError. The oracle is the closed-form gradient of the loss, and aux itself.

def loss_with_aux(x):
    return np.sum(np.sin(x) * x), np.cos(x)


def loss_gradient(x):
    return np.cos(x) * x + np.sin(x)


def calls_grad_with_aux(x):
    gradient, aux = ad.grad(loss_with_aux, has_aux=True)(x)
    return np.sum(gradient * aux)


def calls_value_and_grad_with_aux(x):
    (value, aux), gradient = ad.value_and_grad(loss_with_aux, has_aux=True)(x)
    return value * np.sum(gradient * aux)


def calls_grad_with_aux_oracle(x):
    return np.sum(loss_gradient(x) * np.cos(x))


def calls_value_and_grad_with_aux_oracle(x):
    return np.sum(np.sin(x) * x) * np.sum(loss_gradient(x) * np.cos(x))


@pytest.mark.parametrize("f, oracle", [
    (calls_grad_with_aux, calls_grad_with_aux_oracle),
    (calls_value_and_grad_with_aux, calls_value_and_grad_with_aux_oracle)])
def test_derivatives_through_a_derivative_with_aux_called_inside(f, oracle):
    direction = np.array([1.0, -2.0, 0.5])
    expected = numerical_grad(oracle, [X], 0)
    assert_close(f(X), oracle(X))
    assert_close(ad.grad(f)(X), expected)
    assert_close(ad.jvp(f)(X, tangent=direction)[1], expected @ direction)


def test_grad_of_grad_with_aux():
    # d/dx of the first entry of grad(loss): the Hessian's first row (of a diagonal Hessian)
    first = ad.grad(lambda x: ad.grad(loss_with_aux, has_aux=True)(x)[0][0])(X)
    assert_close(first, numerical_grad(lambda x: loss_gradient(x)[0], [X], 0))


# A third derivative through a derivative called inside f (issue 12): the adjoint of the
# run-time dispatch vjp_call is reverse mode over the callee's generated vjp. The oracle
# differences the closed-form second derivative of g.

def sine_times_square(x):
    return np.sin(x) * x ** 2


def sine_times_square_second(x):
    return -x ** 2 * np.sin(x) + 4 * x * np.cos(x) + 2 * np.sin(x)


def calls_grad_of_a_scalar_function(x):
    return ad.grad(sine_times_square)(x)


def test_third_derivative_through_grad_called_inside():
    expected = numerical_grad(sine_times_square_second, [0.7], 0)
    assert_close(ad.grad(ad.grad(calls_grad_of_a_scalar_function))(0.7), expected)


def sine_times_cube(x, y):
    return np.sin(x) * y ** 3


def product_of_both_gradients(x, y):
    gx, gy = ad.grad(sine_times_cube, wrt=(0, 1))(x, y)
    return gx * gy


def test_mixed_second_derivative_through_grad_called_inside():
    # grad of f wrt x calls vjp_call for x alone; its derivative wrt y must still flow
    # through y, on which the gradient depends (closed form: d/dx = 3 cos(2x) y ** 5)
    def d_dx(x, y):
        return 3 * np.cos(2 * x) * y ** 5
    x, y = 0.7, 1.3
    assert_close(ad.grad(ad.grad(product_of_both_gradients), wrt=1)(x, y),
                 numerical_grad(d_dx, [x, y], 1))
    assert_close(ad.grad(ad.grad(product_of_both_gradients))(x, y),
                 numerical_grad(d_dx, [x, y], 0))
