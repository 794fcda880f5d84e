"""A one-hidden-layer classifier with softmax cross-entropy, its parameters in a dict."""
import numpy as np


def mlp_loss(params, X, y):
    h = np.tanh(X @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(X.shape[0]), y])


def cross_entropy_grad(logits, y):
    """d mean(-log softmax(logits)[y]) / d logits: (softmax - one_hot(y)) / n."""
    probs = np.exp(logits - np.max(logits, axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    probs[np.arange(len(y)), y] -= 1
    probs /= len(y)
    return probs


def mlp_loss_by_hand(params, X, y):
    h = np.tanh(X @ params["W1"] + params["b1"])
    d_logits = cross_entropy_grad(h @ params["W2"] + params["b2"], y)
    d_pre = (d_logits @ params["W2"].T) * (1 - h * h)
    return {"W1": X.T @ d_pre, "b1": d_pre.sum(axis=0),
            "W2": h.T @ d_logits, "b2": d_logits.sum(axis=0)}


def inputs(rng, batch, sizes):
    n_in, n_hidden, n_out = sizes
    params = {"W1": rng.normal(size=(n_in, n_hidden)) / np.sqrt(n_in), "b1": rng.normal(size=n_hidden) * 0.1,
              "W2": rng.normal(size=(n_hidden, n_out)) / np.sqrt(n_hidden), "b2": rng.normal(size=n_out) * 0.1}
    return params, rng.normal(size=(batch, n_in)), rng.integers(0, n_out, size=batch)
