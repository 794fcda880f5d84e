"""Adjoints accumulated in place by an inner backward loop (`add_at(dx, (i, j), g)`) are owned
once, before the outer loop, not copied again at each of its steps: a double loop over the
entries of `x` costs O(x) in all, not O(x) per outer step. Where the outer body reads the
adjoint otherwise, each step keeps its copy. Gradients against central differences."""
import numpy as np

import s2s_ad as ad
from s2s_ad import cache
from fd import assert_close, numerical_grad


def correlate(inputs, kernels):
    """A valid 2-D correlation as a double loop of tensordots over the kernel's offsets."""
    kh, kw = kernels.shape[2], kernels.shape[3]
    out_h, out_w = inputs.shape[2] - kh + 1, inputs.shape[3] - kw + 1
    total = 0.0
    for i in range(kh):
        for j in range(kw):
            window = inputs[:, :, i:i + out_h, j:j + out_w]
            total = total + np.tensordot(window, kernels[:, :, i, j], axes=([1], [0]))
    return total




def correlate_sum(x, k):
    return np.sum(np.tanh(correlate(x, k)) ** 2)


def windows_with_a_sum_each_row(x, k):
    total = 0.0
    for i in range(k):
        row = np.sum(x) * 0.1                # reads all of x at each outer step
        for j in range(k):
            total = total + np.sum(np.sin(x[:, i:i + 2, j:j + 2]) * row)
    return total


def _outer_loop_lines(source):
    lines = source.splitlines()
    # the backward pass's outer loop: the last one over `i`
    start = max(k for k, line in enumerate(lines) if line.strip().startswith("for i in"))
    indent = len(lines[start]) - len(lines[start].lstrip())
    body = []
    for line in lines[start + 1:]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        body.append(line)
    return body


def test_a_double_loop_copies_no_adjoint_per_outer_step():
    rng = np.random.default_rng(0)
    x, k = rng.normal(size=(2, 2, 5, 5)), rng.normal(size=(2, 3, 3, 3))
    df = ad.grad(correlate_sum, wrt=(0, 1))
    got = df(x, k)
    for position, g in enumerate(got):
        assert_close(g, numerical_grad(correlate_sum, [x, k], position))
    callee = [g.source for g in cache._cache.values() if g.source.startswith("def fwd_correlate")]
    assert callee and not any("zeros_like" in line for source in callee
                              for line in _outer_loop_lines(source))


def test_an_adjoint_the_outer_body_reads_stays_right():
    x = np.random.default_rng(1).normal(size=(2, 5, 5))
    assert_close(ad.grad(windows_with_a_sum_each_row)(x, 3),
                 numerical_grad(windows_with_a_sum_each_row, [x, 3], 0))
