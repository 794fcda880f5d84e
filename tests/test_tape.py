"""What the tape records, checked on the generated source (structure, never timing)."""
import ast

import numpy as np

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
