"""`raise` inside a differentiated function runs as written; a derivative taken more times
than a rule's helpers allow is refused at the user's line, not inside generated code."""
import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.errors import NoDerivativeRule


def checked_sum(x, n=3):
    if x.ndim != 1:
        raise ValueError(f"expected a vector, got shape {x.shape}")
    s = 0.0
    for i in range(n):
        if x[i] > 10.0:
            raise ValueError("too large")
        s = s + np.sin(x[i]) * x[0]
    return s


X = np.array([0.3, -0.5, 0.8])


def test_a_function_that_validates_its_input_is_differentiated_in_every_mode():
    expected = numerical_grad(checked_sum, [X], 0)
    assert_close(ad.grad(checked_sum)(X), expected)
    assert_close(ad.jvp(checked_sum)(X, tangent=np.ones(3))[1], np.sum(expected))
    hessian = np.array([numerical_grad(lambda v: numerical_grad(checked_sum, [v], 0, 1e-4)[k],
                                       [X], 0, 1e-4) for k in range(3)])
    assert_close(ad.hessian(checked_sum)(X), hessian, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("transform", ["grad", "jvp", "hvp"])
def test_the_users_exception_is_raised_by_the_derivative(transform):
    df = getattr(ad, transform)(checked_sum)
    extra = {"grad": {}, "jvp": {"tangent": np.ones(3)}, "hvp": {"vector": np.ones(3)}}[transform]
    with pytest.raises(ValueError, match="too large"):
        df(np.array([20.0, 1.0, 1.0]), **extra)
    with pytest.raises(ValueError, match=r"expected a vector, got shape \(2, 2\)"):
        df(np.ones((2, 2)), **{k: np.ones((2, 2)) for k in extra})


def cubed_norm(x):
    return np.linalg.norm(x) ** 3


def third_derivative_of_the_norm(x):
    return np.sum(ad.hvp(cubed_norm)(x, vector=np.ones(3)) ** 2)


def test_a_helper_without_a_derivative_is_refused_at_the_users_line():
    with pytest.raises(NoDerivativeRule) as caught:
        ad.grad(third_derivative_of_the_norm)(X)
    error = caught.value
    assert error.filename == __file__
    assert "np.linalg.norm(x) ** 3" in error.source_line
    assert "this many times" in error.message and "norm_direction_tangent" in error.message


def validate(v):
    if v.ndim != 1:
        raise ValueError("need a vector")


def validated_cube(x):
    validate(x)              # a call of yours as a statement, for its checks alone
    return np.sum(x ** 3)


def test_a_checking_helper_called_as_a_statement_is_accepted_in_every_mode():
    # found by an independent tester: grad accepted it, jvp and hessian refused it
    assert_close(ad.grad(validated_cube)(X), 3 * X ** 2)
    assert_close(ad.jvp(validated_cube)(X, tangent=np.ones(3))[1], np.sum(3 * X ** 2))
    assert_close(ad.hessian(validated_cube)(X), np.diag(6 * X))
    with pytest.raises(ValueError, match="need a vector"):
        ad.jvp(validated_cube)(np.ones((2, 2)), tangent=np.ones((2, 2)))
