"""A small model for examples/cli_demo.sh: a one-layer network with a squared-error loss."""
import numpy as np

NOISE_FLOOR = 1e-3


def loss(W, b, x, y):
    """Mean squared error of a tanh layer, plus a little weight decay."""
    error = np.tanh(x @ W + b) - y
    return np.mean(error ** 2) + NOISE_FLOOR * np.sum(W * W)
