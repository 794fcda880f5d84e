"""A class of methods named like array methods, for tests that reach it only through this
module (`layer_classes.Scaled`), never naming the class itself."""
from dataclasses import dataclass

import numpy as np


@dataclass
class Scaled:
    W: np.ndarray

    def dot(self, x):
        return self.W @ x


def make_scaled(W):
    return Scaled(W)
