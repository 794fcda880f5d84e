"""Helpers a test module calls as `module.act(...)` and rebinds (test_returned_kinds.py)."""
import numpy as np


def act(z):
    return np.tanh(z), z * 1.0


def pooled(z):
    return np.sum(np.tanh(z), axis=1, keepdims=True), z * 1.0


def tanh(z):
    return np.tanh(z)


def square(z):
    return z * z


def total(a, axis=0):
    return np.sum(a, axis=axis)
