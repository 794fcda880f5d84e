"""Statements that only bind or unbind names: imports inside the function, `global` for a
name the function only reads, `del` of local names. They were refused until 2026-11-25; now
derivatives read the names as the function does. Writing a global stays refused."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad

SCALE = 3.0


def imports_inside(x):
    import numpy as onp
    from scipy import special
    from numpy.linalg import norm as length
    import os.path                              # noqa: F401  (binds `os`, unused)
    global SCALE
    t = onp.sin(x) * SCALE
    u = t * 2
    del t
    return onp.sum(special.expit(u)) + length(x)


def writes_a_global(x):
    global SCALE
    SCALE = 4.0
    return np.sum(x * SCALE)


def deletes_an_entry(x):
    xs = [x, x * 2]
    del xs[0]
    return np.sum(xs[0])


X = np.array([0.3, -0.4, 1.2])


def test_imports_global_reads_and_del_are_differentiated():
    expected = numerical_grad(imports_inside, (X,), 0)
    assert_close(ad.grad(imports_inside)(X), expected)
    assert ad.jvp(imports_inside)(X, tangent=np.ones(3))[1] == pytest.approx(np.sum(expected))


@pytest.mark.parametrize("fn, what", [(writes_a_global, "`global`"), (deletes_an_entry, "`del`")])
def test_what_changes_state_stays_refused(fn, what):
    with pytest.raises(ad.TransformError, match=what) as info:
        ad.grad(fn)(X)
    assert info.value.filename == __file__
