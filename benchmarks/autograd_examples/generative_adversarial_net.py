"""The objective of a generative adversarial network: a generator MLP maps noise to samples
through a sigmoid, a discriminator MLP (relu, batch normalisation) scores generated and real
data, and the objective is the difference of their mean log-sigmoid scores. The gradient is
taken with respect to both nets' (W, b) lists (wrt=(0, 1)).

Modelled on HIPS autograd's examples/generative_adversarial_net.py (own code, not copied).
The biases of the layers that feed a batch normalisation have a true gradient of zero."""
import numpy as np


def relu(x):
    return np.maximum(0, x)


def sigmoid(x):
    return 0.5 * (np.tanh(x) + 1.0)


def logsigmoid(x):
    return x - np.logaddexp(0, x)


def batch_normalize(activations):
    mbmean = np.mean(activations, axis=0, keepdims=True)
    return (activations - mbmean) / (np.std(activations, axis=0, keepdims=True) + 1)


def neural_net_predict(params, inputs):
    inpW, inpb = params[0]
    inputs = relu(np.dot(inputs, inpW) + inpb)
    for W, b in params[1:-1]:
        outputs = batch_normalize(np.dot(inputs, W) + b)
        inputs = relu(outputs)
    outW, outb = params[-1]
    return np.dot(inputs, outW) + outb


def generate_from_noise(gen_params, noise):
    samples = neural_net_predict(gen_params, noise)
    return sigmoid(samples)


def gan_objective(gen_params, dsc_params, real_data, noise):
    fake_data = generate_from_noise(gen_params, noise)
    logprobs_fake = logsigmoid(neural_net_predict(dsc_params, fake_data))
    logprobs_real = logsigmoid(neural_net_predict(dsc_params, real_data))
    return np.mean(logprobs_real) - np.mean(logprobs_fake)


loss = gan_objective


def make_args(rs):
    """The arguments of `loss`, drawn from the RandomState `rs`."""
    noise_dim, data_dim, batch = 8, 64, 32

    def init(sizes):
        return [(0.1 * rs.randn(m, n), 0.1 * rs.randn(n)) for m, n in zip(sizes[:-1], sizes[1:])]

    gen = init([noise_dim, 40, 40, data_dim])
    dsc = init([data_dim, 40, 20, 1])
    real = rs.rand(batch, data_dim)
    noise = rs.rand(batch, noise_dim)
    return (gen, dsc, real, noise)


# the arguments of `loss` the gradient is taken with respect to
WRT = (0, 1)
