"""Programs for the Dask tests: NumPy code whose index kinds Dask can also run."""
import numpy as np


def least_squares(w, X, y):
    r = X @ w - y
    return np.sum(r * r) / 2


def layer(W, b, x):
    return np.tanh(W @ x + b)


def repeated_index(x):
    return np.sum(x[np.array([0, 2, 2, 5, 0])] ** 2)


def masked_mean(x):
    return np.mean(x[x > 0] ** 3)


def masked_rows(X):
    return np.sum(np.tanh(X[X[:, 0] > 0]))


def take_columns(X):
    return np.sum(np.take(X, [1, 1, 2], axis=1) * X[:, :3])


def branch_on_loss(w, X, y):
    loss = least_squares(w, X, y)
    if loss > 1.0:
        return np.log(loss)
    return loss


def doubled(x):
    return 2 * x        # tests/test_dask.py registers a wrong rule for it, on purpose


def uses_doubled(x):
    return np.sum(doubled(x) * x)


def trace_and_square(A):
    return np.einsum("ii", A) ** 2 + np.sum(np.einsum("ij,jk->ik", A, A))


def diagonals(A):
    return np.trace(A) ** 2 + np.sum(np.diagonal(A, 1) ** 3) + np.sum(np.diag(A, -1))


def new_axes(x):
    return np.sum(x[None] * x[:, None, :])


def selected(x, y):
    return np.sum(np.select([x > 0.5, x < -0.5], [x ** 2, y * x], 0.25 * y))


def spread_and_norm(x):
    return np.std(x) + np.linalg.norm(x)
