"""Where np.rollaxis moves the axes: the permutation its adjoint undoes."""
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
