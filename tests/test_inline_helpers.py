"""Small helpers of yours copied into their caller (passes/inline_helpers.py): the same values
and derivatives as calls into them, in every mode, no call into a helper's derivative left
where one was inlined, calls kept where inlining could change what runs, a rebound helper
followed, and refusals inside a helper still naming the helper's line."""
import numpy as np
import pytest

import s2s_ad as ad
from oracle_checks import check_every_mode

X = np.array([0.3, -0.7, 1.1, 0.4])


def act(z):
    return np.tanh(z)


def dense(x, W, b):
    return act(x @ W + b)


def scaled(z, slope=0.5, shift=0.0):
    """A docstring, defaults and statements before the return."""
    lifted = z * slope
    squared = lifted * lifted
    return squared + shift


def layered(x):
    W = np.outer(x, x[::-1]) * 0.3
    h = dense(x, W, x)
    h = dense(h, W, np.sin(x))
    return np.sum(scaled(h, shift=1.0) + scaled(x, 2.0))


def in_expressions(x):
    y = np.sum(act(x)) * 2.0 + x[0]
    if act(x[1]) > -0.9:
        y = y + np.max(scaled(x))
    return y


def in_a_loop(x):
    h = x
    for k in range(3):
        h = act(h * (k + 1.0)) + scaled(h, slope=0.1 * k)
    return np.sum(h * h)


@pytest.mark.parametrize("fn", [layered, in_expressions, in_a_loop], ids=lambda f: f.__name__)
def test_inlined_helpers_against_both_oracles(fn):
    check_every_mode(fn, X.copy())


def test_the_derivative_calls_no_inlined_helper():
    source = ad.source(ad.grad(layered))
    code = "\n".join(line for line in source.splitlines() if not line.strip().startswith("#"))
    assert "fwd_" not in code and "vjp_" not in code.split("\n", 1)[1] and "scaled" not in code
    assert "np.tanh" in code
    # located at the call: the line the user wrote
    assert "# grad of: h = dense(x, W, x)" in source


def with_a_loop(z):
    for _ in range(2):
        z = z * 0.5
    return z


def calls_a_helper_with_a_loop(x):
    return np.sum(with_a_loop(x) ** 2)


def test_a_helper_with_control_flow_stays_a_call():
    assert "with_a_loop" in ad.source(ad.grad(calls_a_helper_with_a_loop))
    check_every_mode(calls_a_helper_with_a_loop, X.copy())


LOG = []


def logged(x):
    LOG.append(1)
    return x


def counted(z):
    return z * len(LOG)


def logged_then_counted(x):
    return np.sum(logged(x) + counted(x))


def test_a_helper_is_not_moved_before_a_call_that_runs_first():
    """`logged(x) + counted(x)`: `counted` reads what `logged` changes, so it is not copied
    to before the statement (where it would run first)."""
    del LOG[:]
    expected = logged_then_counted(X.copy())
    del LOG[:]
    value, gradient = ad.value_and_grad(logged_then_counted)(X.copy())
    assert value == pytest.approx(expected)
    np.testing.assert_allclose(gradient, np.ones(4) * 2.0)


def twice(z):
    return 2.0 * z


def doubled_sum(x):
    return np.sum(twice(x) ** 2)


def thrice(z):
    return 3.0 * z


def test_a_helper_rebound_after_the_derivative_was_made_is_followed(monkeypatch):
    grad = ad.grad(doubled_sum)
    np.testing.assert_allclose(grad(X.copy()), 8.0 * X)
    with monkeypatch.context() as patched:
        patched.setitem(globals(), "twice", thrice)
        np.testing.assert_allclose(grad(X.copy()), 18.0 * X)
        np.testing.assert_allclose(ad.jvp(doubled_sum)(X.copy(), tangent=X)[1], 18.0 * X @ X)
    np.testing.assert_allclose(grad(X.copy()), 8.0 * X)


def inner(z):
    return z * 5.0


def outer_helper(z):
    return inner(z) + 1.0


def nested_sum(x):
    return np.sum(outer_helper(x) ** 2)


def times_seven(z):
    return z * 7.0


def test_a_helper_of_an_inlined_helper_rebound_is_followed(monkeypatch):
    grad = ad.grad(nested_sum)
    np.testing.assert_allclose(grad(X.copy()), 2 * (5 * X + 1) * 5)
    monkeypatch.setitem(globals(), "inner", times_seven)
    np.testing.assert_allclose(grad(X.copy()), 2 * (7 * X + 1) * 7)


def unsupported(z):
    return np.frexp(z)[0] * z[0]


def calls_unsupported(x):
    return np.sum(unsupported(x))


def test_a_refusal_inside_a_helper_names_the_helpers_line():
    with pytest.raises(ad.TransformError) as caught:
        ad.grad(calls_unsupported)(X.copy())
    assert caught.value.lineno == unsupported.__code__.co_firstlineno + 1


# found by a reviewer on the day inlining landed: names local to the caller that no
# assignment binds, and the order in which a statement's parts run

def shadowed_by_a_nested_def(x):
    def act(z):
        return z * 10.0
    return np.sum(dense(x, np.eye(4), x)) + np.sum(act(x))


SCALE = 2.0


def scaled_by_the_module(z):
    return z * SCALE


def shadowed_by_an_import(x):
    from math import pi as SCALE
    return np.sum(scaled_by_the_module(x)) + SCALE


@pytest.mark.parametrize("fn", [shadowed_by_a_nested_def, shadowed_by_an_import],
                         ids=lambda f: f.__name__)
def test_a_name_local_to_the_caller_is_not_the_helpers(fn):
    """The caller's own `act` (a nested def) and `SCALE` (an import) are not the module's
    that the helpers read: inlined, they would have been (wrong values, no error)."""
    check_every_mode(fn, X.copy(), autograd_runs=False)


def by_keyword(a, b):
    return a * 2.0 + b


def keywords_that_raise(x):
    return np.sum(by_keyword(b=x[10], a=np.reshape(x, (7, 7))))


def raises_before_the_helper(x):
    return np.sum(x[10] + scaled(np.reshape(x, (7, 7))))


@pytest.mark.parametrize("fn", [keywords_that_raise, raises_before_the_helper],
                         ids=lambda f: f.__name__)
def test_what_runs_first_raises_first(fn):
    """Keywords are evaluated in the order written, and what precedes a helper's call in its
    statement runs before it: the same IndexError as Python's, not the helper's error."""
    with pytest.raises(IndexError):
        fn(X.copy())
    with pytest.raises(IndexError):
        ad.grad(fn)(X.copy())
    with pytest.raises(IndexError):
        ad.jvp(fn)(X.copy(), tangent=X.copy())


activation = np.tanh


def activated(z):
    return activation(z)


def sum_activated(x):
    return np.sum(activated(x))


def test_a_function_an_inlined_helper_reads_by_name_rebound_is_followed(monkeypatch):
    """The helper's `activation`, a module-level name of the helper's, is checked with the
    helper at every call of the derivative (the caller itself never reads it)."""
    grad = ad.grad(sum_activated)
    np.testing.assert_allclose(grad(X.copy()), 1 - np.tanh(X) ** 2)
    with monkeypatch.context() as patched:
        patched.setitem(globals(), "activation", np.sin)
        np.testing.assert_allclose(grad(X.copy()), np.cos(X))
    np.testing.assert_allclose(grad(X.copy()), 1 - np.tanh(X) ** 2)
