"""Correctness before timing: the hand-written gradient against central finite differences in
float64, and every other gradient against the hand-written one."""
import numpy as np

from trees import chosen, leaves, replace_leaves, with_chosen

AGREE_RTOL = 1e-8       # the same gradient, summed in another order
FD_RTOL = 1e-6          # central differences, step 1e-6 on float64


class Disagreement(AssertionError):
    pass


def relative_error(actual, expected):
    """The largest leaf difference, relative to the largest magnitude in `expected`."""
    actual, expected = leaves(actual), leaves(expected)
    if len(actual) != len(expected):
        return np.inf
    worst, scale = 0.0, 1e-300
    for a, e in zip(actual, expected):
        a, e = np.asarray(a, dtype=np.float64), np.asarray(e, dtype=np.float64)
        if a.shape != e.shape:
            return np.inf
        worst = max(worst, float(np.max(np.abs(a - e), initial=0.0)))
        scale = max(scale, float(np.max(np.abs(e), initial=0.0)))
    return worst / scale


def assert_agrees(name, actual, expected, rtol=AGREE_RTOL):
    error = relative_error(actual, expected)
    if not error <= rtol:
        raise Disagreement(f"{name} differs from the hand-written gradient by {error:.1e} "
                           f"(relative to its largest entry; allowed {rtol:.0e})")


def random_direction(rng, args, wrt):
    return replace_leaves(chosen(args, wrt), [rng.normal(size=np.shape(x))
                                              for x in leaves(chosen(args, wrt))])


def shifted(args, wrt, direction, step):
    moved = [x + step * v for x, v in zip(leaves(chosen(args, wrt)), leaves(direction))]
    return with_chosen(args, wrt, replace_leaves(chosen(args, wrt), moved))


def dot(a, b):
    return sum(float(np.sum(np.asarray(x) * np.asarray(y))) for x, y in zip(leaves(a), leaves(b)))


def check_by_hand(workload, args, rng, directions=3, eps=1e-6):
    """The hand-written gradient along random directions against central differences: one
    pair of function calls per direction, so that the full-size inputs can be checked."""
    gradient = workload.by_hand(*args)
    for _ in range(directions):
        v = random_direction(rng, args, workload.wrt)
        fd = (workload.function(*shifted(args, workload.wrt, v, eps))
              - workload.function(*shifted(args, workload.wrt, v, -eps))) / (2 * eps)
        exact = dot(gradient, v)
        if not abs(fd - exact) <= FD_RTOL * max(abs(exact), abs(fd), 1.0):
            raise Disagreement(f"{workload.name}: the hand-written gradient along a random "
                               f"direction is {exact!r}, central differences give {fd!r}")
    return gradient
