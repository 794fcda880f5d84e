"""Where np.rollaxis moves the axes (the permutation its adjoint undoes), and the operand of a
ufunc's `outer` (`np.multiply.outer(a, b)` is `np.multiply(outer_operand(a, b), b)`)."""
import numpy as np


def rollaxis_order(a, axis, start=0):
    """The axes of `a` in the order np.rollaxis(a, axis, start) puts them (np.transpose's
    `axes`), as NumPy reads `axis` and `start`."""
    n = np.ndim(a)
    axis = axis % n
    start = start + n if start < 0 else start
    order = list(range(n))
    if axis < start:
        start -= 1
    order.remove(axis)
    order.insert(start, axis)
    return tuple(order)


def outer_operand(a, b):
    """`a` with one trailing axis of length 1 per axis of `b`: broadcast against `b`, it
    pairs every entry of `a` with every entry of `b`, as `ufunc.outer(a, b)` does."""
    return np.reshape(a, np.shape(a) + (1,) * np.ndim(b))
