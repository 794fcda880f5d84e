"""Train a two-layer MLP with plain SGD, the loop of the classic tutorials.

The parameters live in a dict; `value_and_grad` returns the loss and a dict of gradients with
the same keys. Nothing accumulates between calls (there is no `.grad` to zero): each step gets
fresh gradients, so the tutorials' "zero the gradient" step has nothing to do here.

    python examples/train_mlp.py
"""
import numpy as np

import s2s_ad as ad

TARGET_LOSS = 0.15


def make_data(rng, n=200):
    """Two interleaved half-moons: a small problem a linear model cannot solve."""
    t = rng.uniform(0, np.pi, size=n)
    upper = np.stack([np.cos(t), np.sin(t)], axis=1)
    lower = np.stack([1 - np.cos(t), 0.5 - np.sin(t)], axis=1)
    X = np.concatenate([upper, lower]) + rng.normal(scale=0.1, size=(2 * n, 2))
    y = np.concatenate([np.zeros(n, dtype=int), np.ones(n, dtype=int)])
    return X, y


def init_params(rng, hidden=16):
    return {
        "W1": rng.normal(scale=1.0, size=(2, hidden)),
        "b1": np.zeros(hidden),
        "W2": rng.normal(scale=1.0 / np.sqrt(hidden), size=(hidden, 2)),
        "b2": np.zeros(2),
    }


def forward(params, X):
    h = np.tanh(X @ params["W1"] + params["b1"])
    return h @ params["W2"] + params["b2"]


def loss_fn(params, X, y):
    logits = forward(params, X)
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(X.shape[0]), y])


def accuracy(params, X, y):
    return float(np.mean(np.argmax(forward(params, X), axis=1) == y))


def train(steps=300, learning_rate=0.5, seed=0, verbose=True):
    rng = np.random.default_rng(seed)
    X, y = make_data(rng)
    params = init_params(rng)
    step = ad.value_and_grad(loss_fn)
    loss = None
    for i in range(steps):
        loss, grads = step(params, X, y)
        params = {k: params[k] - learning_rate * grads[k] for k in params}
        if verbose and (i % 50 == 0 or i == steps - 1):
            print(f"step {i:4d}  loss {loss:.4f}  accuracy {accuracy(params, X, y):.3f}")
    return float(loss), accuracy(params, X, y)


def main():
    loss, acc = train()
    print(f"final loss {loss:.4f} (target < {TARGET_LOSS}), accuracy {acc:.3f}")
    assert loss < TARGET_LOSS, "training did not converge"


if __name__ == "__main__":
    main()
