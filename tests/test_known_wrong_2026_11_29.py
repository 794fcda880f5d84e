"""Wrong answers found on 2026-11-29 (second session), all fixed since (the last three in the
third session), with their tests.

Release fuzz batch, seed 2000003 (minimized): a tuple (number, array) unpacked, the number
rebound by `-=`, then a write through the array. The write is written back into the tuple
(passes/write_back_views.py), and the tuple's other names are bound again from it after the
write back: `e12 = x0[0]` gives back the number before the `-=`. The rebinding is right for an
array (a view that sees the write) and wrong for a number (`-=` made a new one): value and
gradient were those of `x0[0]`, not of `x0[0] - x0[1][1]`. Fixed the same day: a name an
augmented assignment rebinds is not bound again from the base (a view still sharing its
memory is refused where it is read stale)."""
import copy

import numpy as np
import pytest

import s2s_ad as ad


def number_rebound_then_array_written(x0):
    e12, e13 = x0
    e12 -= e13[1]
    e13 *= 0.5
    return e12


ARGS = (0.57, np.array([-0.4, 0.2, 1.1, 0.3]))


def test_a_number_rebound_by_an_augmented_assignment_keeps_its_value():
    value, (d_number, d_array) = ad.value_and_grad(number_rebound_then_array_written)(
        copy.deepcopy(ARGS))
    assert value == pytest.approx(number_rebound_then_array_written(copy.deepcopy(ARGS)))
    assert d_number == pytest.approx(1.0)
    np.testing.assert_allclose(d_array, [0.0, -1.0, 0.0, 0.0])
    tangent = (2.0, np.array([1.0, 3.0, 0.0, 0.0]))
    value, slope = ad.jvp(number_rebound_then_array_written)(copy.deepcopy(ARGS), tangent=tangent)
    assert value == pytest.approx(number_rebound_then_array_written(copy.deepcopy(ARGS)))
    assert slope == pytest.approx(2.0 - 3.0)


def rows_unpacked_twice_one_written(x0):
    a, b = x0
    c, d = x0
    b *= 2.0                  # d is the same row: it sees the write, as in NumPy
    return np.sum(d * a) + np.sum(c)


def test_an_array_unpacked_twice_still_sees_the_write():
    x = np.array([[1.0, 2.0], [3.0, -1.0]])
    value, grad = ad.value_and_grad(rows_unpacked_twice_one_written)(x.copy())
    assert value == pytest.approx(rows_unpacked_twice_one_written(x.copy()))
    eps, expected = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        expected[i] = (rows_unpacked_twice_one_written(x + step) -
                       rows_unpacked_twice_one_written(x - step)) / (2 * eps)
    np.testing.assert_allclose(grad, expected, rtol=1e-6)


# A reviewer's find (2026-11-29): a helper of yours that writes into its argument through a
# NumPy function's output (`np.multiply(v, 2.0, v)`, `out=v`, np.copyto, np.putmask): the
# caller's derivative did not see the write (the summary of what a callee writes into,
# analysis/call_results.py, read stores and methods only), so its gradient was that of the
# array before the write. Fixed 2026-11-29 (analysis/numpy_writes.py): refused as every other
# write of a helper into a varied argument, naming the helper's line.

def doubled_by_position(v):
    y = np.multiply(v, 2.0, v)
    return y


def negated_by_keyword(v):
    return np.negative(v, out=v)


def copied_into(d, s):
    r = np.copyto(d, s)
    return d


def masked(a, v):
    r = np.putmask(a, a > 0, v)
    return a


def through_position(x):
    z = x * 1.0
    doubled_by_position(z)
    return np.sum(z * x)


def through_keyword(x):
    z = x * 1.0
    negated_by_keyword(z)
    return np.sum(z * x)


def through_copyto(x):
    z = np.zeros(3)
    copied_into(z, x * x)
    return np.sum(z * x)


def through_putmask(x):
    z = x * 1.0
    masked(z, x * 3.0)
    return np.sum(z * x)


@pytest.mark.parametrize("fn, helper, line", [
    (through_position, "doubled_by_position", "y = np.multiply(v, 2.0, v)"),
    (through_keyword, "negated_by_keyword", "return np.negative(v, out=v)"),
    (through_copyto, "copied_into", "r = np.copyto(d, s)"),
    (through_putmask, "masked", "r = np.putmask(a, a > 0, v)")], ids=["position", "keyword", "copyto", "putmask"])
def test_a_helper_writing_through_a_numpy_output_is_refused(fn, helper, line):
    x = np.array([0.3, -0.5, 0.4])
    with pytest.raises(ad.TransformError, match=f"`{helper}` writes into its argument") as error:
        ad.grad(fn)(x.copy())
    source_lines = open(__file__).read().splitlines()
    assert f"test_known_wrong_2026_11_29.py:{source_lines.index('    ' + line) + 1})" in str(error.value)


def fill_doubled(buf, c):
    np.multiply(c, 2.0, out=buf)
    return buf


def through_a_constant_write(x):
    buf = np.zeros(3)
    fill_doubled(buf, 3.0)              # a write of constants: nothing to refuse
    return np.sum(buf * x)


def test_a_helper_writing_constants_through_a_numpy_output_is_followed():
    x = np.array([0.3, -0.5, 0.4])
    np.testing.assert_allclose(ad.grad(through_a_constant_write)(x.copy()), np.full(3, 6.0))


# A reviewer's find (2026-11-29): hessian and hvp keep using a helper two calls down after its
# name is bound to another function (grad and jvp follow it): the second-order derivative's
# cache entry was checked against the names the function itself reads only.

def cubed(x):
    return x * x * x


def fourth_power(x):
    return x * x * x * x


def doubled_cube(x):
    y = cubed(x)
    return y * 2.0


def sum_of_doubled_cubes(x):
    return np.sum(doubled_cube(x))


def looped_cube(x):
    for _ in range(1):                  # a call, not copied in
        x = cubed(x)
    return x * 2.0


def sum_of_looped_cubes(x):
    return np.sum(looped_cube(x))


@pytest.mark.parametrize("fn", [sum_of_doubled_cubes, sum_of_looped_cubes],
                         ids=["inlined", "called"])
def test_second_order_follows_a_rebound_helper(monkeypatch, fn):
    """Fixed 2026-11-29: an hvp is stale with the helpers inlined into the code it
    differentiates, and with the callees whose derivatives it bound (cache.inlined_current)."""
    x = np.array([0.3, -0.5, 0.4])
    hessian, hvp = ad.hessian(fn), ad.hvp(fn)
    np.testing.assert_allclose(hessian(x), np.diag(12.0 * x))
    np.testing.assert_allclose(hvp(x, vector=x), 12.0 * x * x)
    monkeypatch.setitem(globals(), "cubed", fourth_power)
    np.testing.assert_allclose(hessian(x), np.diag(24.0 * x * x))
    np.testing.assert_allclose(hvp(x, vector=x), 24.0 * x ** 3)
    np.testing.assert_allclose(ad.hessian(fn)(x), np.diag(24.0 * x * x))


# A reviewer's find (2026-11-29): a module-level name bound to a NumPy function, read inside a
# helper (`activation = np.tanh`), then bound to another (`np.sin`): the derivative keeps the
# first one's rule (its value was right, as the name is read when it runs; its gradient not).

activation = np.tanh


def activated_with_a_loop(z):
    for _ in range(1):                  # a call, not copied in
        z = activation(z)
    return z


def sum_activated(x):
    return np.sum(activated_with_a_loop(x))


def test_a_rebound_alias_of_a_numpy_function_is_followed(monkeypatch):
    """Fixed 2026-11-29: a callee's derivative bound in its caller's code is made again when a
    name the callee reads is rebound (calls.CalleeDerivative, cache.ReadNames)."""
    x = np.array([0.3, -0.5, 0.4])
    grad, hessian = ad.grad(sum_activated), ad.hessian(sum_activated)
    np.testing.assert_allclose(grad(x), 1 - np.tanh(x) ** 2)
    hessian(x)
    monkeypatch.setitem(globals(), "activation", np.sin)
    np.testing.assert_allclose(grad(x), np.cos(x))
    np.testing.assert_allclose(ad.grad(sum_activated)(x), np.cos(x))
    np.testing.assert_allclose(hessian(x), np.diag(-np.sin(x)))


# Found 2026-11-29 (third session), pinned: a helper's defaults changed after its caller's
# derivative was made (`helper.__defaults__ = (3.0,)`) are not followed, the helper inlined or
# called: the caller's derivative binds the defaults it saw (its value and gradient are
# those of the old defaults).

def scaled_by_default(z, s=2.0):
    return s * z


def sum_scaled_by_default(x):
    return np.sum(scaled_by_default(x) ** 2)


def powered_by_default(z, *, times=2):
    for _ in range(times):           # a loop: called as a split callee, not copied in
        z = z * z
    return z


def sum_powered_by_default(x):
    return np.sum(powered_by_default(x))


def test_changed_defaults_of_a_helper_are_followed(monkeypatch):
    x = np.array([0.3, -0.5, 0.4])
    grad = ad.grad(sum_scaled_by_default)
    np.testing.assert_allclose(grad(x), 8.0 * x)
    monkeypatch.setattr(scaled_by_default, "__defaults__", (3.0,))
    np.testing.assert_allclose(grad(x), 18.0 * x)
    np.testing.assert_allclose(ad.jvp(sum_scaled_by_default)(x, tangent=np.ones(3))[1],
                               np.sum(18.0 * x))


def test_changed_keyword_defaults_of_a_called_helper_are_followed(monkeypatch):
    x = np.array([0.3, -0.5, 0.4])
    grad = ad.grad(sum_powered_by_default)
    np.testing.assert_allclose(grad(x), 4.0 * x ** 3)
    monkeypatch.setattr(powered_by_default, "__kwdefaults__", {"times": 3})
    np.testing.assert_allclose(grad(x), 8.0 * x ** 7)
    np.testing.assert_allclose(ad.jvp(sum_powered_by_default)(x, tangent=np.ones(3))[1],
                               np.sum(8.0 * x ** 7))


def make_scaler(s=2.0):
    def scale(z):
        return s * z
    return scale


def sum_through_a_factory(x):
    scale = make_scaler()
    return np.sum(scale(x) ** 2)


def test_changed_defaults_of_a_factory_are_followed(monkeypatch):
    x = np.array([0.3, -0.5, 0.4])
    grad = ad.grad(sum_through_a_factory)
    np.testing.assert_allclose(grad(x), 8.0 * x)
    monkeypatch.setattr(make_scaler, "__defaults__", (3.0,))
    np.testing.assert_allclose(grad(x), 18.0 * x)


def cubed_by_default(z, k=2.0):
    return k * z ** 3


def through_cubed(r):
    return cubed_by_default(r)


def cubic_with_a_settable_factor(k):
    def cubic(z):
        return k * z ** 3

    def set_factor(value):
        nonlocal k
        k = value
    return cubic, set_factor


def test_a_held_second_derivative_follows_rebound_defaults(monkeypatch):
    """`grad(grad(f))` differentiates the readable function of `grad(f)`'s code, made once:
    it kept differentiating the code made with the old default (found by a reviewer)."""
    second, value_and_second = ad.grad(ad.grad(through_cubed)), \
        ad.value_and_grad(ad.grad(through_cubed))
    np.testing.assert_allclose(second(1.5), 18.0)
    np.testing.assert_allclose(value_and_second(1.5), (13.5, 18.0))
    monkeypatch.setattr(cubed_by_default, "__defaults__", (5.0,))
    np.testing.assert_allclose(second(1.5), 45.0)
    np.testing.assert_allclose(value_and_second(1.5), (33.75, 45.0))
    np.testing.assert_allclose(ad.hessian(through_cubed)(1.5), 45.0)


def test_a_held_second_derivative_follows_a_rebound_cell():
    cubic, set_factor = cubic_with_a_settable_factor(2.0)
    second, first = ad.grad(ad.grad(cubic)), ad.grad(cubic)
    np.testing.assert_allclose([second(1.5), first(1.5)], [18.0, 13.5])
    set_factor(5.0)
    np.testing.assert_allclose([second(1.5), first(1.5)], [45.0, 33.75])
