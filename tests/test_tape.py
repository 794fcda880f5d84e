"""What the tape records, checked on the generated source (structure, never timing)."""
import ast

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad


def newton(a):
    x = a
    for _ in range(50):
        x = 0.5 * (x + a / x)
    return x


def reads_only(x, w):
    terms = []
    for i in range(x.shape[0]):
        terms.append(x[i] * w + 1.0)
    return np.sum(np.stack(terms) ** 2)


def straight_line(x, W):
    h = np.tanh(W @ x)
    h = h * 2
    return np.sum(h * h)


def _pushes(source):
    """(pushes inside loops, pushes outside loops) in the generated function."""
    tree = ast.parse(source)
    inside = outside = 0

    def visit(node, in_loop):
        nonlocal inside, outside
        for child in ast.iter_child_nodes(node):
            loop = isinstance(child, (ast.For, ast.While))
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                    and child.func.attr == "append" and isinstance(child.func.value, ast.Name) \
                    and child.func.value.id.startswith("tape"):
                if in_loop:
                    inside += 1
                else:
                    outside += 1
            visit(child, in_loop or loop)

    visit(tree, False)
    return inside, outside


def test_scalar_loop_records_a_constant_number_of_values_per_iteration():
    source = ad.source(ad.grad(newton))
    inside, outside = _pushes(source)
    # a fixed number of pushes an iteration (O(N) for N iterations), nothing outside the loop
    assert 1 <= inside <= 3 and outside == 0, source
    assert_close(ad.grad(newton)(2.0), 0.5 / np.sqrt(2.0))


def test_loop_that_never_overwrites_active_values_records_nothing():
    df = ad.grad(reads_only, wrt=(0, 1))
    assert _pushes(df.source) == (0, 0) and ".pop()" not in df.source.replace("terms.pop()", ""), df.source
    x, w = np.random.default_rng(1).normal(size=(2, 5))
    gx, gw = df(x, w)
    assert_close(gx, numerical_grad(reads_only, [x, w], 0))
    assert_close(gw, numerical_grad(reads_only, [x, w], 1))


def test_straight_line_code_needs_no_tape():
    # the rebound h is saved in a variable of its own, so the derivative stays differentiable
    df = ad.grad(straight_line, wrt=(0, 1))
    assert _pushes(df.source) == (0, 0) and "h_saved = h" in df.source, df.source
    x, W = np.random.default_rng(2).normal(size=3), np.random.default_rng(3).normal(size=(3, 3))
    assert_close(df(x, W)[1], numerical_grad(straight_line, [x, W], 1))


# --- the value vjp returns is the forward's, not what the backward pass restored ----------------

def _written_then_returned(x):
    y = x * 2.0
    y[0] = y[0] * 3.0
    return y


def _written_in_a_loop_then_returned(x, n):
    y = x * 1.0
    for _ in range(n):
        y = y * 2.0
        y[0] = y[0] * 3.0
    return y


def _returned_in_a_tuple(x):
    z = x * 2.0
    z[0] = z[0] * 3.0
    return z, x * 1.0


def _view_returned(x):
    z = x * 2.0
    z[0] = z[0] * 3.0
    return z[0:2]


def test_an_output_written_in_place_keeps_its_final_value():
    """The backward pass writes saved entries back into the arrays they came from; an output
    array among them is copied first (these returned the restored values before)."""
    x = np.array([1.0, 2.0, 3.0])
    cases = [(_written_then_returned, (x,), np.array([1.0, 10.0, 100.0])),
             (_written_in_a_loop_then_returned, (x, 3), np.array([1.0, 10.0, 100.0])),
             (_view_returned, (x,), np.array([1.0, 10.0]))]
    for fn, args, seed in cases:
        value, grad = ad.vjp(fn)(*args, seed=seed)
        assert_close(value, fn(*args))
        assert_close(grad, numerical_grad(lambda v: np.sum(seed * fn(v, *args[1:])), [x], 0))
    seed = (np.array([1.0, 10.0, 100.0]), np.array([2.0, 3.0, 4.0]))
    value, grad = ad.vjp(_returned_in_a_tuple)(x, seed=seed)
    for got, expected in zip(value, _returned_in_a_tuple(x)):
        assert_close(got, expected)
    assert_close(grad, numerical_grad(
        lambda v: sum(np.sum(s * o) for s, o in zip(seed, _returned_in_a_tuple(v))), [x], 0))


def reads_each_entry_twice_a_step(heating):
    temperature, cost = 16.0, 0.0
    for t in range(len(heating)):
        temperature = 0.85 * temperature + 0.6 * heating[t]
        cost = cost + (temperature - 21.0) ** 2 + 0.05 * heating[t] ** 2
    return cost


def test_two_scatter_accumulations_a_step_both_become_add_at():
    # `dheating = dheating + scatter(...)` twice a step was O(n) a step (a new zeros array)
    source = ad.source(ad.grad(reads_each_entry_twice_a_step))
    assert source.count("add_at(dheating, t, ") == 2 and "scatter(" not in source
    heating = np.linspace(0.5, 3.0, 7)
    expected = numerical_grad(reads_each_entry_twice_a_step, [heating], 0)
    np.testing.assert_allclose(ad.grad(reads_each_entry_twice_a_step)(heating), expected, rtol=1e-6)


def _centered_square(x, w):
    if w is None:
        c = x - np.mean(x)
        return np.sum(c * c)
    t = np.sum(w)
    c = x - np.sum(x * w) / t        # saves c, unbound here when the first branch did not run
    return np.sum(c * c * w)


def _calls_centered_square(x, w):
    return _centered_square(x, w) + _centered_square(x, None)


@pytest.mark.parametrize("fn", [_centered_square, _calls_centered_square])
def test_a_value_saved_where_an_earlier_branch_may_not_have_bound_it(fn):
    # until 2026-11-25: UnboundLocalError in generated code (`c_saved = c`)
    x, w = np.array([1.0, 2.0, 4.0]), np.array([1.0, 2.0, 0.5])
    np.testing.assert_allclose(ad.grad(fn)(x, w), numerical_grad(fn, (x, w), 0), rtol=1e-6)
    np.testing.assert_allclose(ad.hessian(fn)(x, w) @ np.ones(3),
                               (ad.grad(fn)(x + 1e-6, w) - ad.grad(fn)(x - 1e-6, w)) / 2e-6,
                               rtol=1e-5, atol=1e-6)
