"""Generator functions of yours (issue 15): one that yields pieces of a parameter vector
(autograd's examples unpack `W, b = unpack(params)`), taken by unpacking, list(...), sum(...),
a for loop or `yield from`, differentiated in every mode against central finite differences
and HIPS autograd. A call whose items are not all taken at once, where running the generator
to its end first could read other values than Python's step-by-step run, is refused."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode

SHAPES = [(2, 2), (2,)]


def pieces(v):
    offset = 0
    for shape in SHAPES:
        size = 1
        for n in shape:
            size = size * n
        yield v[offset:offset + size].reshape(shape)
        offset += size


def two(v):
    yield v[0] * 2.0
    yield v[1] * v[2]
    return                     # a bare return ends it


def chained(v):
    yield from two(v)
    yield v[3] ** 2


def unpacked(v):
    W, b = pieces(v)
    return np.sum(np.tanh(W @ np.ones(2) + b))


def in_a_for_loop(v):
    total = 0.0
    for piece in pieces(v):
        total = total + np.sum(piece ** 2)
    return total


def enumerated(v):
    total = 0.0
    for k, piece in enumerate(pieces(v)):
        total = total + (k + 1.0) * np.sum(np.sin(piece))
    return total


def summed(v):
    return sum(two(v)) * v[3]


def as_a_list(v):
    return np.sum(np.array(list(two(v))) ** 2)


def through_yield_from(v):
    a, b, c = chained(v)
    return a * b + np.sin(c)


CASES = [unpacked, in_a_for_loop, enumerated, summed, as_a_list, through_yield_from]
V = np.array([0.3, -0.7, 1.1, 0.4, 0.9, -0.2])


@pytest.mark.filterwarnings("ignore:Output seems independent of input")
@pytest.mark.parametrize("fn", CASES, ids=[f.__name__ for f in CASES])
def test_against_both_oracles(fn):
    check_every_mode(fn, V.copy())


def rows(a):
    for i in range(3):
        yield a[i] * 2.0


def writes_what_it_reads(x):
    a = x * 1.0
    t = 0.0
    for r in rows(a):
        a[2] = a[2] + r          # Python's generator reads the new a[2] in its last step
        t = t + r
    return t + np.sum(a)


def kept_in_a_name(x):
    g = rows(x)
    return next(g) + next(g)


def stops_early(x):
    # any() stops at the first true item: the rest are never made in Python
    return x[0] * float(any(rows(x)))


def forever(v):
    while True:
        yield v * 2.0


def takes_two_of_forever(x):
    a, b = forever(x)
    return np.sum(a * b)


@pytest.mark.parametrize("fn, words", [
    (writes_what_it_reads, "is a generator"), (kept_in_a_name, "is a generator"),
    (stops_early, "is a generator"), (takes_two_of_forever, "while True")],
    ids=["writes-what-it-reads", "kept", "any", "forever"])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_refused_where_running_it_first_could_differ(fn, words, mode):
    x = V[:3].copy()
    with pytest.raises(ad.TransformError, match=words) as caught:
        if mode == "grad":
            ad.grad(fn)(x)
        else:
            ad.jvp(fn)(x, tangent=np.ones(3))
    assert caught.value.hint


def writes_through_an_alias(x):
    a = x * 1.0
    b = a[1:]                     # a view of what the generator reads
    t = 0.0
    for r in rows(a):
        b[1] = b[1] + r
        t = t + r
    return t + np.sum(b)


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_write_through_a_name_bound_from_what_it_reads_is_refused_at_the_call(mode):
    x = V[:3].copy()
    with pytest.raises(ad.TransformError, match="is a generator"):
        if mode == "grad":
            ad.grad(writes_through_an_alias)(x)
        else:
            ad.jvp(writes_through_an_alias)(x, tangent=np.ones(3))
