"""NumPy functions written with the functions that have rules. A call of one of these in a
differentiated function runs the definition below instead (passes/use_definitions.py), which
s2s_ad differentiates as it would a function of yours; its value is NumPy's (the tests compare
them). A rule registered for the NumPy function (`@s2s_ad.adjoint(np.cov)`) wins over it."""
import numpy as np


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None):
    """np.cov: observations along axis 1 (axis 0 where `rowvar` is False), optionally
    weighted; derivatives flow to `m`, `y` and `aweights`."""
    observations = _variables_in_rows(m, rowvar)
    if y is not None:
        observations = np.concatenate((observations, _variables_in_rows(y, rowvar)), axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    weights = _product_of_weights(fweights, aweights)
    if weights is None:
        centered = observations - np.mean(observations, axis=1, keepdims=True)
        return np.squeeze(centered @ centered.T / (observations.shape[1] - ddof))
    total = np.sum(weights)
    centered = observations - np.sum(observations * weights, axis=1, keepdims=True) / total
    if aweights is None:
        count = total - ddof
    else:
        count = total - ddof * np.sum(weights * aweights) / total
    return np.squeeze((centered * weights) @ centered.T / count)


def corrcoef(x, y=None, rowvar=True):
    """np.corrcoef: the covariance scaled by the standard deviations, clipped to [-1, 1]."""
    c = cov(x, y, rowvar)
    if np.ndim(c) == 0:
        return c / c
    deviations = np.sqrt(np.diagonal(c))
    return np.clip(c / deviations[:, None] / deviations[None, :], -1.0, 1.0)


def _variables_in_rows(m, rowvar):
    rows = np.atleast_2d(m)
    return rows.T if not rowvar and rows.shape[0] != 1 else rows


def _product_of_weights(fweights, aweights):
    if fweights is None:
        return aweights
    return fweights if aweights is None else fweights * aweights


DEFINED = {np.cov: cov, np.corrcoef: corrcoef}
