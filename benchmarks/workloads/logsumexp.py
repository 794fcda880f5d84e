"""Log-sum-exp over a whole matrix, shifted by its maximum so that exp cannot overflow."""
import numpy as np


def logsumexp(x):
    top = np.max(x)
    return top + np.log(np.sum(np.exp(x - top)))


def logsumexp_by_hand(x):
    weights = np.exp(x - np.max(x))
    return weights / np.sum(weights)


def inputs(rng, shape):
    return (rng.normal(size=shape),)
