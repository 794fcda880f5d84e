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

# Forward mode (jvp) and forward over reverse (hvp): a loop, a branch, a call and a layer
FORWARD_CASES = {name: CASES[name] for name in
                 ("while_with_break", "if_elif", "call_into_helper", "for_with_inplace_write",
                  "tanh_layer")}
HVP_CASES = {"tanh_layer": (tanh_layer, "W"), "while_with_break": (while_with_break, 0)}


def _rng():
    return np.random.default_rng(7)


def golden_arguments(name):
    """Arguments at which each golden program is differentiable (no ties, no branch edges)."""
    rng = _rng()
    normal = rng.standard_normal
    return {
        "quadratic": lambda: (normal(4),),
        "tanh_layer": lambda: (normal((3, 4)) * 0.5, normal(3), normal(4)),
        "softmax_cross_entropy": lambda: (normal((4, 3)), np.array([0, 2, 1, 2])),
        "broadcast_bias": lambda: (normal((3, 4)), normal(4)),
        "indexing": lambda: (np.array([1.5, -0.7, 0.9, -1.2, 0.4]),),
        "einsum_bilinear": lambda: (normal((3, 4)), normal(3), normal(4)),
        "reductions": lambda: (np.arange(12.0).reshape(3, 4) * 0.3 - 1.0 + 0.01 * normal((3, 4)),),
        "if_elif": lambda: (np.array([0.2, -0.1, 0.3]),),
        "while_with_break": lambda: (np.array([0.3, -0.2, 0.5]),),
        "for_with_inplace_write": lambda: (normal(5),),
        "early_return": lambda: (np.array([-0.5, 0.2, -0.4]),),
        "call_into_helper": lambda: (normal((4, 3)) * 0.5, normal((3, 2)) * 0.5, normal((2, 4))),
        "mlp_with_dict": lambda: ({"W1": normal((4, 5)) * 0.5, "b1": normal(5),
                                   "W2": normal((5, 2)) * 0.5, "b2": normal(2)},
                                  normal((3, 4)), normal((3, 2))),
    }[name]()
