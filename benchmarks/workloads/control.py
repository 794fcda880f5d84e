"""The autograd tutorials' example of control flow that depends on the data: how many times
the loop doubles `b`, and which branch runs, are known only when the values are."""
import numpy as np


def grow(a):
    b = a * 2
    while np.linalg.norm(b) < 1000:
        b = b * 2
    if np.sum(b) > 0:
        c = b
    else:
        c = 100 * b
    return np.sum(c)


def grow_by_hand(a):
    b, scale = a * 2, 2.0
    while np.linalg.norm(b) < 1000:
        b, scale = b * 2, scale * 2
    if np.sum(b) <= 0:
        scale = 100 * scale
    return np.full_like(a, scale)


def inputs(rng, size):
    return (rng.normal(size=size),)
