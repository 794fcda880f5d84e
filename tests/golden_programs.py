"""Representative functions whose generated derivative source is pinned in tests/golden/."""
import numpy as np

import programs


def quadratic(x):
    return 2 * x @ x


def tanh_layer(W, b, x):
    h = np.tanh(W @ x + b)
    return np.sum(h * h)


def softmax_cross_entropy(logits, labels):
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    probs = np.exp(shifted) / np.sum(np.exp(shifted), axis=1, keepdims=True)
    n = logits.shape[0]
    return -np.mean(np.log(probs[np.arange(n), labels]))


def broadcast_bias(X, b):
    return np.sum((X + b) ** 2)


def indexing(x):
    return x[0] * x[-1] + np.sum(x[::2]) + np.sum(x[x > 0])


def einsum_bilinear(A, x, y):
    return np.einsum("ij,i,j->", A, x, y)



def reductions(X):
    return np.sum(X.max(axis=1)) + X.mean() + np.prod(X[0])


def if_elif(x):
    s = x.sum()
    if s > 1:
        y = np.sin(x)
    elif s > -1:
        y = x ** 3
    else:
        y = np.exp(x)
    return y.sum()


def while_with_break(x):
    y = x
    n = 0
    while True:
        y = np.sin(y) + y
        n += 1
        if n >= 4 or y.sum() > 10:
            break
    return y.sum()


def for_with_inplace_write(x):
    out = np.zeros_like(x)
    for k in range(x.shape[0]):
        out[k] = np.sin(x[k]) * k
    return np.sum(out ** 2)


def early_return(x):
    if x.sum() > 0:
        return np.sum(x * x)
    y = np.exp(x)
    return y.sum()


def call_into_helper(W1, W2, x):
    h = programs.dense(W1, 0.0, x)
    return np.sum(programs.dense(W2, 1.0, h))


mlp_with_dict = programs.mlp_loss

CASES = {
    "quadratic": (quadratic, 0),
    "tanh_layer": (tanh_layer, ("W", "b")),
    "softmax_cross_entropy": (softmax_cross_entropy, 0),
    "broadcast_bias": (broadcast_bias, (0, 1)),
    "indexing": (indexing, 0),
    "einsum_bilinear": (einsum_bilinear, (0, 1, 2)),
    "reductions": (reductions, 0),
    "if_elif": (if_elif, 0),
    "while_with_break": (while_with_break, 0),
    "for_with_inplace_write": (for_with_inplace_write, 0),
    "early_return": (early_return, 0),
    "call_into_helper": (call_into_helper, (0, 1)),
    "mlp_with_dict": (mlp_with_dict, 0),
}
