"""Benchmark workloads: each has a function, its hand-written gradient, and inputs."""
import numpy as np


def mlp_loss(params, X, y):
    h = np.tanh(X @ params["W1"] + params["b1"])
    logits = h @ params["W2"] + params["b2"]
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(log_probs[np.arange(X.shape[0]), y])


def mlp_loss_by_hand(params, X, y):
    n = X.shape[0]
    pre = X @ params["W1"] + params["b1"]
    h = np.tanh(pre)
    logits = h @ params["W2"] + params["b2"]
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    probs = np.exp(shifted)
    probs /= probs.sum(axis=1, keepdims=True)
    dlogits = probs
    dlogits[np.arange(n), y] -= 1
    dlogits /= n
    dh = dlogits @ params["W2"].T
    dpre = dh * (1 - h * h)
    return {"W1": X.T @ dpre, "b1": dpre.sum(axis=0), "W2": h.T @ dlogits, "b2": dlogits.sum(axis=0)}


def rnn_loss(xs, W, U):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def rnn_loss_by_hand(xs, W, U):
    h = np.zeros(W.shape[0])
    hs = [h]
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
        hs.append(h)
    dW, dU, dh = np.zeros_like(W), np.zeros_like(U), 2 * hs[-1]
    for t in reversed(range(xs.shape[0])):
        dpre = dh * (1 - hs[t + 1] ** 2)
        dW += np.outer(dpre, hs[t])
        dU += np.outer(dpre, xs[t])
        dh = W.T @ dpre
    return dW, dU


def newton_sqrt(a):
    x = a
    for _ in range(30):
        x = 0.5 * (x + a / x)
    return x


def newton_sqrt_by_hand(a):
    """The same loop, differentiated by hand: save every iterate, then walk back."""
    xs = [a]
    x = a
    for _ in range(30):
        x = 0.5 * (x + a / x)
        xs.append(x)
    dx, da = 1.0, 0.0
    for x in reversed(xs[:-1]):
        da += 0.5 * dx / x
        dx = 0.5 * dx * (1 - a / (x * x))
    return da + dx


def make_inputs(rng, xp=np):
    params = {"W1": rng.normal(size=(64, 128)) * 0.1, "b1": np.zeros(128),
              "W2": rng.normal(size=(128, 10)) * 0.1, "b2": np.zeros(10)}
    X, y = rng.normal(size=(512, 64)), rng.integers(0, 10, size=512)
    xs, W, U = rng.normal(size=(50, 32)), rng.normal(size=(64, 64)) * 0.1, rng.normal(size=(64, 32)) * 0.1
    as_xp = (lambda a: xp.asarray(a)) if xp is not np else (lambda a: a)
    return {
        "mlp": (mlp_loss, mlp_loss_by_hand, ({k: as_xp(v) for k, v in params.items()}, as_xp(X), as_xp(y)), 0),
        "rnn_50_steps": (rnn_loss, rnn_loss_by_hand, (as_xp(xs), as_xp(W), as_xp(U)), (1, 2)),
        "newton_scalar_loop": (newton_sqrt, newton_sqrt_by_hand, (2.0,), 0),
    }
