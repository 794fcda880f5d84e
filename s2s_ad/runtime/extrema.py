"""Derivatives of max and min (np.max, np.maximum, the builtins): the winner takes the
derivative, ties share it equally."""
import numpy as np

from .containers import GradList
from .reductions import unreduce


def extremum_mask(x, y, axis=None, keepdims=False):
    """Where `x` attains its reduced max/min `y`, shared equally between ties."""
    hits = x == unreduce(y, x, axis, keepdims)
    ties = np.sum(hits, axis=None if axis is None else axis, keepdims=True)
    return hits / ties


def _hits_and_ties(x, y, axis, keepdims):
    hits = x == unreduce(y, x, axis, keepdims)
    # count_nonzero counts a NumPy array's booleans many times faster than sum does
    count = np.count_nonzero if type(hits) is np.ndarray else np.sum
    return hits, count(hits, axis=axis, keepdims=keepdims)


def _spread(value, axis, keepdims):
    """`value`, reduced over `axis` of an array, with those axes back as 1s:
    NumPy's broadcasting then spreads it, where unreduce would write it out."""
    if keepdims or axis is None:
        return value
    return np.expand_dims(value, axis)


def _winners(x, y, axis, keepdims):
    """(where `x` attains `y`, whether every group has one winner) for a NumPy `x`. Counting
    all the hits at once is cheap at any size (counting per group costs as much as the
    comparison): as many hits as groups, and none of them NaN (whose group has none), is one
    winner each."""
    hits = x == _spread(y, axis, keepdims)
    if np.count_nonzero(hits) != (y.size if type(y) is np.ndarray else np.size(y)):
        return hits, False
    dtype = getattr(y, "dtype", None)       # (a default argument would convert y each call)
    kind = (dtype if dtype is not None else np.asarray(y).dtype).kind
    # (count_nonzero, not .any(): a method that dispatches in Python; not a sum of y, which
    # can overflow where y's entries do not)
    return hits, kind not in "fc" or not np.count_nonzero(np.isnan(y))


def _ties(hits, axis, keepdims=True):
    """Per group, how many entries attain the extremum."""
    return np.add.reduce(hits, axis=axis, keepdims=keepdims)


def extremum_share(g, x, y, axis=None, keepdims=False):
    """The adjoint `g` of `y`, x's max/min over `axis`, spread back over `x`: to the entries
    that attain it, shared equally between ties, 0 elsewhere (the share divided out before it
    is spread: one product over `x`, where extremum_mask's takes two)."""
    if type(x) is np.ndarray:
        hits, single = _winners(x, y, axis, keepdims)
        return _shared(hits, single, _spread(g, axis, keepdims), y, axis, keepdims)
    hits, ties = _hits_and_ties(x, y, axis, keepdims)
    return hits * unreduce(g / _counted(ties, y), x, axis, keepdims)


def _shared(hits, single, share, y, axis, keepdims):
    """extremum_share of a NumPy array from its winners (`_winners`) and the adjoint `share`
    spread over the reduced axes."""
    if single:
        return hits * share
    with np.errstate(divide="ignore", invalid="ignore"):    # _counted's NaN groups
        return hits * (share / _counted(_ties(hits, axis), _spread(y, axis, keepdims)))


def add_extremum_share(total, g, x, y, axis=None, keepdims=False):
    """`total + extremum_share(g, x, y, axis, keepdims)`, added into `total` itself where the
    generated code owns it (optimize/add_into_owned.py: an adjoint it made that nothing else
    reads again) and it is a writable NumPy array with the sum's shape and dtype. Only the
    winners' entries are written: on a large array the sum costs a comparison and a masked
    addition, not three temporaries the size of `x`. Where a group ties or is NaN, `g` is not
    finite (its product with the losers' 0 is NaN), or the array is small (where the masked
    addition costs more than the temporaries), the sum is made as extremum_share makes it.
    Entry by entry the same numbers (a -0.0 of `total` among the losers stays -0.0, where the
    sum adds +0.0 to it)."""
    if type(x) is not np.ndarray or type(total) is not np.ndarray or total.shape != x.shape \
            or x.size < _MASKED_FROM:
        return total + extremum_share(g, x, y, axis, keepdims)
    hits, single = _winners(x, y, axis, keepdims)
    share = _spread(g, axis, keepdims)
    # the sum's dtype: that of `total` and of hits * share (a Python float times booleans is
    # a float64, where with a float32 array alone it would stay float32)
    if not single or not total.flags.writeable or \
            np.result_type(total, np.result_type(np.bool_, share)) != total.dtype or \
            not np.isfinite(share).all():
        return total + _shared(hits, single, share, y, axis, keepdims)  # (0 * NaN is NaN)
    return np.add(total, share, out=total, where=hits)


_MASKED_FROM = 4096      # entries: below, add_extremum_share's masked addition costs more


def extremum_gather(u, x, y, axis=None, keepdims=False):
    """The transpose of extremum_share: `u`'s entries where `x` attains `y`, averaged over
    the ties (the tangent of `y` from the tangent `u` of `x`)."""
    if type(x) is np.ndarray:
        hits, single = _winners(x, y, axis, keepdims)
        if type(u) is np.ndarray and u.shape == hits.shape and u.size >= _MASKED_FROM and \
                np.isfinite(np.add.reduce(u, axis=axis, keepdims=keepdims)).all():
            # the winners' entries summed where they are: no product the size of x (where a
            # group's entries are all finite: a NaN or inf among its losers, which the product
            # with 0 turns into NaN, as x + t*u makes the max NaN, takes the product's way)
            picked = np.add.reduce(u, axis=axis, keepdims=keepdims, where=hits)
        else:
            picked = u * hits
            picked = picked.sum(axis=axis, keepdims=keepdims) if type(picked) is np.ndarray \
                else np.sum(picked, axis=axis, keepdims=keepdims)
        if single:
            return picked
        with np.errstate(divide="ignore", invalid="ignore"):    # _counted's NaN groups
            return picked / _counted(_ties(hits, axis, keepdims), y)
    hits, ties = _hits_and_ties(x, y, axis, keepdims)
    return np.sum(u * hits, axis=axis, keepdims=keepdims) / _counted(ties, y)


def _counted(ties, y):
    """The ties of each group, 1 for a group no entry attains whose extremum is a number: the
    `initial` of `np.max(x, initial=c)` won it, or it has no entries (nothing to share); a
    NaN group's stays 0, its derivative NaN (0 / 0, without the warning, or the error under
    np.errstate, that the function itself, which gave NaN quietly, did not raise)."""
    return ties + ((ties == 0) & (y == y))


def lowest_of(x):
    """The lowest value `x`'s dtype holds (-inf, or an integer type's least): the `initial` of
    a max that every entry beats, so that a group with no entries has one
    (passes/lower_reduction_keywords.py); `highest_of` for a min."""
    dtype = _dtype_of(x)
    return -np.inf if dtype.kind in "fc" else np.iinfo(dtype).min if dtype.kind in "iu" else False


def highest_of(x):
    """The highest value `x`'s dtype holds (lowest_of's twin, for a min)."""
    dtype = _dtype_of(x)
    return np.inf if dtype.kind in "fc" else np.iinfo(dtype).max if dtype.kind in "iu" else True


def _dtype_of(x):
    """The dtype of the array `x` is, or that NumPy makes of it (a list of numbers)."""
    dtype = getattr(x, "dtype", None)
    return np.dtype(dtype) if dtype is not None else np.asarray(x).dtype


def tie_share(x, y):
    """1 where `x` wins a max against `y`, 1/2 where they tie, 0 where it loses."""
    return (x > y) + 0.5 * (x == y)


def _pick_shares(z, x, args, key):
    """For `z = max(*args)` or `min(*args)`: the share of `z` that `x` (one of `args`, or the
    single iterable argument) receives: 1 where `x` is the result, split equally between ties
    (as np.maximum does)."""
    if key is not None:
        raise NotImplementedError("s2s_ad cannot differentiate max() or min() with key=; "
                                  "compare the values themselves (np.argmax, np.maximum)")
    if len(args) > 1:
        return (x == z) / sum(bool(a == z) for a in args)
    if isinstance(x, (list, tuple)):
        hits = [bool(e == z) for e in x]
        return [h / sum(hits) for h in hits]
    hits = x == z
    return hits / np.sum(hits)


def pick_grad(g, z, x, args, key=None):
    """Adjoint, for the argument `x`, of `z = max(*args)` / `min(*args)` given `z`'s adjoint
    `g` (a GradList when `x` is the single list argument)."""
    share = _pick_shares(z, x, args, key)
    if isinstance(share, list):
        return GradList(_scaled(g, s) for s in share)
    return _scaled(g, share)


def _scaled(g, share):
    """`g * share`, where `g` may be the adjoint (or tangent) of a tuple the builtin picked
    (`min(d.items())`): entry by entry, a zero share giving a zero (None) entry."""
    if isinstance(g, (list, tuple)):
        if not np.any(share):
            return None
        return GradList(None if e is None else _scaled(e, share) for e in g)
    return g * share


def unpick(u, z, x, args, key=None):
    """The adjoint of `pick_grad` with respect to `g`: `u`, shaped like `x`'s adjoint, summed
    against the shares (a missing list entry is a zero)."""
    share = _pick_shares(z, x, args, key)
    if isinstance(share, list):
        return _summed([_scaled(ui, s) for ui, s in zip(u, share) if ui is not None])
    return np.sum(u * share)


def took_default(args):
    """1.0 when `max(xs, default=...)` / `min` returned its default (`xs` was empty), else 0.0."""
    return 1.0 if len(args) == 1 and len(args[0]) == 0 else 0.0


def pick_tangent(z, args, tangents, key=None):
    """Tangent of `z = max(*args)` / `min(*args)`: the tangents of the winners, ties sharing."""
    total = 0.0
    for x, t in zip(args, tangents):
        if t is None:
            continue
        share = _pick_shares(z, x, args, key)
        if isinstance(share, list):
            total = _summed([total] + [_scaled(ti, s) for ti, s in zip(t, share)
                                       if ti is not None])
        else:
            total = _summed([total, _scaled(t, share) if isinstance(t, (list, tuple))
                             else np.sum(t * share)])
    return type(z)(total) if isinstance(z, tuple) and isinstance(total, list) else total


def _summed(terms):
    """The sum of `terms`, None a zero (a picked tuple's tangents are added entry by entry)."""
    terms = [t for t in terms if t is not None]
    containers = [t for t in terms if isinstance(t, (list, tuple))]
    if not containers:
        return sum(terms, 0.0)
    total = GradList(containers[0])
    for t in containers[1:]:
        total = total + t
    return total


def position_by_key(items, key, largest):
    """The position of the item `max(items, key=key)` (or `min`, where not `largest`) returns:
    the first whose key is largest (smallest). A constant: which item wins is a choice, and the
    derivative flows through the item picked, not through its key."""
    keys = [key(item) for item in items]
    if not keys:
        raise ValueError(f"{'max' if largest else 'min'}() iterable argument is empty")
    pick = max if largest else min
    return pick(range(len(keys)), key=keys.__getitem__)
