"""Whole programs for the reverse-mode tests: helpers, models, containers, recursion."""
import math
from dataclasses import dataclass

import numpy as np

import cf_programs
import s2s_ad as ad

LEARNING_RATE = 0.1
square = lambda v: v * v      # noqa: E731  (a lambda bound to a name is a supported callee)


def dense(W, b, x):
    return np.tanh(x @ W + b)


def mlp_loss(params, x, y):
    h = dense(params["W1"], params["b1"], x)
    logits = h @ params["W2"] + params["b2"]
    return np.mean((logits - y) ** 2)


def step(h, x, W, U):
    return np.tanh(W @ h + U @ x)


def rnn_loss(xs, W, U):
    h = np.zeros(W.shape[0])
    hs = []
    for t in range(xs.shape[0]):
        h = step(h, xs[t], W, U)
        hs.append(h)
    return np.sum(np.stack(hs) ** 2) + np.sum(sum(hs))


class Linear:
    def __init__(self, W, b):
        self.W = W
        self.b = b

    def __call__(self, x):
        return self.W @ x + self.b


GLOBAL_LAYER = Linear(np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.4]]), np.array([0.1, -0.3]))


def global_model_loss(x):
    out = GLOBAL_LAYER(x)              # a module-level model object, as in PyTorch tutorials
    out += 1.0                         # Linear returns a new array: updating it is fine
    return np.sum(np.tanh(out) * x[:2])


class MLP:
    def __init__(self, sizes, rng):
        self.layers = [Linear(rng.normal(size=(m, n)), rng.normal(size=m))
                       for n, m in zip(sizes[:-1], sizes[1:])]

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = np.tanh(layer(x))
        return self.layers[-1](x)


def class_model_loss(x, model):
    return np.sum(model.forward(x) ** 2)


@dataclass
class Affine:
    scale: np.ndarray
    shift: float

    def apply(self, x):
        return x * self.scale + self.shift


def dataclass_loss(x, affine):
    return np.sum(np.sin(affine.apply(x)))


def rpow(x, n):
    if n == 0:
        return x * 0.0 + 1.0
    return x * rpow(x, n - 1)


def tree_sum(x, depth):
    if depth == 0:
        return np.sum(np.sin(x))
    return tree_sum(x * 0.9, depth - 1) + tree_sum(x * 1.1, depth - 1)


def with_aux(x):
    loss = np.sum(x ** 2)
    return loss, {"mean": x.mean()}


def math_on_floats(a, b):
    return math.sin(a) * math.exp(b) + math.sqrt(a * a + b * b) + math.pi * a


def module_constants(x):
    return np.sum(np.cos(np.pi * x)) * LEARNING_RATE


def uses_no_grad(x):
    with ad.no_grad():
        scale = np.sum(x * x)
    return np.sum(x * scale)


def non_differentiable_calls(x):
    n = len(x)
    i = np.argmax(x)
    noise = np.random.default_rng(0).normal(size=x.shape) * 0.0
    m = x.shape[0] // 2 + n % 3
    if n > 0:
        print("", end="")
    return np.sum(x[:m] ** 2) + x[i] + np.sum(noise)


def keyword_callee(x, scale=2.0, *, power=3):
    return np.sum(x ** power) * scale


def calls_with_defaults(x):
    return keyword_callee(x) + keyword_callee(x, power=2, scale=0.5)


def calls_other_module(x):
    return cf_programs.if_else(x) + square(x).sum()


def make_scaled(k):
    def scaled(v):
        return np.sum(np.sin(v) * k)
    return scaled


scaled_by_three = make_scaled(3.0)


def calls_closure(x):
    return scaled_by_three(x) * 2


def pair(x):
    return x * 2, np.sin(x)


def unpacks_pair(x):
    a, b = pair(x)
    c, d = b, a
    return np.sum(a * b + c * d)


def tuple_param(ws, x):
    w1, w2 = ws
    return np.sum(np.tanh(w1 * x) * w2)


def nested_params(p, x):
    inner = p["layer"]
    return np.sum(inner[0] * x + inner[1]) * p["scale"]


def appends_to_argument(xs, x):
    xs.append(x)
    return np.sum(x)


def writes_global(x):
    global LEARNING_RATE
    LEARNING_RATE = 0.2
    return np.sum(x)


def calls_bad_callee(x):
    return writes_global(x) * 2


def pick(x, i):
    return x[i] * 2.0


def pair_product(a, b, scale=1.0):
    return np.sum(a * b) * scale


def forwards_star_args(x, w):
    args = (x, w)                       # bound once: its length is known
    return pair_product(*args) + pair_product(*(w, x * x), scale=2.0)


def with_dead_code(x):
    unused = np.cos(x) * 3.0          # never read: not in the generated code
    also_unused = unused + 1.0
    print("the sum is", np.sum(x))     # has an effect: kept
    return np.sum(x * x)


def loop_over_dict_keys(p, x):
    s = 0.0
    for k in p:                          # keys: an index into p, not a value to differentiate
        s = s + np.sum(p[k] ** 2 * x)
    return s


def nested_calling_nested(x, w):
    def scaled_square(v):
        return v * v * w

    def quartic(v):
        return scaled_square(v) * scaled_square(v) + v     # calls the other nested function

    return np.sum(quartic(x))


def nested_functions(x, w):
    def layer(v):
        return np.tanh(v * w)          # captures w: its gradient flows through the capture
    square_of = lambda u: u * u        # noqa: E731
    h = layer(x)
    return np.sum(square_of(layer(h)))


def cube(x):
    return x ** 3


def squared(x):
    return x ** 2


def calls_squared(x):
    return np.sum(squared(x))
