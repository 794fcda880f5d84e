"""Adjoints of picking each entry from one of several arrays: np.select (the first condition
that holds picks the choice; none, the default) and np.choose (an integer array picks). The
adjoint of a choice is the result's adjoint where that choice was picked, zero elsewhere,
summed back to the choice's shape (the choices broadcast against the conditions)."""
import numpy as np

from .arrays import shape_of, unbroadcast
from .containers import GradList


def choice_taken(condlist):
    """The number of the choice np.select takes at each entry (-1: the default)."""
    taken = -1
    # last condition first, so that the first that holds wins; not np.select of the numbers,
    # which Dask's select cannot broadcast against the conditions
    for k in reversed(range(len(condlist))):
        taken = np.where(condlist[k], k, taken)
    return taken


def chosen(g, condlist, k, like):
    """The part of `np.select`'s adjoint `g` that choice `k` (-1: the default) receives, in
    the shape of `like`, that choice."""
    return unbroadcast(np.where(choice_taken(condlist) == k, g, 0), like)


def _parts_like(parts, choices):
    """The choices' adjoint from one part per choice: a list for a list (or tuple) of choices,
    an array for an array of them (its first axis numbering the choices)."""
    if isinstance(choices, (list, tuple)):
        return GradList(parts)
    return np.reshape(np.stack(parts), shape_of(choices))


def select_grad(g, condlist, choicelist):
    """Adjoint of `np.select(condlist, choicelist, default)` with respect to the choices: one
    part per choice."""
    return _parts_like([chosen(g, condlist, k, choicelist[k]) for k in range(len(choicelist))],
                       choicelist)


def choice_index(a, n, mode="raise"):
    """The choice np.choose takes at each entry, with `mode` ('raise', 'wrap', 'clip') applied
    to the indices `a` among `n` choices."""
    if isinstance(a, (list, tuple)):
        a = np.asarray(a)
    if mode == "wrap":
        return np.mod(a, n)
    if mode == "clip":
        return np.clip(a, 0, n - 1)
    return a


def choose_grad(g, a, choices, mode="raise"):
    """Adjoint of `np.choose(a, choices, mode=mode)` with respect to the choices."""
    picked = choice_index(a, len(choices), mode)
    return _parts_like([unbroadcast(np.where(picked == k, g, 0), choices[k])
                        for k in range(len(choices))], choices)
