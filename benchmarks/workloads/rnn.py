"""A plain recurrent network unrolled by a Python loop over time steps."""
import numpy as np


def rnn_loss(W, U, xs):
    h = np.zeros((W.shape[0], xs.shape[2]))
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def rnn_loss_by_hand(W, U, xs):
    hs = [np.zeros((W.shape[0], xs.shape[2]))]
    for t in range(xs.shape[0]):
        hs.append(np.tanh(W @ hs[-1] + U @ xs[t]))
    dW, dU, dh = np.zeros_like(W), np.zeros_like(U), 2 * hs[-1]
    for t in reversed(range(xs.shape[0])):
        d_pre = dh * (1 - hs[t + 1] ** 2)
        dW += d_pre @ hs[t].T
        dU += d_pre @ xs[t].T
        dh = W.T @ d_pre
    return dW, dU


def inputs(rng, steps, batch, hidden, n_in=32):
    W = rng.normal(size=(hidden, hidden)) / np.sqrt(hidden)
    U = rng.normal(size=(hidden, n_in)) / np.sqrt(n_in)
    return W, U, rng.normal(size=(steps, n_in, batch))
