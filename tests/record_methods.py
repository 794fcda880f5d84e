"""A record class with methods named like array methods, for tests/test_record_method_owners.py: the
test module does not name the class, so s2s_ad cannot see that `.sum` is the record's own."""
from dataclasses import dataclass

import numpy as np


@dataclass
class Params:
    w: np.ndarray
    b: np.ndarray

    def sum(self):
        return np.sum(self.w ** 2) + np.sum(self.b)


def make_params(w, b):
    return Params(np.asarray(w, dtype=float), np.asarray(b, dtype=float))


def scaled_norm(p, x):
    """Where the module names the class, `p.sum()` calls Params.sum (dispatched)."""
    return p.sum() * np.sum(x)


@dataclass
class Gamma:
    """Fields named like array attributes: a gamma distribution's `shape`, a `T`."""
    shape: np.ndarray
    T: np.ndarray


def make_gamma(shape, T):
    return Gamma(np.asarray(shape, dtype=float), np.asarray(T, dtype=float))
