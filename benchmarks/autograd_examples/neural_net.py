"""The negative log posterior of a tanh multilayer perceptron classifier: parameters a list of
(W, b) pairs, log-softmax outputs through scipy.special.logsumexp, an L2 prior on the
parameters flattened with np.concatenate. The gradient is taken with respect to the list.

Modelled on HIPS autograd's examples/neural_net.py (own code, not copied)."""
import numpy as np
from scipy.special import logsumexp


def flatten_params(params):
    return np.concatenate([np.ravel(a) for layer in params for a in layer])


def predict(params, inputs):
    for W, b in params:
        outputs = np.dot(inputs, W) + b
        inputs = np.tanh(outputs)
    return outputs - logsumexp(outputs, axis=1, keepdims=True)


def l2_norm(params):
    flat = flatten_params(params)
    return np.dot(flat, flat)


def log_posterior(params, inputs, targets, l2_reg):
    log_prior = -l2_reg * l2_norm(params)
    log_lik = np.sum(predict(params, inputs) * targets)
    return log_prior + log_lik


def loss(params, inputs, targets):
    return -log_posterior(params, inputs, targets, 1.0)


def make_args(rs):
    """The arguments of `loss`, drawn from the RandomState `rs`."""
    sizes = [64, 50, 30, 10]
    params = [(0.1 * rs.randn(m, n), 0.1 * rs.randn(n)) for m, n in zip(sizes[:-1], sizes[1:])]
    X = rs.randn(128, sizes[0])
    T = np.eye(10)[rs.randint(0, 10, size=128)]
    return (params, X, T)


# the arguments of `loss` the gradient is taken with respect to
WRT = 0
