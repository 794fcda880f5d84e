"""A function of yours that changes a list (or dict) it is given, which the caller then
reads. Found 2026-11-28 as silent wrong derivatives where the change was not seen as one:
`return out.pop()` (a change inside an expression), `d.setdefault('k', []).append(v)` (through
an entry it hands out), `a += [v]` (a list's `+=` extends it), and a helper that hands the list
on to another that changes it (directly, or from a lambda or nested def). All are refused now,
as a direct `out.append(v)` was, with hints that work."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode
from s2s_ad.errors import TransformError


def pop_last(out):
    return out.pop()


def pops_through_a_helper(x):
    out = [x, x * x]
    v = pop_last(out)
    return np.sum(v * out[-1]) + len(out)


def put_under_k(d, v):
    d.setdefault('k', []).append(v)


def fills_an_entry_through_a_helper(x):
    d = {}
    put_under_k(d, x * x)
    return np.sum(d['k'][0])


def extend_with(a, v):
    a += [v]


def extends_through_a_helper(x):
    out = [x]
    extend_with(out, x * 2)
    return np.sum(out[-1])


def append_to(out, v):
    out.append(v)


def hands_on(out, v):
    append_to(out, v)


def hands_on_to_a_helper(x):
    out = [x]
    hands_on(out, x * 3)
    return np.sum(out[-1])


def lambda_hands_on(x):
    out = [x]
    add = lambda v: append_to(out, v)
    add(np.sin(x))
    return np.sum(out[-1])


def nested_def_hands_on(x):
    out = [x]

    def add(v):
        append_to(out, v)
    add(np.sin(x))
    return np.sum(out[-1])


X = np.array([0.3, -0.7, 1.1])


@pytest.mark.parametrize("fn, words", [
    (pops_through_a_helper, "`pop_last` writes into its argument `out`"),
    (fills_an_entry_through_a_helper, "`put_under_k` writes into its argument `d`"),
    (extends_through_a_helper, "changes in place the list passed in as `out`"),
    (hands_on_to_a_helper, "`hands_on` writes into its argument `out`"),
    (lambda_hands_on, "writes into its argument `out`"),
    (nested_def_hands_on, "`add` writes into its argument `out`")])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_a_change_of_a_list_passed_in_is_refused(fn, words, mode):
    with pytest.raises(TransformError, match=words.replace("(", "\\(")) as err:
        if mode == "grad":
            ad.grad(fn)(X)
        else:
            ad.jvp(fn)(X, tangent=X)
    assert err.value.filename == __file__


def extend_anew(a, v):
    a = [*a, v]
    return a


def extends_as_the_hint_says(x):
    out = [x]
    out = extend_anew(out, x * 2)
    return np.sum(out[-1] * out[0])


def test_the_hint_differentiates():
    check_every_mode(extends_as_the_hint_says, X)
