"""The negative evidence lower bound of a variational autoencoder on +-1 images: encoder and
decoder MLPs with batch normalisation and relu, a reparameterised Gaussian sample of the
latents from noise passed in, Gaussian log densities through scipy.stats.norm.logpdf and a
Bernoulli likelihood through np.logaddexp. The gradient is taken with respect to both nets'
(W, b) lists at once.

Modelled on HIPS autograd's examples/variational_autoencoder.py (own code, not copied).
The biases of the layers that feed a batch normalisation have a true gradient of zero (the
normalisation subtracts them again): both tools return roundoff there."""
import numpy as np
from scipy.stats import norm


def diag_gaussian_log_density(x, mu, log_std):
    return np.sum(norm.logpdf(x, mu, np.exp(log_std)), axis=-1)


def unpack_gaussian_params(params):
    D = np.shape(params)[-1] // 2
    return params[:, :D], params[:, D:]


def sample_diag_gaussian(mean, log_std, eps):
    return eps * np.exp(log_std) + mean


def bernoulli_log_density(targets, unnormalized_logprobs):
    label_probabilities = -np.logaddexp(0, -unnormalized_logprobs * targets)
    return np.sum(label_probabilities, axis=-1)


def relu(x):
    return np.maximum(0, x)


def batch_normalize(activations):
    mbmean = np.mean(activations, axis=0, keepdims=True)
    return (activations - mbmean) / (np.std(activations, axis=0, keepdims=True) + 1)


def neural_net_predict(params, inputs):
    for W, b in params[:-1]:
        outputs = batch_normalize(np.dot(inputs, W) + b)
        inputs = relu(outputs)
    outW, outb = params[-1]
    return np.dot(inputs, outW) + outb


def nn_predict_gaussian(params, inputs):
    return unpack_gaussian_params(neural_net_predict(params, inputs))


def p_images_given_latents(gen_params, images, latents):
    preds = neural_net_predict(gen_params, latents)
    return bernoulli_log_density(images, preds)


def vae_lower_bound(gen_params, rec_params, data, eps):
    q_means, q_log_stds = nn_predict_gaussian(rec_params, data)
    latents = sample_diag_gaussian(q_means, q_log_stds, eps)
    q_latents = diag_gaussian_log_density(latents, q_means, q_log_stds)
    p_latents = diag_gaussian_log_density(latents, 0, 0)
    likelihood = p_images_given_latents(gen_params, data, latents)
    return np.mean(p_latents + likelihood - q_latents)


def loss(combined_params, data, eps):
    gen_params, rec_params = combined_params
    return -vae_lower_bound(gen_params, rec_params, data, eps) / data.shape[1]


def make_args(rs):
    """The arguments of `loss`, drawn from the RandomState `rs`."""
    latent, data_dim, batch = 5, 64, 32

    def init(sizes):
        return [(0.1 * rs.randn(m, n), 0.1 * rs.randn(n)) for m, n in zip(sizes[:-1], sizes[1:])]

    gen = init([latent, 40, 30, data_dim])
    rec = init([data_dim, 30, 40, 2 * latent])
    data = np.where(rs.rand(batch, data_dim) > 0.5, 1.0, -1.0)
    eps = rs.randn(batch, latent)
    return ((gen, rec), data, eps)


# the arguments of `loss` the gradient is taken with respect to
WRT = 0
