"""Methods, callable objects and container-argument functions for tests/test_methods.py."""
import numpy as np


class Model:
    def __init__(self, w):
        self.w = w

    def loss(self, x):
        return np.sum(np.tanh(self.w * x))

    def loss2(self, x, y=2.0):
        return np.sum(self.w * np.sin(x) * y ** 2)

    def out(self, x):
        return self.w * np.sin(x)

    def calls_method(self, x):
        return self.loss(x * 2.0) + np.sum(x)

    @classmethod
    def scaled(cls, x, k):
        return np.sum(x ** 2) * k


class Layer:
    """A model object with `__call__`, as with PyTorch modules."""

    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        return np.sum(np.tanh(self.W @ x) ** 2)


def mlp(params, X, Y):
    h = np.tanh(X @ params["W"] + params["b"])
    return np.mean((h @ params["v"] - Y) ** 2)


def nested(p, x):
    (a, b), c = p["layers"], p["scale"]
    return np.sum(np.sin(a * x) * b) * c


def tuple_params(p, x):
    return np.sum(p[0] * x ** 2) + p[1] * np.sum(x)


def cube(x):
    return x ** 3


def uses_cube(p, x):
    return np.sum(cube(p["w"] * x)) + np.sum(p["b"] ** 2)


def double(a):
    return a * 2.0
