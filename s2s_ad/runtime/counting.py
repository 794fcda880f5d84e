"""What the definitions of np.unique and np.histogram (s2s_ad/definitions.py) call: the integer
parts of their results, which carry no derivative, and the weights summed per bin, which are
linear in the weights and constant in the data (a point moves within its bin)."""
import numpy as np


def _order(sorted):
    """np.unique's `sorted` (NumPy 2.3 and later), passed only where it is not the default."""
    return {} if sorted else {"sorted": False}


def unique_index(ar, axis=None, equal_nan=True, sorted=True):
    """The index of each unique value's first occurrence (in `ar` flattened where `axis` is
    None, else of each unique slice along `axis`), in the order np.unique returns them."""
    return np.unique(ar, return_index=True, axis=axis, equal_nan=equal_nan, **_order(sorted))[1]


def unique_extras(ar, return_index, return_inverse, return_counts, axis=None, equal_nan=True,
                  sorted=True):
    """The integer arrays np.unique returns after the values, as it returns them."""
    if not (return_index or return_inverse or return_counts):
        return ()
    found = np.unique(ar, return_index, return_inverse, return_counts, axis,
                      equal_nan=equal_nan, **_order(sorted))
    return tuple(found[1:])


def bin_totals(weights, a, edges):
    """The number of entries of `a` in each bin of `edges` (weights None), or the sum of their
    weights, as np.histogram counts them (the last bin holds its right edge)."""
    return np.histogram(a, edges, weights=weights)[0]


def bin_spread(g, a, edges):
    """The transpose of bin_totals in the weights: each entry of `a` gets its bin's entry of
    `g`, 0 outside the bins."""
    bins = np.searchsorted(edges, a, side="right") - 1
    bins = np.where(a == edges[-1], len(edges) - 2, bins)       # the last bin holds its right edge
    inside = (bins >= 0) & (bins < len(edges) - 1)
    return np.where(inside, np.asarray(g)[np.clip(bins, 0, len(edges) - 2)], 0.0)


def bin_count(a, bins, range=None, weights=None):
    """How many bins np.histogram_bin_edges makes (a number, or a name such as 'auto')."""
    return len(np.histogram_bin_edges(a, bins, range, weights)) - 1


def bin_dtype(a, first, last):
    """The type of the edges NumPy computes: that of `a` and the outer edges, float for
    integers."""
    kind = np.result_type(first, last, a)
    return kind if np.issubdtype(kind, np.inexact) else np.result_type(kind, float)
