"""Derivatives of cumulative products and of the initial entry np.cumulative_sum and
np.cumulative_prod may put in front. The tangent of y = cumprod(x) obeys the first-order linear
recurrence dy_i = x_i dy_{i-1} + y_{i-1} dx_i, and the adjoint its transpose, run backwards;
both are solved here by doubling (log2(n) whole-array steps) and never divide by x, so they
stay exact where an entry is zero (dividing by x, as y / x * ..., would give nan there).

Like the cumulative functions, every helper reads its arrays flattened when `axis` is None."""
import numpy as np


def lanes(v, axis):
    """`v` as a cumulative function along `axis` reads it: flattened when `axis` is None."""
    return np.ravel(v) if axis is None else v


def _normal_axis(v, axis):
    return 0 if axis is None else axis % np.ndim(v)


def _part(v, axis, start, stop):
    return v[(slice(None),) * axis + (slice(start, stop),)]


def _moved(v, step, axis, fill, backward=False):
    """`v` moved `step` places along `axis` (towards the end, or the start when `backward`),
    the places it leaves filled with `fill` (0 or 1)."""
    n = np.shape(v)[axis]
    step = min(step, n)
    made = np.zeros_like if fill == 0 else np.ones_like
    if backward:
        return np.concatenate([_part(v, axis, step, n), made(_part(v, axis, 0, step))], axis)
    return np.concatenate([made(_part(v, axis, 0, step)), _part(v, axis, 0, n - step)], axis)


def _doubling(b, a, axis, backward):
    """h_i = a_i h_{i-1} + b_i with h_{-1} = 0 along `axis` (i counted from the end when
    `backward`): after the step of width w each entry holds the map composed of the w entries
    ending at it (coefficient a, offset b), so log2(n) steps compose them all."""
    n = np.shape(b)[axis]
    step = 1
    while step < n:
        b = b + a * _moved(b, step, axis, 0, backward)
        if 2 * step < n:
            a = a * _moved(a, step, axis, 1, backward)
        step *= 2
    return b


def scan(b, a, axis=None):
    """h with h_i = a_i h_{i-1} + b_i along `axis` and h_{-1} = 0 (`a`, `b` of one shape)."""
    b, a = lanes(b, axis), lanes(a, axis)
    return _doubling(b, a, _normal_axis(b, axis), backward=False)


def scan_back(g, a, axis=None):
    """s with s_j = g_j + a_{j+1} s_{j+1} along `axis` and s_n = 0: the transpose of `scan` in
    `b` (with `a` held), so the adjoint of h = scan(b, a) with respect to b is scan_back(g, a)."""
    g, a = lanes(g, axis), lanes(a, axis)
    axis = _normal_axis(g, axis)
    return _doubling(g, _moved(a, 1, axis, 0, backward=True), axis, backward=True)


def shift_along(v, axis=None):
    """`v` moved one place along `axis` towards the end, a zero first: v_{i-1}."""
    v = lanes(v, axis)
    return _moved(v, 1, _normal_axis(v, axis), 0)


def unshift_along(v, axis=None):
    """`v` moved one place along `axis` towards the start, a zero last: v_{i+1} (the transpose
    of shift_along)."""
    v = lanes(v, axis)
    return _moved(v, 1, _normal_axis(v, axis), 0, backward=True)


def exclusive_products(y, axis=None):
    """From y = cumprod(x, axis): the product of the entries before each one, y_{i-1}, and 1
    for the first."""
    y = lanes(y, axis)
    return _moved(y, 1, _normal_axis(y, axis), 1)


def drop_initial(g, axis=None, include_initial=False):
    """`g` without its first entry along `axis` where `include_initial` put one there (the
    0 of np.cumulative_sum, the 1 of np.cumulative_prod, constants without a derivative)."""
    if not include_initial:
        return g
    axis = _normal_axis(g, axis)
    return _part(g, axis, 1, np.shape(g)[axis])


def with_initial(g, axis=None, include_initial=False):
    """`g` with a zero in front along `axis` where `include_initial` asks for an initial
    entry: the transpose of drop_initial."""
    if not include_initial:
        return g
    axis = _normal_axis(g, axis)
    return np.concatenate([np.zeros_like(_part(g, axis, 0, 1)), g], axis)


def running_source(x, y, axis=0):
    """For `y = np.maximum.accumulate(x, axis)` (or minimum): the position along `axis` of the
    entry of `x` each entry of `y` is, the latest one that reached the running extremum.
    Where x_j equals y_j, the extremum is x_j from j on until an entry passes it."""
    axis = axis % np.ndim(x)
    n = np.shape(x)[axis]
    positions = np.reshape(np.arange(n), (n,) + (1,) * (np.ndim(x) - axis - 1))
    return np.maximum.accumulate(np.where(x == y, positions, 0), axis=axis)
