"""The negative log posterior of a small LeNet-style convolutional network on 14x14 images:
two valid convolutions each followed by 2x2 max pooling, a tanh layer and a log-softmax layer,
every layer's weights sliced out of one flat parameter vector by a name-to-slice parser, plus
an L2 prior. The gradient is taken with respect to that flat vector.

Modelled on HIPS autograd's examples/convnet.py (own code, not copied). The convolution is
written as a loop of shifted slices and np.tensordot so that the same text runs on plain NumPy
(for s2s_ad) and on autograd.numpy (autograd's example calls scipy's convolve)."""
import numpy as np


class ParamParser(object):
    """Maps names to (slice, shape) in a flat vector."""

    def __init__(self):
        self.entries = {}
        self.size = 0

    def add(self, name, shape):
        begin = self.size
        self.size += int(np.prod(shape))
        self.entries[name] = (slice(begin, self.size), shape)

    def get(self, vect, name):
        where, shape = self.entries[name]
        return np.reshape(vect[where], shape)


def logsumexp(X, axis, keepdims=False):
    top = np.max(X)
    return top + np.log(np.sum(np.exp(X - top), axis=axis, keepdims=keepdims))


def conv_valid(inputs, kernels):
    # inputs [n, c_in, h, w], kernels [c_in, c_out, kh, kw] -> [n, c_out, h-kh+1, w-kw+1]
    kh, kw = kernels.shape[2], kernels.shape[3]
    out_h = inputs.shape[2] - kh + 1
    out_w = inputs.shape[3] - kw + 1
    total = 0.0
    for i in range(kh):
        for j in range(kw):
            window = inputs[:, :, i:i + out_h, j:j + out_w]
            total = total + np.tensordot(window, kernels[:, :, i, j], axes=([1], [0]))
    # tensordot put c_out last: [n, h, w, c_out]
    return np.transpose(total, (0, 3, 1, 2))


class ConvLayer(object):
    def __init__(self, kernel_shape, num_filters):
        self.kernel_shape = kernel_shape
        self.num_filters = num_filters

    def build(self, input_shape):
        self.parser = ParamParser()
        self.parser.add("kernels", (input_shape[0], self.num_filters) + self.kernel_shape)
        self.parser.add("biases", (1, self.num_filters, 1, 1))
        out = (self.num_filters,
               input_shape[1] - self.kernel_shape[0] + 1,
               input_shape[2] - self.kernel_shape[1] + 1)
        return self.parser.size, out

    def forward_pass(self, inputs, param_vector):
        kernels = self.parser.get(param_vector, "kernels")
        biases = self.parser.get(param_vector, "biases")
        return conv_valid(inputs, kernels) + biases


class MaxPoolLayer(object):
    def __init__(self, pool_shape):
        self.pool_shape = pool_shape

    def build(self, input_shape):
        out = list(input_shape)
        for i in [0, 1]:
            out[i + 1] = input_shape[i + 1] // self.pool_shape[i]
        return 0, tuple(out)

    def forward_pass(self, inputs, param_vector):
        new_shape = inputs.shape[:2]
        for i in [0, 1]:
            width = self.pool_shape[i]
            new_shape += (inputs.shape[i + 2] // width, width)
        blocks = inputs.reshape(new_shape)
        return np.max(np.max(blocks, axis=3), axis=4)


class FullLayer(object):
    def __init__(self, size):
        self.size = size

    def build(self, input_shape):
        n_in = int(np.prod(input_shape))
        self.parser = ParamParser()
        self.parser.add("weights", (n_in, self.size))
        self.parser.add("biases", (self.size,))
        return self.parser.size, (self.size,)

    def forward_pass(self, inputs, param_vector):
        weights = self.parser.get(param_vector, "weights")
        biases = self.parser.get(param_vector, "biases")
        if inputs.ndim > 2:
            inputs = inputs.reshape((inputs.shape[0], int(np.prod(inputs.shape[1:]))))
        return self.nonlinearity(np.dot(inputs, weights) + biases)


class TanhLayer(FullLayer):
    def nonlinearity(self, x):
        return np.tanh(x)


class SoftmaxLayer(FullLayer):
    def nonlinearity(self, x):
        return x - logsumexp(x, axis=1, keepdims=True)


INPUT_SHAPE = (1, 14, 14)
LAYERS = [ConvLayer((3, 3), 4), MaxPoolLayer((2, 2)), ConvLayer((3, 3), 6),
          MaxPoolLayer((2, 2)), TanhLayer(32), SoftmaxLayer(10)]
L2_REG = 0.1


def build_parser(layers, input_shape):
    """Builds each layer for the shape that reaches it; the parser maps each layer to its slice
    of the flat parameter vector."""
    parser = ParamParser()
    shape = input_shape
    for layer in layers:
        size, shape = layer.build(shape)
        parser.add(layer, (size,))
    return parser


PARSER = build_parser(LAYERS, INPUT_SHAPE)


def predictions(W_vect, inputs):
    units = inputs
    for layer in LAYERS:
        layer_weights = PARSER.get(W_vect, layer)
        units = layer.forward_pass(units, layer_weights)
    return units


def loss(W_vect, X, T):
    log_prior = -L2_REG * np.dot(W_vect, W_vect)
    log_lik = np.sum(predictions(W_vect, X) * T)
    return -log_prior - log_lik


def make_args(rs):
    """The arguments of `loss`, drawn from the RandomState `rs`."""
    n = 16
    W = 0.1 * rs.randn(PARSER.size)
    X = rs.rand(n, *INPUT_SHAPE)
    T = np.eye(10)[rs.randint(0, 10, size=n)]
    return (W, X, T)


# the arguments of `loss` the gradient is taken with respect to
WRT = 0
