"""Frozen SciPy distributions bound more than once (issue 15): in each branch of an `if`, again
in a loop with its parameters carried, and copied to another name (`e = d`). Every binding
freezes the same distribution with arguments of the same form, kept in the same names; in
every mode against central finite differences. Two different distributions under one name stay
refused."""
import numpy as np
import pytest
from scipy import stats

import s2s_ad as ad
from oracle_checks import check_every_mode

X = np.array([0.3, -0.7, 1.1, 0.4])


def in_each_branch(x):
    if np.sum(x) > 0:
        d = stats.norm(x[0], 2.0)
    else:
        d = stats.norm(1.0, np.exp(x[1]))
    return np.sum(d.logpdf(x)) + d.cdf(x[2])


def in_each_branch_other_side(x):
    return in_each_branch(-x)


def copied_to_another_name(x):
    d = stats.t(3.0, loc=x[0], scale=1.5)
    e = d
    f = e
    return np.sum(e.logpdf(x * 2.0)) + np.sum(f.pdf(x))


def carried_through_a_loop(x):
    d = stats.norm(0.0, 1.0)
    total = 0.0
    for k in range(3):
        total = total + np.sum(d.logpdf(x)) * (k + 1.0)
        d = stats.norm(x[k] * 0.5, 1.0 + x[k + 1] ** 2)
    return total + d.logcdf(x[0])


@pytest.mark.parametrize("fn", [in_each_branch, in_each_branch_other_side,
                                copied_to_another_name, carried_through_a_loop])
def test_every_mode(fn):
    check_every_mode(fn, X, autograd_runs=False)


def two_distributions(x):
    if x[0] > 0:
        d = stats.norm(0.0, 1.0)
    else:
        d = stats.laplace(0.0, 1.0)
    return np.sum(d.logpdf(x))


def test_two_distributions_under_one_name_stay_refused():
    with pytest.raises(ad.TransformError, match="frozen scipy.stats distribution") as info:
        ad.grad(two_distributions)(X)
    assert "0x" not in str(info.value) and "stats.norm.logpdf" in info.value.hint
