"""Shape facts: code specialized to what the arguments are. Where every value of an operation
is a real number the gradient needs no `unbroadcast` (nor the values it reads for their shape);
a call with other kinds of arguments gets other code, and the gradients stay right."""
import os
import sys

import autograd
import autograd.numpy as anp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import s2s_ad as ad
from s2s_ad.analysis.activity import assigned_names
from s2s_ad.analysis.kinds import INT, REAL, REALS, Array, Entries, kind_of, kinds_of
from s2s_ad.analysis.shapes import ShapeFacts
from s2s_ad.frontend import parse_function
from fd import assert_close, numerical_grad

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
from workloads.control import grow  # noqa: E402  (the tutorial's while/if)


def heating(power, outside, start=16.0, leak=0.15, gain=0.6):
    temperature = start
    cost = 0.0
    for t in range(len(outside)):
        temperature = temperature + leak * (outside[t] - temperature) + gain * power[t]
        cost = cost + (temperature - 21.0) ** 2 + 0.05 * power[t] ** 2
    return cost / len(outside)


def heating_autograd(power, outside, start=16.0, leak=0.15, gain=0.6):
    return heating(power, outside, start, leak, gain)


POWER = np.random.default_rng(3).uniform(0, 6, size=12)
OUTSIDE = [5.0 + 0.5 * k for k in range(12)]


def test_a_loop_of_numbers_gets_no_broadcasting_helpers_and_the_right_gradient():
    df = ad.grad(heating)
    got = df(POWER, OUTSIDE)
    assert_close(got, numerical_grad(heating, [POWER, OUTSIDE], 0), rtol=1e-6)
    assert_close(got, autograd.grad(heating_autograd)(POWER, OUTSIDE), rtol=1e-12)
    source = ad.source(df)
    assert "unbroadcast" not in source
    # values read only for their shape are no longer saved: one push a step (the base of
    # the square, which the square's derivative reads)
    assert source.count(".append(") == 1, source


@pytest.mark.parametrize("leak", [0.15, np.float64(0.15), np.float32(0.15)])
def test_gradients_for_a_number_argument(leak):
    df = ad.grad(heating, wrt="leak")
    got = df(POWER, OUTSIDE, 16.0, leak)
    expected = numerical_grad(lambda lk: heating(POWER, OUTSIDE, 16.0, lk), [float(leak)], 0)
    assert_close(got, expected, rtol=1e-4 if type(leak) is np.float32 else 1e-6)


def scale(x, s):
    return np.sum(x * (s * s))


def test_the_same_function_called_with_an_array_where_it_had_a_number():
    df = ad.grad(scale, wrt=1)
    x = np.arange(3.0)
    assert df(x, 2.0) == pytest.approx(12.0)
    number_code = ad.source(df)
    # x * s: s is stretched over x, so the adjoint sums (written out: the shapes are known)
    assert "d_mul = (x * d_mul2).sum(axis=0)\n" in number_code and "unbroadcast(" not in number_code
    got = df(x, np.array([2.0]))       # broadcast: the gradient sums over the stretch
    assert got.shape == (1,) and got[0] == pytest.approx(12.0)
    assert "d_mul = (x * d_mul2).sum(axis=0, keepdims=True)" in ad.source(df)
    assert_close(df(x, np.array([2.0, 1.0, 3.0])), [0.0, 2.0, 12.0])
    assert df(x, 2.0) == pytest.approx(12.0)


def entries(x, values):
    total = 0.0
    for v in values:
        total = total + v * x
    return total


def test_a_list_argument_of_numbers_and_one_of_arrays():
    df = ad.grad(entries)
    assert df(2.0, [1.0, 2.0, 3.0]) == pytest.approx(6.0)
    arrays = [np.ones(2), np.array([1.0, 2.0])]
    with pytest.raises(TypeError, match="scalar"):
        df(2.0, arrays)                # the value is an array now: grad refuses, as always
    assert_close(ad.grad(lambda x, vs: np.sum(entries(x, vs)))(2.0, arrays), 5.0)


def power_of(x, e):
    return (x - 3.0) ** e


def test_a_real_power_of_numbers_may_be_complex_and_stays_checked():
    # a complex value (of a negative number to a real power) has no gradient: refused, as by
    # autograd and JAX, never its real part
    with pytest.raises(TypeError, match="returned a complex one"):
        ad.grad(power_of)(1.0, 0.5)
    assert ad.grad(power_of)(5.0, 3) == pytest.approx(12.0)


def kinds_of_names(fn, *args):
    parsed = parse_function(fn)
    params = [a.id for a in parsed.node.args.args]
    local = set(params) | set(assigned_names(parsed.node.body))
    facts = ShapeFacts(parsed, parsed.node.body, params, local, tuple(map(kind_of, args)))
    return facts


def appends_to(x, values):
    values.append(x)
    return values[0] * 2.0


def reshapes(a):
    b = a
    b.shape = (2, 2)
    return a[0] * 2.0


def test_a_list_or_array_that_the_function_may_change_is_not_known():
    assert not kinds_of_names(appends_to, np.ones(2), [1.0]).is_number("values")
    assert kinds_of_names(appends_to, np.ones(2), [1.0]).kinds["values"] is None
    assert kinds_of_names(reshapes, np.ones(4)).kinds["a"] is None
    assert kinds_of_names(heating, POWER, OUTSIDE, 16.0).kinds["outside"] == REALS
    assert kinds_of_names(heating, POWER, OUTSIDE, 16.0).kinds["power"] == Array(1, ("n0",))


def test_kinds_of_values():
    assert kind_of(1) == INT and kind_of(np.int32(1)) == INT
    assert kind_of(1.0) == REAL and kind_of(np.float32(1)) == REAL and kind_of(True) == REAL
    assert kind_of(1j) is None and kind_of(np.ones(2, complex)) is None
    assert kind_of(np.ones((2, 3))) == Array(2, ("n0", "n1"))
    assert kind_of((1.0, 2)) == REALS
    # a container's entries by position or key; sizes of one call share their classes
    assert kind_of([1.0, np.ones(2)]) == Entries(list, ((0, REAL), (1, Array(1, ("n0",)))))
    assert kinds_of([np.ones((1, 3)), {"a": np.ones(3), "b": 2}]) == (
        Array(2, (1, "n0")), Entries(dict, (("a", Array(1, ("n0",))), ("b", INT))))
    assert kind_of({"a": object()}) is None and kind_of({1: np.ones(2)}) is None


def test_forward_mode_through_a_loop_of_numbers():
    jf = ad.jvp(heating)
    direction = np.linspace(-1.0, 1.0, POWER.size)
    value, tangent = jf(POWER, OUTSIDE, tangent=direction)
    assert value == pytest.approx(heating(POWER, OUTSIDE))
    expected = numerical_grad(heating, [POWER, OUTSIDE], 0) @ direction
    assert tangent == pytest.approx(expected, rel=1e-6)
    assert "broadcast_like" not in ad.source(jf)


def test_forward_mode_with_an_array_where_it_had_a_number():
    jf = ad.jvp(scale, wrt=1)
    x = np.arange(3.0)
    assert jf(x, 2.0, tangent=1.0)[1] == pytest.approx(12.0)
    assert jf(x, np.array([2.0]), tangent=np.array([1.0]))[1] == pytest.approx(12.0)
    assert jf(x, np.array([2.0, 1.0, 3.0]), tangent=np.array([1.0, 0.0, 0.0]))[1] == \
        pytest.approx(0.0)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_arrays_of_an_arguments_shape_need_no_unbroadcast_nor_a_tape(sign):
    a = sign * np.abs(np.random.default_rng(1).normal(size=50))
    df = ad.grad(grow)
    got = df(a)
    assert_close(got, autograd.grad(grow)(a), rtol=1e-12)
    source = ad.source(df)
    assert "unbroadcast" not in source and "tape" not in source, source


def shifted(x, b, n):
    y = x + b                           # b is stretched over the rows of x
    for _ in range(n):
        y = np.tanh(y) * 2.0 + b
    return np.sum(y * y)


def shifted_autograd(x, b, n):
    y = x + b
    for _ in range(n):
        y = anp.tanh(y) * 2.0 + b
    return anp.sum(y * y)


def test_an_array_stretched_over_another_keeps_its_unbroadcast():
    rng = np.random.default_rng(2)
    x, b = rng.normal(size=(4, 3)), rng.normal(size=3)
    for wrt in (0, 1):
        got = ad.grad(shifted, wrt=wrt)(x, b, 3)
        assert_close(got, autograd.grad(shifted_autograd, wrt)(x, b, 3), rtol=1e-12)
    assert "unbroadcast(" in ad.source(ad.grad(shifted, wrt=1))


def helper_resizes(a):
    a.resize((2, 2), refcheck=False)
    return a


def reduces(x, n):
    y = x * 1.0
    for _ in range(n):
        y = np.sum(y, axis=0) * 2.0     # another shape each time round
    return np.sum(y * 3.0)


def test_a_name_whose_shape_changes_is_not_known():
    x = np.random.default_rng(3).normal(size=(2, 3))
    assert_close(ad.grad(reduces)(x, 1), numerical_grad(reduces, [x, 1], 0), rtol=1e-6)
    assert_close(ad.grad(reduces)(x, 0), numerical_grad(reduces, [x, 0], 0), rtol=1e-6)
    facts = kinds_of_names(reduces, x, 1)
    assert facts.token("x") == ("n0", "n1") and facts.token("y") is None


def passes_on(a):
    b = helper_resizes(a)
    return b[0, 0] * 2.0


def test_an_array_handed_to_your_function_is_not_known():
    assert kinds_of_names(passes_on, np.ones(4)).kinds["a"] is None


def bias_layer(x, b, s):
    y = x * s + b
    for _ in range(2):
        y = np.tanh(y) * 2.0 + b * s
    return np.sum(y * y)


def bias_layer_autograd(x, b, s):
    y = x * s + b
    for _ in range(2):
        y = anp.tanh(y) * 2.0 + b * s
    return anp.sum(y * y)


@settings(max_examples=40, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3,
                                                max_side=3),
       number=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_gradients_over_drawn_shapes_agree_with_autograd(shapes, number, seed):
    """Whatever the shapes (a number, arrays that broadcast either way), the code specialized
    to them gives autograd's gradients for every argument."""
    rng = np.random.default_rng(seed)
    x_shape, b_shape = shapes.input_shapes
    x = rng.normal(size=x_shape) if x_shape else float(rng.normal())
    b = rng.normal(size=b_shape) if b_shape else float(rng.normal())
    s = 0.7 if number else rng.normal(size=shapes.result_shape)
    for wrt in (0, 1, 2):
        got = ad.grad(bias_layer, wrt=wrt)(x, b, s)
        expected = autograd.grad(bias_layer_autograd, wrt)(x, b, s)
        assert np.shape(got) == np.shape(expected)
        assert_close(got, expected, rtol=1e-10, atol=1e-12)


def matmul_of_a_vector(x):
    n = np.matmul(x, x)                 # a gufunc: a number from two vectors, not x's shape
    return np.sum(n * x) + np.sum(np.matmul(x, x) + x)


def squares_of_a_list(xs):
    s = 0.0
    for v in xs:
        s = s + v * v
    for i in range(len(xs)):
        s = s + xs[i] * xs[i - 1]
    return s


def test_a_gufunc_is_not_elementwise():
    x = np.array([1.0, 2.0, 3.0])
    assert_close(ad.grad(matmul_of_a_vector)(x),
                 numerical_grad(matmul_of_a_vector, [x], 0), rtol=1e-7)


@pytest.mark.parametrize("container", [list, tuple])
def test_entries_of_a_list_of_numbers_add_up_in_a_list(container):
    xs = container([1.0, 2.0, 3.0])
    got = ad.grad(squares_of_a_list)(xs)
    assert type(got) is container
    assert_close(list(got), [2.0 + 5.0, 4.0 + 4.0, 6.0 + 3.0])
