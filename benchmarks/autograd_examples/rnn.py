"""The negative mean log likelihood of one-hot character sequences under a recurrent network:
a hidden state updated in a Python loop over the time steps (inputs concatenated with the state
and a column of ones), log-softmax outputs at every step, parameters a dict of arrays. The
gradient is taken with respect to the dict.

Modelled on HIPS autograd's examples/rnn.py (own code, not copied)."""
import numpy as np
from scipy.special import logsumexp


def concat_and_multiply(weights, *args):
    stacked = np.hstack(args + (np.ones((args[0].shape[0], 1)),))
    return np.dot(stacked, weights)


def rnn_predict(params, inputs):
    def update_rnn(x, hiddens):
        return np.tanh(concat_and_multiply(params["change"], x, hiddens))

    def hiddens_to_output_probs(hiddens):
        output = concat_and_multiply(params["predict"], hiddens)
        return output - logsumexp(output, axis=1, keepdims=True)

    num_sequences = inputs.shape[1]
    hiddens = np.repeat(params["init hiddens"], num_sequences, axis=0)
    output = [hiddens_to_output_probs(hiddens)]
    for x in inputs:
        hiddens = update_rnn(x, hiddens)
        output.append(hiddens_to_output_probs(hiddens))
    return output


def rnn_log_likelihood(params, inputs, targets):
    logprobs = rnn_predict(params, inputs)
    loglik = 0.0
    num_time_steps, num_examples, _ = inputs.shape
    for t in range(num_time_steps):
        loglik += np.sum(logprobs[t] * targets[t])
    return loglik / (num_time_steps * num_examples)


def loss(params, inputs, targets):
    return -rnn_log_likelihood(params, inputs, targets)


def make_args(rs):
    """The arguments of `loss`, drawn from the RandomState `rs`."""
    n_chars, state, steps, n_seq = 32, 24, 20, 8
    params = {"init hiddens": 0.1 * rs.randn(1, state),
              "change": 0.1 * rs.randn(n_chars + state + 1, state),
              "predict": 0.1 * rs.randn(state + 1, n_chars)}
    idx = rs.randint(0, n_chars, size=(steps, n_seq))
    seqs = np.eye(n_chars)[idx]
    return (params, seqs, seqs)


# the arguments of `loss` the gradient is taken with respect to
WRT = 0
