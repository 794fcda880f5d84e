"""Every derivative rule in templates/, checked against central finite differences in float64.

Each table row is `Row(function, argument makers, wrt)`. The functions are defined at module
level because s2s_ad reads their source. Arguments are random, seeded per row, and drawn away
from kinks, ties and zeros where the rule has one. Every row is differentiated with
`s2s_ad.vjp` and a random seed of the output's shape, so a rule that sends the adjoint to the
wrong element, forgets to undo broadcasting, or transposes the wrong way cannot pass by luck.
"""
import importlib
import math
import types
import warnings
import zlib

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad, numerical_vjp
from s2s_ad import rules, runtime
from s2s_ad.errors import TransformError


# ---------------------------------------------------------------------------------------------
# argument makers
# ---------------------------------------------------------------------------------------------
class Arg:
    """A random differentiable argument of `shape`; `shape=()` gives a Python float."""

    def __init__(self, kind, shape=()):
        self.kind = kind
        self.shape = tuple(shape)

    def __call__(self, rng):
        n = int(np.prod(self.shape))
        draw = DRAWS[self.kind]
        values = np.asarray(draw(rng, n), dtype=np.float64).reshape(self.shape)
        return float(values) if self.shape == () else values

    def __repr__(self):
        return f"{self.kind}{list(self.shape)}"


class Const:
    """A constant (non-differentiable) argument: passed as is, never perturbed."""

    def __init__(self, value, label=None):
        self.value = value
        self.label = label

    def __call__(self, rng):
        return self.value

    def __repr__(self):
        return self.label or repr(self.value).replace(" ", "")


def _sign(rng, n):
    return rng.choice([-1.0, 1.0], size=n)


DRAWS = {
    "normal": lambda rng, n: rng.standard_normal(n),
    "pos": lambda rng, n: rng.uniform(0.5, 2.0, n),                   # log, sqrt, x ** y
    "neg": lambda rng, n: -rng.uniform(0.5, 2.0, n),
    "away": lambda rng, n: _sign(rng, n) * rng.uniform(0.3, 1.5, n),   # |x|, 1/x, prod
    "unit": lambda rng, n: rng.uniform(-0.8, 0.8, n),                  # arcsin, arccos, tan
    # |values| all different and >= 0.1 apart: max/min/inf-norms have no ties, no kinks at 0
    "distinct": lambda rng, n: _sign(rng, n) * (rng.permutation(n) + 0.5) * 0.2
    + rng.uniform(-0.02, 0.02, n),
    # two interleaved grids, so maximum(x, y) never ties: |x - y| >= 0.4
    "grid_a": lambda rng, n: rng.integers(-3, 3, n) + 0.25 + rng.uniform(-0.05, 0.05, n),
    "grid_b": lambda rng, n: rng.integers(-3, 3, n) + 0.75 + rng.uniform(-0.05, 0.05, n),
    # x % y with y in [1.9, 2]: x = 2 (q + f), f in [0.3, 0.7], so floor(x / y) = q always
    "mod_x": lambda rng, n: 2 * (rng.integers(-3, 4, n) + rng.uniform(0.3, 0.7, n)),
    "mod_y": lambda rng, n: rng.uniform(1.9, 2.0, n),
    # clip: x on a grid, bounds at -0.5 / 0.5 (+-0.1): x stays >= 0.15 from either bound
    "clip_x": lambda rng, n: rng.integers(-2, 3, n) * 0.5 + 0.25,
    "clip_lo": lambda rng, n: -0.5 + rng.uniform(-0.1, 0.1, n),
    "clip_hi": lambda rng, n: 0.5 + rng.uniform(-0.1, 0.1, n),
    # away from zero except for exact zeros at flat positions 1, 5 and 6: in a (3, 4) array,
    # row 0 holds one zero, row 1 two, row 2 none (the three cases of a product's adjoint)
    "zeros": lambda rng, n: np.where(np.isin(np.arange(n), [1, 5, 6]), 0.0,
                                     _sign(rng, n) * rng.uniform(0.5, 1.5, n)),
}


def normal(*shape):
    return Arg("normal", shape)


class Row:
    """One table row: `fn(*args)` differentiated with respect to every `Arg` argument."""

    def __init__(self, fn, *args, rtol=1e-6, atol=1e-7, marks=()):
        self.fn = fn
        self.args = args
        self.wrt = tuple(i for i, a in enumerate(args) if isinstance(a, Arg))
        self.rtol = rtol
        self.atol = atol
        self.marks = marks

    @property
    def id(self):
        return f"{self.fn.__name__}({', '.join(map(repr, self.args))})"

    def param(self):
        return pytest.param(self, id=self.id, marks=self.marks)


def _wrt(wrt):
    """A single index for one argument (a 1-tuple gives a 1-tuple back)."""
    return wrt[0] if len(wrt) == 1 else wrt


def check_row(row):
    """vjp of `row` with a random seed against central differences, for every wrt argument."""
    rng = np.random.default_rng(zlib.crc32(row.id.encode()))
    args = [make(rng) for make in row.args]
    expected_value = row.fn(*args)
    seed = rng.standard_normal(np.shape(expected_value))
    seed = float(seed) if np.ndim(expected_value) == 0 else seed
    with np.errstate(divide="raise", invalid="raise", over="raise"):
        value, grads = ad.vjp(row.fn, wrt=_wrt(row.wrt))(*args, seed=seed)
    grads = grads if len(row.wrt) > 1 else (grads,)
    assert_close(value, expected_value, rtol=1e-12, atol=0)
    for k, g in zip(row.wrt, grads):
        assert np.shape(g) == np.shape(args[k]), f"gradient of argument {k} has the wrong shape"
        expected = numerical_vjp(row.fn, args, k, seed)
        assert_close(g, expected, rtol=row.rtol, atol=row.atol)


def table(*rows):
    return [row.param() for row in rows]


# ---------------------------------------------------------------------------------------------
# binary operators and their NumPy twins, on every broadcasting pattern
# ---------------------------------------------------------------------------------------------
def add(x, y): return x + y
def sub(x, y): return x - y
def mul(x, y): return x * y
def div(x, y): return x / y
def power(x, y): return x ** y
def mod(x, y): return x % y
def np_add(x, y): return np.add(x, y)
def np_subtract(x, y): return np.subtract(x, y)
def np_multiply(x, y): return np.multiply(x, y)
def np_divide(x, y): return np.divide(x, y)
def np_power(x, y): return np.power(x, y)
def np_float_power(x, y): return np.float_power(x, y)
def np_mod(x, y): return np.mod(x, y)
def np_maximum(x, y): return np.maximum(x, y)
def np_minimum(x, y): return np.minimum(x, y)
def np_fmax(x, y): return np.fmax(x, y)
def np_fmin(x, y): return np.fmin(x, y)
def np_logaddexp(x, y): return np.logaddexp(x, y)
def np_arctan2(x, y): return np.arctan2(x, y)
def np_hypot(x, y): return np.hypot(x, y)
def np_where(x, y): return np.where(x > 0, x, y)


BINARY = [  # function, how x is drawn, how y is drawn
    (add, "normal", "normal"), (sub, "normal", "normal"), (mul, "normal", "normal"),
    (div, "normal", "away"), (power, "pos", "normal"), (mod, "mod_x", "mod_y"),
    (np_add, "normal", "normal"), (np_subtract, "normal", "normal"),
    (np_multiply, "normal", "normal"), (np_divide, "normal", "away"),
    (np_power, "pos", "normal"), (np_float_power, "pos", "normal"), (np_mod, "mod_x", "mod_y"),
    (np_maximum, "grid_a", "grid_b"), (np_minimum, "grid_a", "grid_b"),
    (np_fmax, "grid_b", "grid_a"), (np_fmin, "grid_b", "grid_a"),
    (np_logaddexp, "normal", "normal"), (np_arctan2, "away", "away"),
    (np_hypot, "away", "away"), (np_where, "away", "normal"),
]
BROADCAST_SHAPES = [
    ((3, 4), (3, 4)),          # no broadcasting
    ((3, 1), (1, 4)),          # both operands stretched
    ((), (4,)),                # Python float and vector
    ((4,), ()),
    ((5, 4), (4,)),            # bias add: a leading axis added
    ((2, 1, 3), (4, 1)),       # added and stretched axes together
]


@pytest.mark.parametrize("row", table(*[
    Row(fn, Arg(kx, sx), Arg(ky, sy)) for fn, kx, ky in BINARY for sx, sy in BROADCAST_SHAPES]))
def test_binary(row):
    check_row(row)


def neg(x): return -x
def pos(x): return +x
def np_negative(x): return np.negative(x)
def np_positive(x): return np.positive(x)
def square_self(x): return x * x
def divide_self(x): return (x + 3.0) / x
def scale(x): return 2.0 * x - x / 3.0 + 1.0
def reciprocal_op(x): return 1.0 / x
def rsub(x): return 1.0 - x
def squared(x): return x ** 2
def squared_float(x): return x ** 2.0
def cubed(x): return x ** 3
def root(x): return x ** 0.5
def inverse(x): return x ** -1
def exponent_of_constant(x): return 2.0 ** x
def np_power_constant(x): return np.power(x, 3)
def exponent_variable(x, p): return x ** p
def mod_constant(x): return x % 1.5
def rmod(y): return 7.0 % y
def bias_add(X, W, b): return X @ W + b
def normalize_rows(X): return X / X.sum(axis=1, keepdims=True)
def center_columns(X): return X - X.mean(axis=0)
def scale_by_max(X): return X / np.max(X, axis=-1, keepdims=True)


@pytest.mark.parametrize("row", table(
    Row(neg, normal(3, 4)), Row(pos, normal(3, 4)), Row(neg, normal()),
    Row(np_negative, normal(3, 4)), Row(np_positive, normal(3, 4)),
    Row(square_self, normal(5)), Row(divide_self, Arg("away", (5,))), Row(scale, normal(3, 4)),
    Row(reciprocal_op, Arg("away", (5,))), Row(rsub, normal(5)),
    Row(squared, normal(5)), Row(squared, Arg("neg", (5,))), Row(squared, normal()),
    Row(squared_float, Arg("neg", (5,))), Row(cubed, normal(5)),
    Row(root, Arg("pos", (5,))), Row(inverse, Arg("away", (5,))),
    Row(exponent_of_constant, normal(5)), Row(np_power_constant, Arg("neg", (5,))),
    Row(exponent_variable, Arg("neg", (5,)), Const(4)),
    Row(exponent_variable, Arg("pos", (5,)), Const(np.array([0.5, 1.5, 2.0, -1.0, 3.0]), "p")),
    Row(mod_constant, Arg("mod_x", (6,))), Row(rmod, Arg("mod_y", (6,))),
    Row(bias_add, normal(5, 3), normal(3, 4), normal(4)),
    Row(normalize_rows, Arg("pos", (3, 4))), Row(center_columns, normal(3, 4)),
    Row(scale_by_max, Arg("pos", (3, 4)))))
def test_operators(row):
    check_row(row)


# ---------------------------------------------------------------------------------------------
# elementwise functions
# ---------------------------------------------------------------------------------------------
def exp(x): return np.exp(x)
def expm1(x): return np.expm1(x)
def exp2(x): return np.exp2(x)
def log(x): return np.log(x)
def log2(x): return np.log2(x)
def log10(x): return np.log10(x)
def log1p(x): return np.log1p(x)
def sin(x): return np.sin(x)
def cos(x): return np.cos(x)
def tan(x): return np.tan(x)
def arcsin(x): return np.arcsin(x)
def arccos(x): return np.arccos(x)
def arctan(x): return np.arctan(x)
def sinh(x): return np.sinh(x)
def cosh(x): return np.cosh(x)
def tanh(x): return np.tanh(x)
def sqrt(x): return np.sqrt(x)
def cbrt(x): return np.cbrt(x)
def square(x): return np.square(x)
def reciprocal(x): return np.reciprocal(x)
def np_abs(x): return np.abs(x)
def absolute(x): return np.absolute(x)
def fabs(x): return np.fabs(x)
def builtin_abs(x): return abs(x)
def sign_times(x): return np.sign(x) * x ** 2
def fractional(x): return x - np.floor(x) + np.ceil(x) * x
def real_part(x): return np.real(x) * x.real
def conjugate(x): return np.conj(x) * np.conjugate(x) + x.conjugate() * x
def imaginary_and_angle(x): return np.sin(x) * np.imag(x) + x.imag + np.angle(x) * x
def with_a_zero_imaginary_part(x): return x * x + np.imag(x) + x.imag * x
def conj_method(x): return x.conj() * x          # an array method: floats have none


UNARY = [
    (exp, "normal"), (expm1, "normal"), (exp2, "normal"), (log, "pos"), (log2, "pos"),
    (log10, "pos"), (log1p, "pos"), (sin, "normal"), (cos, "normal"), (tan, "unit"),
    (arcsin, "unit"), (arccos, "unit"), (arctan, "normal"), (sinh, "normal"), (cosh, "normal"),
    (tanh, "normal"), (sqrt, "pos"), (cbrt, "away"), (square, "normal"), (reciprocal, "away"),
    (np_abs, "away"), (absolute, "away"), (fabs, "away"), (builtin_abs, "away"),
    (sign_times, "away"), (fractional, "grid_a"), (real_part, "normal"), (conjugate, "normal"),
    (with_a_zero_imaginary_part, "normal"), (imaginary_and_angle, "away"),
]


@pytest.mark.parametrize("row", table(*[
    Row(fn, Arg(kind, shape)) for fn, kind in UNARY for shape in [(3, 4), ()]]))
def test_unary(row):
    check_row(row)


def clip(x): return np.clip(x, -0.5, 0.5)
def clip_keywords(x): return np.clip(x, a_min=-0.5, a_max=0.5)
def clip_no_lower(x): return np.clip(x, None, 0.5)
def clip_no_upper(x): return np.clip(x, -0.5, None)
def clip_min_max(x): return np.clip(x, min=-0.5, max=0.5)
def clip_method(x): return x.clip(-0.5, 0.5)
def clip_arrays(x, lo, hi): return np.clip(x, lo, hi)
def where_constant(x): return np.where(x > 0, x, 0.0)
def where_condition(c, x, y): return np.where(c, x, y)
def where_indices(x): return x[np.where(x > 0)] * 2.0
def relu(x): return np.maximum(x, 0.0)
def maximum_self(x): return np.maximum(x, x)


@pytest.mark.parametrize("row", table(
    Row(clip, Arg("clip_x", (3, 4))), Row(clip_keywords, Arg("clip_x", (3, 4))),
    Row(clip_no_lower, Arg("clip_x", (3, 4))), Row(clip_no_upper, Arg("clip_x", (3, 4))),
    Row(clip_min_max, Arg("clip_x", (3, 4))), Row(clip_method, Arg("clip_x", (3, 4))),
    Row(clip_arrays, Arg("clip_x", (3, 4)), Arg("clip_lo", (3, 4)), Arg("clip_hi", (3, 4))),
    Row(clip_arrays, Arg("clip_x", (3, 4)), Arg("clip_lo", (4,)), Arg("clip_hi", ())),
    Row(where_constant, Arg("away", (3, 4))), Row(conj_method, Arg("normal", (3, 4))),

    Row(where_condition, Const(np.array([[True], [False], [True]]), "c[3,1]"),
        normal(3, 4), normal(4)),
    Row(where_indices, Arg("away", (3, 4))), Row(relu, Arg("away", (3, 4))),
    Row(maximum_self, normal(5)),
))
def test_selection(row):
    check_row(row)


def math_exp(x): return math.exp(x)
def math_expm1(x): return math.expm1(x)
def math_log(x): return math.log(x)
def math_log_base(x, b): return math.log(x, b)
def math_log2(x): return math.log2(x)
def math_log10(x): return math.log10(x)
def math_log1p(x): return math.log1p(x)
def math_sin(x): return math.sin(x)
def math_cos(x): return math.cos(x)
def math_tan(x): return math.tan(x)
def math_asin(x): return math.asin(x)
def math_acos(x): return math.acos(x)
def math_atan(x): return math.atan(x)
def math_sinh(x): return math.sinh(x)
def math_cosh(x): return math.cosh(x)
def math_tanh(x): return math.tanh(x)
def math_sqrt(x): return math.sqrt(x)
def math_fabs(x): return math.fabs(x)
def math_pow(x, y): return math.pow(x, y)
def builtin_pow(x, y): return pow(x, y)
def math_atan2(y, x): return math.atan2(y, x)
def math_hypot(x, y): return math.hypot(x, y)


@pytest.mark.parametrize("row", table(
    Row(math_exp, normal()), Row(math_expm1, normal()), Row(math_log, Arg("pos")),
    Row(math_log_base, Arg("pos"), Const(10.0)), Row(math_log_base, Arg("pos"), Arg("pos")),
    Row(math_log2, Arg("pos")), Row(math_log10, Arg("pos")), Row(math_log1p, Arg("pos")),
    Row(math_sin, normal()), Row(math_cos, normal()), Row(math_tan, Arg("unit")),
    Row(math_asin, Arg("unit")), Row(math_acos, Arg("unit")), Row(math_atan, normal()),
    Row(math_sinh, normal()), Row(math_cosh, normal()), Row(math_tanh, normal()),
    Row(math_sqrt, Arg("pos")), Row(math_fabs, Arg("away")), Row(math_pow, Arg("pos"), normal()),
    Row(builtin_pow, Arg("pos"), normal()), Row(builtin_pow, Arg("pos", (3,)), normal(3)),
    Row(math_atan2, Arg("away"), Arg("away")), Row(math_hypot, Arg("away"), Arg("away"))))
def test_math_scalars(row):
    check_row(row)


# ---------------------------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------------------------
def np_sum(x, axis, keepdims): return np.sum(x, axis=axis, keepdims=keepdims)
def np_mean(x, axis, keepdims): return np.mean(x, axis=axis, keepdims=keepdims)
def np_prod(x, axis, keepdims): return np.prod(x, axis=axis, keepdims=keepdims)
def np_max(x, axis, keepdims): return np.max(x, axis=axis, keepdims=keepdims)
def np_min(x, axis, keepdims): return np.min(x, axis=axis, keepdims=keepdims)
def np_amax(x, axis, keepdims): return np.amax(x, axis=axis, keepdims=keepdims)
def np_amin(x, axis, keepdims): return np.amin(x, axis=axis, keepdims=keepdims)
def sum_method(x, axis, keepdims): return x.sum(axis=axis, keepdims=keepdims)
def mean_method(x, axis, keepdims): return x.mean(axis=axis, keepdims=keepdims)
def prod_method(x, axis, keepdims): return x.prod(axis=axis, keepdims=keepdims)
def max_method(x, axis, keepdims): return x.max(axis=axis, keepdims=keepdims)
def min_method(x, axis, keepdims): return x.min(axis=axis, keepdims=keepdims)


REDUCTIONS = [
    (np_sum, "normal"), (np_mean, "normal"), (np_prod, "away"), (np_max, "distinct"),
    (np_min, "distinct"), (np_amax, "distinct"), (np_amin, "distinct"),
    (sum_method, "normal"), (mean_method, "normal"), (prod_method, "away"),
    (max_method, "distinct"), (min_method, "distinct"),
]
AXES = [None, 1, -1, 0, (0, 2), (-1, 0), (0, 1, 2)]


@pytest.mark.parametrize("row", table(*[
    Row(fn, Arg(kind, (2, 3, 4)), Const(axis), Const(keepdims))
    for fn, kind in REDUCTIONS for axis in AXES for keepdims in (False, True)]))
def test_reduction(row):
    check_row(row)


def np_var(x, axis, keepdims, ddof): return np.var(x, axis=axis, keepdims=keepdims, ddof=ddof)
def np_std(x, axis, keepdims, ddof): return np.std(x, axis=axis, keepdims=keepdims, ddof=ddof)
def var_method(x, axis, keepdims, ddof): return x.var(axis=axis, keepdims=keepdims, ddof=ddof)
def std_method(x, axis, keepdims, ddof): return x.std(axis=axis, keepdims=keepdims, ddof=ddof)


@pytest.mark.parametrize("row", table(*[
    Row(fn, normal(2, 3, 4), Const(axis), Const(keepdims), Const(ddof))
    for fn in (np_var, np_std, var_method, std_method)
    for axis, keepdims, ddof in [(None, False, 0), (None, True, 1), (1, False, 0),
                                 (-1, True, 1), ((0, 2), False, 1), ((2, 0), True, 0)]]))
def test_moments(row):
    check_row(row)


# the same reductions written with literal arguments, as users write them
def sum_all(x): return np.sum(x)
def sum_positional_axis(x): return np.sum(x, 1)
def sum_axis_method(x): return x.sum(axis=1)
def sum_method_positional(x): return x.sum(0)
def mean_all_method(x): return x.mean()
def mean_keepdims(x): return np.mean(x, axis=-1, keepdims=True)
def max_all_method(x): return x.max()
def min_all_method(x): return x.min()
def max_axis_positional(x): return x.max(1)
def min_keepdims(x): return np.min(x, axis=0, keepdims=True)
def prod_all(x): return np.prod(x)
def var_all(x): return x.var()
def std_rows(x): return np.std(x, axis=1, ddof=1)
def prod_axis(x, axis): return np.prod(x, axis=axis)


@pytest.mark.parametrize("row", table(
    Row(sum_all, normal(3, 4)), Row(sum_positional_axis, normal(3, 4)),
    Row(sum_axis_method, normal(3, 4)), Row(sum_method_positional, normal(3, 4)),
    Row(mean_all_method, normal(3, 4)), Row(mean_keepdims, normal(3, 4)),
    Row(max_all_method, Arg("distinct", (3, 4))), Row(min_all_method, Arg("distinct", (3, 4))),
    Row(max_axis_positional, Arg("distinct", (3, 4))),
    Row(min_keepdims, Arg("distinct", (3, 4))), Row(prod_all, Arg("away", (3, 4))),
    Row(var_all, normal(3, 4)), Row(std_rows, normal(3, 4)),
    Row(max_all_method, Arg("distinct", (5,))),
    *[Row(prod_axis, Arg("zeros", (3, 4)), Const(axis)) for axis in (1, 0, None, -1)]))
def test_reduction_literals(row):
    check_row(row)


def norm(x): return np.linalg.norm(x)
def norm_ord(x, ord): return np.linalg.norm(x, ord)
def norm_axis(x, ord, axis, keepdims): return np.linalg.norm(x, ord, axis, keepdims)


VECTOR_ORDS = [None, 2, 1, 3, 0.5, -1, np.inf, -np.inf, 0]
MATRIX_ORDS = [None, "fro", 1, -1, np.inf, -np.inf, 2, -2, "nuc"]


@pytest.mark.parametrize("row", table(
    Row(norm, normal(5)), Row(norm, normal(3, 4)), Row(norm, normal(2, 3, 4)),
    *[Row(norm_ord, Arg("distinct", (5,)), Const(o)) for o in VECTOR_ORDS],
    *[Row(norm_ord, Arg("distinct", (3, 4)), Const(o)) for o in MATRIX_ORDS],
    *[Row(norm_axis, Arg("distinct", (3, 4)), Const(o), Const(axis), Const(keepdims))
      for o in (None, 1, 3, np.inf) for axis, keepdims in [(1, False), (0, True), (-1, True)]],
    *[Row(norm_axis, Arg("distinct", (2, 3, 4)), Const(o), Const(axis), Const(keepdims))
      for o in MATRIX_ORDS for axis, keepdims in [((1, 2), False), ((2, 0), True)]]))
def test_norm(row):
    check_row(row)


# ---------------------------------------------------------------------------------------------
# products
# ---------------------------------------------------------------------------------------------
def matmul_op(a, b): return a @ b
def np_matmul(a, b): return np.matmul(a, b)
def linalg_matmul(a, b): return np.linalg.matmul(a, b)
def np_dot(a, b): return np.dot(a, b)
def dot_method(a, b): return a.dot(b)
def np_outer(a, b): return np.outer(a, b)


MATMUL_SHAPES = [((4,), (4,)), ((3, 4), (4, 5)), ((3, 4), (4,)), ((4,), (4, 5)),
                 ((2, 3, 4), (2, 4, 5)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
                 ((2, 1, 3, 4), (3, 4, 2)), ((4,), (2, 4, 5)), ((2, 3, 4), (4,))]
DOT_SHAPES = [((4,), (4,)), ((3, 4), (4, 5)), ((3, 4), (4,)), ((4,), (4, 5)), ((), (3, 4)),
              ((3, 4), ()), ((2, 3, 4), (4,)), ((2, 3, 4), (5, 4, 2)), ((4,), (2, 4, 3))]


@pytest.mark.parametrize("row", table(
    *[Row(fn, normal(*sa), normal(*sb)) for fn in (matmul_op, np_matmul)
      for sa, sb in MATMUL_SHAPES],
    *[Row(linalg_matmul, normal(*sa), normal(*sb)) for sa, sb in MATMUL_SHAPES[1:6:2]],
    *[Row(fn, normal(*sa), normal(*sb)) for fn in (np_dot, dot_method)
      for sa, sb in DOT_SHAPES if fn is np_dot or sa != ()],
    Row(np_outer, normal(3), normal(4)), Row(np_outer, normal(2, 2), normal(3)),
    Row(np_outer, normal(), normal(3))))
def test_products(row):
    check_row(row)


def einsum1(subscripts, a): return np.einsum(subscripts, a)
def einsum2(subscripts, a, b): return np.einsum(subscripts, a, b)
def einsum3(subscripts, a, b, c): return np.einsum(subscripts, a, b, c)
def einsum_same_operand(subscripts, a): return np.einsum(subscripts, a, a)
def einsum_optimize(a, b): return np.einsum("ij,jk->ik", a, b, optimize=True)


EINSUMS = [
    ("ij,jk->ik", (3, 4), (4, 5)), ("i,i->", (4,), (4,)), ("ii->", (3, 3)), ("ij->ji", (3, 4)),
    ("ij,jk", (3, 4), (4, 5)), ("...ij,...jk->...ik", (2, 3, 4), (2, 4, 5)),
    ("...ij,...jk->...ik", (3, 4), (2, 4, 5)), ("...ij,...jk", (2, 3, 4), (4, 5)),
    ("...ij,...jk->...ik", (1, 3, 4), (2, 4, 5)), ("iij->ij", (3, 3, 4)), ("ij->i", (3, 4)),
    ("ij->", (3, 4)), ("ii->i", (3, 3)), ("ii", (3, 3)), ("ji", (3, 4)),
    ("ij,ij->ij", (3, 4), (3, 4)), ("i,j->ij", (3,), (4,)), ("ij,j->i", (3, 4), (4,)),
    ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)), ("ij,jk->i", (3, 4), (4, 5)),
    ("ij,k->ik", (3, 4), (5,)), ("...i,...i", (2, 3), (3,)), ("i...->...", (3, 2, 2)),
    (" ij , jk -> ki ", (3, 4), (4, 5)), ("Ab,bC->AC", (3, 4), (4, 2)),
    ("ij,jk,kl->il", (2, 3), (3, 4), (4, 2)), ("ijj,jk,k->ik", (2, 3, 3), (3, 4), (4,)),
]


@pytest.mark.parametrize("row", table(
    *[Row({1: einsum1, 2: einsum2, 3: einsum3}[len(shapes)], Const(spec, repr(spec)),
          *[normal(*s) for s in shapes]) for spec, *shapes in EINSUMS],
    Row(einsum_same_operand, Const("ij,ij->"), normal(3, 4)),
    Row(einsum_same_operand, Const("ij,jk->ik"), normal(3, 3)),
    Row(einsum_optimize, normal(3, 4), normal(4, 5))))
def test_einsum(row):
    check_row(row)


# ---------------------------------------------------------------------------------------------
# shape changes
# ---------------------------------------------------------------------------------------------
def transpose(x): return np.transpose(x)
def transpose_axes(x): return np.transpose(x, (1, 2, 0))
def transpose_axes_keyword(x): return np.transpose(x, axes=(2, 0, 1))
def transpose_negative_axes(x): return np.transpose(x, (-1, 0, 1))
def transpose_attribute(x): return x.T
def matrix_transpose_attribute(x): return x.mT
def flat_indexed(x): return x.flat[[0, 2, 5]] * x.flat[1]
def transpose_method(x): return x.transpose(1, 0)
def transpose_method_3d(x): return x.transpose(2, 0, 1)
def transpose_method_tuple(x): return x.transpose((1, 2, 0))
def transpose_method_none(x): return x.transpose()
def transpose_method_negative(x): return x.transpose(-1, -3, -2)
def swapaxes(x): return np.swapaxes(x, 0, 2)
def moveaxis(x): return np.moveaxis(x, 0, -1)
def reshape(x): return np.reshape(x, (4, 6))
def reshape_keyword(x): return np.reshape(x, shape=(4, -1))
def reshape_fortran(x): return np.reshape(x, (4, 6), order="F")
def reshape_fortran_positional(x): return np.reshape(x, (4, 6), "F")
def reshape_method(x): return x.reshape(4, 6)
def reshape_method_tuple(x): return x.reshape((6, -1))
def reshape_method_fortran(x): return x.reshape(6, 4, order="F")
def reshape_flat(x): return x.reshape(-1)
def ravel(x): return np.ravel(x)
def ravel_fortran(x): return np.ravel(x, order="F")
def ravel_method(x): return x.ravel()
def flatten(x): return x.flatten()
def flatten_fortran(x): return x.flatten("F")
def squeeze(x): return np.squeeze(x)
def squeeze_axis(x): return np.squeeze(x, axis=1)
def squeeze_method(x): return x.squeeze()
def expand_dims(x): return np.expand_dims(x, 1)
def atleast_1d(x): return np.atleast_1d(x) * x
def atleast_2d(x): return np.atleast_2d(x)
def atleast_3d(x): return np.atleast_3d(x)
def swapaxes_method(x): return x.swapaxes(0, 1)
def ravel_any_order(x): return np.ravel(x.T, order="A")
def ravel_memory_order(x): return np.ravel(x.T[::-1], order="K")
def ravel_memory_order_3d(x): return x.transpose(1, 2, 0)[:, ::-1].ravel("K")
def reshape_any_order(x): return np.reshape(x.T, (2, 6), order="A")
def broadcast_to(x): return np.broadcast_to(x, (3, 4))
def copy_method(x): return x.copy()
def np_copy(x): return np.copy(x)
def np_array(x): return np.array(x)
def np_asarray(x): return np.asarray(x)
def np_ascontiguousarray(x): return np.ascontiguousarray(x.T)
def np_asfortranarray(x): return np.asfortranarray(x)
def astype(x): return x.astype(np.float64)
def builtin_float(x): return float(x[1]) * x
def astype_int(x): return x.astype(np.int64) * x          # the integer part has no gradient
def np_array_int(x): return np.array(x, dtype=int) * x + x.astype(bool)
def full_of_value(x): return np.full((3, 2), x[1]) * x[0]
def full_like_value(x): return np.full_like(x, x[0]) * x
def linspace_ends(x): return np.linspace(x[0], x[1], 5)
def linspace_array_stop(x): return np.linspace(x[0], x[1:], 4, axis=1)
def linspace_no_endpoint(x): return np.linspace(x[2], x[0], 6, endpoint=False)


@pytest.mark.parametrize("row", table(
    Row(transpose, normal(3, 4)), Row(transpose, normal(2, 3, 4)),
    Row(transpose_axes, normal(2, 3, 4)), Row(transpose_axes_keyword, normal(2, 3, 4)),
    Row(transpose_negative_axes, normal(2, 3, 4)), Row(transpose_attribute, normal(3, 4)),
    Row(transpose_attribute, normal(2, 3, 4)), Row(transpose_method, normal(3, 4)),
    Row(matrix_transpose_attribute, normal(3, 4)), Row(matrix_transpose_attribute, normal(2, 3, 4)),
    Row(flat_indexed, normal(2, 3)),
    Row(transpose_method_3d, normal(2, 3, 4)), Row(transpose_method_tuple, normal(2, 3, 4)),
    Row(transpose_method_none, normal(2, 3, 4)), Row(transpose_method_negative, normal(2, 3, 4)),
    Row(swapaxes, normal(2, 3, 4)), Row(moveaxis, normal(2, 3, 4)),
    Row(reshape, normal(2, 3, 4)), Row(reshape_keyword, normal(2, 3, 4)),
    Row(reshape_fortran, normal(2, 3, 4)), Row(reshape_fortran_positional, normal(2, 3, 4)),
    Row(reshape_method, normal(2, 3, 4)), Row(reshape_method_tuple, normal(2, 3, 4)),
    Row(reshape_method_fortran, normal(2, 3, 4)), Row(reshape_flat, normal(2, 3, 4)),
    Row(ravel, normal(3, 4)), Row(ravel_fortran, normal(3, 4)), Row(ravel_method, normal(3, 4)),
    Row(flatten, normal(3, 4)), Row(flatten_fortran, normal(3, 4)),
    Row(squeeze, normal(3, 1, 4)), Row(squeeze_axis, normal(3, 1, 4)),
    Row(squeeze_method, normal(1, 4)), Row(expand_dims, normal(3, 4)),
    Row(atleast_1d, normal()), Row(atleast_2d, normal(4)), Row(atleast_3d, normal(3, 4)),
    Row(swapaxes_method, normal(2, 3, 4)), Row(ravel_any_order, normal(3, 4)),
    Row(ravel_memory_order, normal(3, 4)), Row(ravel_memory_order_3d, normal(2, 3, 4)),
    Row(reshape_any_order, normal(3, 4)), Row(broadcast_to, normal(4)),
    Row(broadcast_to, normal(3, 1)),
    Row(copy_method, normal(3, 4)), Row(np_copy, normal(3, 4)), Row(np_array, normal(3, 4)),
    Row(np_asarray, normal(3, 4)), Row(np_ascontiguousarray, normal(3, 4)),
    Row(np_asfortranarray, normal(3, 4)), Row(astype, normal(3, 4)), Row(builtin_float, normal(3)),
    Row(astype_int, normal(3, 4)), Row(np_array_int, normal(3, 4)), Row(full_of_value, normal(3)),
    Row(full_like_value, normal(3)), Row(linspace_ends, normal(3)),
    Row(linspace_array_stop, normal(4)), Row(linspace_no_endpoint, normal(3))))
def test_shapes(row):
    check_row(row)


# ---------------------------------------------------------------------------------------------
# reads by indexing
# ---------------------------------------------------------------------------------------------


def index_int(x): return x[2]
def index_negative(x): return x[-1]
def index_two_ints(x): return x[1, -2]
def index_row(x): return x[1]
def slice_step(x): return x[1:5:2]
def slice_reversed(x): return x[::-1]
def slice_negative_step(x): return x[5:0:-2]
def slice_from(x): return x[2:]
def slice_to(x): return x[:-2]
def slice_2d(x): return x[1:, ::2]
def index_new_axis(x): return x[None]
def index_new_axis_middle(x): return x[:, None, 1:]
def index_ellipsis(x): return x[..., 1]
def index_ellipsis_new_axis(x): return x[..., None]
def index_column(x): return x[:, 2]
def index_column_variable(x, j): return x[:, j]
def index_list_repeated(x): return x[[0, 2, 2]]
def index_array(x, idx): return x[idx]
def index_columns_repeated(x): return x[:, [1, 1, 3]]
def index_pairs_repeated(x): return x[[0, 1, 0], [2, 2, 2]]
def pick(L, y): return L[np.arange(L.shape[0]), y]
def pick_log_likelihood(L, y): return -np.mean(np.log(L[np.arange(len(y)), y]))
def mask_positive(x): return x[x > 0]
def mask_rows(x): return x[x[:, 0] > 0]
def mask_constant(x, m): return x[m]
def mask_list(x): return x[[True, False, True, True]]
def index_mixed(x): return x[1:, [0, 0, 2], None]
def index_twice(x): return x[0] * x[-1] + x[0]


@pytest.mark.parametrize("row", table(
    Row(index_int, normal(5)), Row(index_negative, normal(5)), Row(index_two_ints, normal(3, 4)),
    Row(index_row, normal(3, 4)), Row(slice_step, normal(6)), Row(slice_reversed, normal(6)),
    Row(slice_reversed, normal(3, 4)), Row(slice_negative_step, normal(6)),
    Row(slice_from, normal(6)), Row(slice_to, normal(6)),
    Row(slice_2d, normal(3, 4)), Row(index_new_axis, normal(4)),
    Row(index_new_axis_middle, normal(3, 4)),
    Row(index_ellipsis, normal(2, 3, 4)),
    Row(index_ellipsis_new_axis, normal(3, 4)), Row(index_column, normal(3, 4)),
    Row(index_column_variable, normal(3, 4), Const(1)),
    Row(index_column_variable, normal(3, 4), Const(-1)),
    Row(index_list_repeated, normal(4)), Row(index_list_repeated, normal(4, 2)),
    Row(index_array, normal(5), Const(np.array([0, 2, 2, -1, 2]), "idx[5]")),
    Row(index_array, normal(5, 2), Const(np.array([[0, 1], [1, 4], [0, 0]]), "idx[3,2]")),
    Row(index_columns_repeated, normal(3, 4)), Row(index_pairs_repeated, normal(3, 4)),
    Row(pick, normal(4, 3), Const(np.array([2, 0, 2, 1]), "y")),
    Row(pick, normal(4, 3), Const(np.array([1, 1, 1, 1]), "y")),
    Row(pick_log_likelihood, Arg("pos", (4, 3)), Const(np.array([2, 0, 2, 1]), "y")),
    Row(mask_positive, Arg("away", (3, 4))), Row(mask_rows, Arg("away", (4, 3))),
    Row(mask_constant, normal(3, 4), Const(np.arange(12).reshape(3, 4) % 3 == 0, "mask")),
    Row(mask_list, normal(4)), Row(index_mixed, normal(3, 4)),
    Row(index_twice, normal(3, 2))))
def test_indexing(row):
    check_row(row)


# ---------------------------------------------------------------------------------------------
# the runtime helpers generated code calls (their rules make derivatives differentiable again)
# ---------------------------------------------------------------------------------------------
def rt_unbroadcast(g, like): return runtime.unbroadcast(g, like)
def rt_unreduce(g, x, axis, keepdims): return runtime.unreduce(g, x, axis, keepdims)
def rt_scatter(x, index, g): return runtime.scatter(x, index, g)
def rt_scatter_distinct(x, index, g): return runtime.scatter_distinct(x, index, g)
def rt_scatter_by_range(x, index, g): return runtime.scatter_by_range(x, index, g, 0)
def rt_scatter_entries(x, g0, g1): return runtime.scatter_entries(x, (2, 0), (g0, g1))
def rt_zero_at(g, index): return runtime.zero_at(g, index)
def rt_last_writes(g, index): return runtime.last_writes(g, index)
def rt_put_entry(a, b, v, index): return np.stack(runtime.put_entry([a, b], index, v))
def rt_insert_entry(a, b, v, index): return np.stack(runtime.insert_entry([a, b], index, v))
def rt_drop_entry(a, b, c, index): return np.stack(runtime.drop_entry([a, b, c], index))
def rt_entry_before(a, b, key): return runtime.entry_before({"a": a, "b": b}, key) * 2.0
def rt_sorted_grad(g, xs, reverse): return runtime.sorted_grad(list(g), xs, None, reverse)
def rt_sorted_tangent(t, xs): return np.stack(runtime.sorted_tangent(t, xs))
def rt_overwrite_at(x, index, g): return runtime.overwrite_at(x, index, g)
def rt_matmul_grad_a(g, a, b): return runtime.matmul_grad_a(g, a, b)
def rt_matmul_grad_b(g, a, b): return runtime.matmul_grad_b(g, a, b)
def rt_gradient_like(g, x): return runtime.gradient_like(g, x)
def rt_callee_gradient(g, x): return runtime.callee_gradient(g, x)
def rt_seed_like(out, seed): return runtime.seed_like(out, seed)
def rt_dot_grad_a(g, a, b): return runtime.dot_grad_a(g, a, b)
def rt_dot_grad_b(g, a, b): return runtime.dot_grad_b(g, a, b)
def rt_tensordot_grad_a(g, a, b, axes): return runtime.tensordot_grad_a(g, a, b, axes)
def rt_tensordot_grad_b(g, a, b, axes): return runtime.tensordot_grad_b(g, a, b, axes)
def rt_untranspose(g, axes): return runtime.untranspose(g, axes)
def rt_transpose_by(g, axes): return runtime.transpose_by(g, axes)
def rt_unreshape(g, x, order): return runtime.unreshape(g, x, order)
def rt_reshape_as(t, like, x, order): return runtime.reshape_as(t, like, x, order)
def rt_prod_grad(g, y, x, axis, keepdims): return runtime.prod_grad(g, y, x, axis, keepdims)
def rt_norm_grad(g, y, x, ord, axis, kd): return runtime.norm_grad(g, y, x, ord, axis, kd)
def rt_einsum_grad(g, subscripts, k, a, b): return runtime.einsum_grad(g, subscripts, k, a, b)
def rt_through_cast(g, y): return runtime.through_cast(g, y)
def rt_through_update(g, z): return runtime.through_update(g, z)
def rt_updated_in_place(result, z): return runtime.updated_in_place(z, result)
def rt_stored_as(value, array): return runtime.stored_as(value, array)
def rt_conj(x): return runtime.conj(x) * x
def rt_conj_sign(x): return runtime.conj_sign(x ** 3, np.abs(x ** 3)) * x
def rt_fit_to(g, like): return runtime.fit_to(g, like)
def rt_rfft_grad(g, a, n): return runtime.rfft_grad(g, a, n, 0, "ortho")
def rt_irfft_grad(g, a):
    back = runtime.irfft_grad(g, a, None, -1, None)
    return np.real(back) + 2 * np.imag(back)
def rt_extremum_share(g, x, axis, kd): return runtime.extremum_share(g, x, np.max(x, axis=axis, keepdims=kd), axis, kd)
def rt_extremum_gather(u, x, axis, kd): return runtime.extremum_gather(u, x, np.max(x, axis=axis, keepdims=kd), axis, kd)
def rt_r_part_grad(g, k, a, b): return runtime.concatenator_part_grad(g, np.r_, k, a, b, 0.5)
def rt_c_part_grad(g, k, a, b): return runtime.concatenator_part_grad(g, np.c_, k, a, b)
def rt_r_place(u, k, a, b): return runtime.concatenator_place(u, np.r_, k, a, b, 0.5)
def rt_element(g, index, like): return runtime.element(g, index, like)
def rt_truncate(g, length): return runtime.truncate(g, length)
def rt_divide_or_zero(a, b): return runtime.divide_or_zero(a, b)
def rt_own_copy(x, y): return runtime.own_copy(x, "x", "here.py:1:1", y=y) * y
def rt_snapshot(x): return runtime.snapshot(x)
def rt_tangent_copy(t): return runtime.tangent_copy(t)
def rt_broadcast_like(t, like): return runtime.broadcast_like(t, like)
def rt_read_as_array(x): return runtime.read_as_array(x)


def rt_entries_at(g):
    first, second = runtime.entries_at(g, (2, 0), (np.zeros(4), np.zeros(4)))
    return first * 2.0 + second


ZEROS_34 = Const(np.zeros((3, 4)), "zeros[3,4]")
# `x[index] = v` with a repeated position: only the last write reaches v's adjoint
LAST_WRITE_ROWS = [
    Row(rt_last_writes, normal(3, 4), Const((slice(None), [0, 2, 2, 1]))),
    Row(rt_last_writes, normal(4, 2), Const((np.array([3, 0, 3]), np.array([1, 1, 1])), "pairs")),
    Row(rt_last_writes, normal(3, 4), Const((slice(None), 1))),
    Row(rt_overwrite_at, ZEROS_34, Const((slice(None), [0, 2, 2])), normal(3, 3)),
    Row(rt_overwrite_at, ZEROS_34, Const([1, 1]), normal(2, 4)),
    Row(rt_overwrite_at, ZEROS_34, Const((slice(None), 1)), normal()),
]


@pytest.mark.parametrize("row", table(*LAST_WRITE_ROWS))
def test_last_write_helper_tangents(row):
    check_tangent_row(row)


@pytest.mark.parametrize("row", table(
    Row(rt_unbroadcast, normal(5, 4), Const(np.zeros(4), "zeros[4]")),
    Row(rt_unbroadcast, normal(2, 3, 4), Const(np.zeros((3, 1)), "zeros[3,1]")),
    Row(rt_unreduce, normal(3), ZEROS_34, Const(1), Const(False)),
    Row(rt_unreduce, normal(1, 4), ZEROS_34, Const(0), Const(True)),
    Row(rt_unreduce, normal(), ZEROS_34, Const(None), Const(False)),
    Row(rt_scatter, ZEROS_34, Const(1), normal(4)),
    Row(rt_scatter, ZEROS_34, Const((slice(None), [0, 2, 2])), normal(3, 3)),
    Row(rt_scatter, ZEROS_34, Const((slice(None), 1)), normal()),
    Row(rt_scatter_distinct, ZEROS_34, Const((np.arange(3), np.array([0, 3, 3])), "rows"),
        normal(3)),
    Row(rt_scatter_by_range, ZEROS_34, Const((np.arange(3), np.array([0, 3, 3])), "rows"),
        normal(3)),                                     # positions distinct: stores
    Row(rt_scatter_by_range, ZEROS_34, Const((np.arange(3), 1), "rows, one column"),
        normal(3)),
    Row(rt_scatter_by_range, ZEROS_34, Const((np.arange(3), np.array([[0], [3]])), "grid"),
        normal(2, 3)),                                  # parts of other shapes: adds
    Row(rt_scatter_entries, ZEROS_34, normal(4), normal()),      # rows 2 and 0: an unpacking
    Row(rt_entries_at, normal(3, 4)),
    Row(rt_zero_at, normal(3, 4), Const((slice(None), [0, 2]))),
    Row(rt_sorted_grad, normal(4), Arg("distinct", (4,)), Const(True)),
    Row(rt_sorted_tangent, normal(4), Arg("distinct", (4,))),
    Row(rt_entry_before, normal(3), normal(2, 3), Const("b")),
    Row(rt_put_entry, normal(3), normal(3), normal(3), Const(1)),      # undoing a pop: replace
    Row(rt_put_entry, normal(2, 2), normal(2, 2), normal(2, 2), Const(2)),          # or extend
    Row(rt_insert_entry, normal(3), normal(3), normal(3), Const(1)),   # undoing a pop(i)
    Row(rt_insert_entry, normal(2, 2), normal(2, 2), normal(2, 2), Const(2)),
    Row(rt_drop_entry, normal(3), normal(3), normal(3), Const(0)),     # undoing an insert
    Row(rt_drop_entry, normal(2), normal(2), normal(2), Const(2)),
    *LAST_WRITE_ROWS,
    *[Row(fn, normal(*sg), normal(*sa), normal(*sb)) for fn in (rt_matmul_grad_a, rt_matmul_grad_b)
      for sg, sa, sb in [((3, 5), (3, 4), (4, 5)), ((), (4,), (4,)), ((5,), (4,), (4, 5)),
                         ((3,), (3, 4), (4,)), ((2, 3, 5), (3, 4), (2, 4, 5))]],
    Row(rt_gradient_like, normal(3), Const(np.zeros(3), "zeros[3]")),
    Row(rt_gradient_like, normal(), Const(np.zeros(3), "zeros[3]")),
    Row(rt_callee_gradient, normal(3), Const(np.zeros(3), "zeros[3]")),
    Row(rt_seed_like, Const(np.zeros(3), "zeros[3]"), normal(3)),
    Row(rt_through_cast, normal(3), Const(np.zeros(3), "zeros[3]")),
    Row(rt_through_cast, normal(3), Const(np.zeros(3, dtype=int), "int_zeros[3]")),
    Row(rt_through_update, normal(3), Const(np.zeros(3), "zeros[3]")),
    Row(rt_through_update, normal(3), Const(np.zeros(3, dtype=int), "int_zeros[3]")),
    Row(rt_updated_in_place, normal(3), Const(np.zeros(3), "zeros[3]")),
    Row(rt_updated_in_place, normal(3), Const(2.0)),
    Row(rt_stored_as, normal(3), Const(np.zeros(3), "zeros[3]")),
    Row(rt_stored_as, normal(3), Const(np.zeros(3, dtype=int), "int_zeros[3]")),
    Row(rt_conj, normal(3)),
    Row(rt_conj_sign, Arg("away", (3,))),
    Row(rt_fit_to, normal(3, 4), Const(np.zeros((2, 6)), "zeros[2,6]")),
    Row(rt_rfft_grad, normal(4, 2), Const(np.zeros((5, 2)), "zeros[5,2]"), Const(6)),
    Row(rt_irfft_grad, normal(2, 6), Const(np.zeros((2, 3)), "zeros[2,3]")),
    Row(rt_extremum_share, normal(3), Const(np.array([[1.0, 3.0], [2.0, 2.0], [0.5, 4.0]]),
                                            "ties[3,2]"), Const(1), Const(False)),
    Row(rt_extremum_share, normal(), Const(np.array([1.0, 3.0, 3.0]), "ties[3]"), Const(None),
        Const(False)),
    Row(rt_extremum_gather, normal(3, 2), Const(np.array([[1.0, 3.0], [2.0, 2.0], [0.5, 4.0]]),
                                                "ties[3,2]"), Const(0), Const(True)),
    Row(rt_element, normal(4, 3), Const(1), Const(np.zeros(3), "zeros[3]")),
    Row(rt_truncate, normal(4), Const(2)),
    Row(rt_snapshot, normal(3, 2)), Row(rt_tangent_copy, normal(4)),
    Row(rt_broadcast_like, normal(3), Const(np.zeros((2, 3)), "zeros[2,3]")),
    Row(rt_broadcast_like, normal(2, 1), Const(np.zeros((2, 3)), "zeros[2,3]")),
    *[Row(fn, normal(*sg), normal(*sa), normal(*sb)) for fn in (rt_dot_grad_a, rt_dot_grad_b)
      for sg, sa, sb in [((3, 5), (3, 4), (4, 5)), ((), (4,), (4,)), ((2, 3), (2, 4), (4,)),
                         ((3, 4), (), (3, 4)), ((2, 5, 3), (2, 4), (5, 4, 3))]],
    # g has the product's shape: a's free axes, then b's
    *[Row(fn, normal(*sg), normal(*sa), normal(*sb), Const(axes))
      for fn in (rt_tensordot_grad_a, rt_tensordot_grad_b)
      for sg, sa, sb, axes in [((2, 5), (2, 3, 4), (3, 4, 5), 2), ((5, 2), (3, 4, 5), (4, 3, 2),
                                                                     ([1, 0], [0, 1])),
                               ((3, 2), (3, 4), (4, 2), ([-1], [0])), ((3, 4), (3,), (4,), 0),
                               ((4,), (3, 4), (3,), ([0], [0]))]],
    Row(rt_untranspose, normal(4, 2, 3), Const((1, 2, 0))),
    Row(rt_untranspose, normal(4, 2, 3), Const(((-2, -1, 0),), "((-2,-1,0),)")),
    Row(rt_untranspose, normal(4, 3), Const(())),
    Row(rt_transpose_by, normal(2, 3, 4), Const((1, 2, 0))),
    Row(rt_transpose_by, normal(2, 3, 4), Const(((2, 0, 1),), "((2,0,1),)")),
    *[Row(rt_unreshape, normal(4, 6), Const(x, label), Const(order))
      for x, label in [(np.zeros((2, 3, 4)), "zeros[2,3,4]"),
                       (np.zeros((4, 3, 2)).T, "zeros[4,3,2].T")] for order in "CFA"],
    Row(rt_unreshape, normal(12), Const(np.zeros((4, 3)).T[::-1], "zeros[4,3].T[::-1]"),
        Const("K")),
    *[Row(rt_reshape_as, normal(2, 3, 4), Const(np.zeros((4, 6)), "zeros[4,6]"),
          Const(np.zeros((2, 3, 4)), "zeros[2,3,4]"), Const(order)) for order in "CF"],
    Row(rt_reshape_as, normal(3, 4), Const(np.zeros(12), "zeros[12]"),
        Const(np.zeros((4, 3)).T[::-1], "zeros[4,3].T[::-1]"), Const("K")),
    Row(rt_prod_grad, normal(3), normal(3), Arg("away", (3, 4)), Const(1), Const(False)),
    Row(rt_prod_grad, normal(1, 4), normal(1, 4), Arg("zeros", (3, 4)), Const(0), Const(True)),
    Row(rt_prod_grad, normal(), normal(), Arg("zeros", (3, 4)), Const(None), Const(False)),
    *[Row(rt_norm_grad, normal(*sg), Arg("pos", sg), normal(*sx), Const(o), Const(axis),
          Const(keepdims)) for o, sg, sx, axis, keepdims in [
              (None, (), (5,), None, False), (3, (), (5,), None, False),
              (None, (3, 1), (3, 4), 1, True), (3, (4,), (3, 4), 0, False),
              ("fro", (2,), (2, 3, 4), (1, 2), False), (None, (), (3, 4), None, False)]],
    # piecewise-linear norms: the direction does not depend on the norm's value
    *[Row(rt_norm_grad, normal(), Const(1.0), Arg("distinct", sx), Const(o), Const(None),
          Const(False)) for o, sx in [(1, (5,)), (1, (3, 4)), (-np.inf, (3, 4))]],
    Row(rt_divide_or_zero, normal(3, 4), Arg("away", (4,))),
    Row(rt_divide_or_zero, normal(), Arg("away", (3,))),
    # where b is 0 the helper is the constant 0, so its derivative there is 0 too
    Row(rt_divide_or_zero, normal(3, 2), Const(np.array([0.0, 2.0]), "[0.,2.]")),
    Row(rt_einsum_grad, normal(3, 5), Const("ij,jk->ik"), Const(0), normal(3, 4), normal(4, 5)),
    Row(rt_einsum_grad, normal(3, 5), Const("ij,jk->ik"), Const(1), normal(3, 4), normal(4, 5)),
    Row(rt_einsum_grad, normal(), Const("ii,ij->"), Const(0), normal(3, 3), normal(3, 2)),
    Row(rt_einsum_grad, normal(2, 3), Const("...ij,...j->...i"), Const(1), normal(2, 3, 4),
        normal(1, 4)),
    Row(rt_r_part_grad, normal(8), Const(1), normal(2), normal(5)),
    Row(rt_c_part_grad, normal(3, 3), Const(0), normal(3), normal(3, 2)),
    Row(rt_r_place, normal(2), Const(0), normal(2), normal(5)),
    Row(rt_own_copy, normal(3, 4), normal(3, 4)),
    Row(rt_read_as_array, normal(3, 4))))
def test_runtime_helpers(row):
    check_row(row)


# ---------------------------------------------------------------------------------------------
# second order: the generated gradient goes through the helpers' own rules (reverse over reverse
# with grad(grad), forward over reverse with hvp), against differences of the gradient
# ---------------------------------------------------------------------------------------------
def so_prod(x): return np.sum(np.prod(x, axis=1) ** 2) + np.prod(x)
def so_norm(x): return np.linalg.norm(x) * np.sum(x)
def so_norm_p(x): return np.linalg.norm(x, 3) ** 2 + np.linalg.norm(x, 1) * x[0]
def so_norm_flat(x): return np.linalg.norm(x, np.inf) * np.sum(x ** 2)
def so_norm_matrix(x): return np.linalg.norm(x, "fro") * np.sum(np.linalg.norm(x, 2, 1, True) * x)
def so_norm_matrix_flat(x): return np.linalg.norm(x, 1) * np.linalg.norm(x, -np.inf) * np.sum(x**3)
def so_reshape(x): return np.sum(np.reshape(x, (2, 6), order="F") @ np.sin(x.reshape(6, 2)))
def so_ravel(x): return np.sum(np.ravel(x.T[::-1], order="K") * np.ravel(x) ** 2)
def so_dot(x): return np.sum(np.dot(x.reshape(2, 2, 3), x.T) ** 2) + np.dot(x[0], x[1]) ** 2
def so_einsum(x): return np.sum(np.einsum("ij,kj->ik", x, x) ** 2) + np.einsum("ii", x[:, :3]) ** 3
def so_transpose(x): return np.sum(np.transpose(x.reshape(2, 2, 3), (2, 0, 1)) ** 3 * x[:2, :1])
def so_clip(x): return np.sum(np.clip(x, -0.5, 0.5) ** 3 + np.maximum(x, 0.1) ** 2)
def so_where(x): return np.sum(np.where(x > 0, x ** 3, np.sin(x)))
def so_moments(x): return np.var(x, axis=0).sum() * np.std(x) + np.mean(x ** 3, axis=1).sum()
def so_extremum(x): return np.max(x ** 2, axis=1).sum() * np.min(x)
def so_indexing(x): return np.sum(x[[0, 2, 2]] ** 3) * np.sum(x[::-1, 1] ** 2) + x[1, -1] ** 3
def so_softmax(x):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return -np.sum(p * np.log(p) * np.arange(4.0))
def so_ufuncs(x): return np.sum(np.tanh(x) * np.log1p(x ** 2) + np.arctan2(x, 2.0) * np.sqrt(x + 3))


_KEEP_ALIVE = []      # see test_closures_get_their_own_derivatives: a freed closure's cell ids
                      # are reused, and s2s_ad's cache would hand back a stale derivative


def _gradient_probe(fn, w):
    """`x -> sum(grad(fn)(x) * w)`: a scalar function whose gradient is Hessian(fn) @ w."""
    df = ad.grad(fn).as_function()

    def probe(x):
        return np.sum(df(x) * w)
    _KEEP_ALIVE.append(probe)
    return probe


SECOND_ORDER = [
    (so_prod, Arg("away", (3, 4))), (so_prod, Arg("zeros", (3, 4))), (so_norm, normal(5)),
    (so_norm_p, Arg("distinct", (5,))), (so_norm_flat, Arg("distinct", (5,))),
    (so_norm_matrix, normal(3, 4)), (so_norm_matrix_flat, Arg("distinct", (3, 4))),
    (so_reshape, normal(3, 4)), (so_ravel, normal(3, 4)), (so_dot, normal(4, 3)),
    (so_einsum, normal(3, 4)), (so_transpose, normal(3, 4)), (so_clip, Arg("clip_x", (3, 4))),
    (so_where, Arg("away", (3, 4))), (so_moments, normal(3, 4)),
    (so_extremum, Arg("distinct", (3, 4))),
    (so_indexing, normal(3, 4)), (so_softmax, normal(3, 4)), (so_ufuncs, normal(3, 4)),
]


@pytest.mark.parametrize("fn, make", SECOND_ORDER,
                         ids=[f"{f.__name__}({m!r})" for f, m in SECOND_ORDER])
def test_second_order(fn, make):
    rng = np.random.default_rng(zlib.crc32(fn.__name__.encode()))
    x = make(rng)
    w = rng.standard_normal(np.shape(x))
    probe = _gradient_probe(fn, w)
    expected = numerical_grad(probe, [x], 0)
    with np.errstate(divide="raise", invalid="raise", over="raise"):
        reverse_over_reverse = ad.grad(probe)(x)
        forward_over_reverse = ad.hvp(fn)(x, vector=w)
    assert_close(reverse_over_reverse, expected, rtol=1e-5, atol=1e-6)
    assert_close(forward_over_reverse, expected, rtol=1e-5, atol=1e-6)


def power_of(k):
    def f(x):
        return x ** k
    return f


def test_closures_get_their_own_derivatives():
    for k in range(2, 12):
        assert_close(ad.grad(power_of(k))(1.5), k * 1.5 ** (k - 1))


def spectral_norm(x): return np.linalg.norm(x, 2)


def test_second_derivative_of_spectral_norm_forward_over_reverse_not_reverse_over_reverse():
    """hvp goes through the SVD's tangent; grad of grad would need its transpose: refused."""
    x = np.random.default_rng(5).standard_normal((3, 4))
    v = np.random.default_rng(6).standard_normal((3, 4))
    gradient = ad.grad(spectral_norm)
    assert_close(gradient(x), numerical_grad(spectral_norm, [x], 0))
    assert_close(ad.hvp(spectral_norm)(x, vector=v),
                 (gradient(x + 1e-5 * v) - gradient(x - 1e-5 * v)) / 2e-5, rtol=1e-6, atol=1e-7)
    with pytest.raises(NotImplementedError, match="grad of grad"):
        ad.grad(_gradient_probe(spectral_norm, v))(x)


# ---------------------------------------------------------------------------------------------
# behaviours around the rules
# ---------------------------------------------------------------------------------------------
def squared_sum(x): return np.sum(x ** 2)
def cubed_sum(x): return np.sum(x ** 3)
def power_sum(x): return np.sum(np.power(x, 2))
def squared_float_sum(x): return np.sum(x ** 2.0 + x ** -2)


@pytest.mark.parametrize("fn, derivative", [
    (squared_sum, lambda x: 2 * x), (cubed_sum, lambda x: 3 * x ** 2),
    (power_sum, lambda x: 2 * x), (squared_float_sum, lambda x: 2 * x - 2 * x ** -3)])
def test_constant_exponent_never_takes_log_of_base(fn, derivative):
    x = np.array([-2.0, -0.5, -1.25, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            g = ad.grad(fn)(x)
    assert np.all(np.isfinite(g))
    assert_close(g, derivative(x))
    assert_close(g, numerical_grad(fn, [x], 0))
    assert "log" not in ad.source(ad.grad(fn))


def loss32(x, W):
    h = np.tanh(x @ W)
    return np.sum(h ** 2) / h.size + np.max(x) - np.mean(np.sqrt(np.abs(W)))
def softmax_entropy(x):
    e = np.exp(x - np.max(x, axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return -np.sum(p * np.log(p))
def indexing32(x): return np.sum(x[[0, 2, 2]] * x[::-1][:3] + x[x > 0].sum())
def einsum32(a, b): return np.einsum("ij,jk->", a, b) + np.linalg.norm(a)


@pytest.mark.parametrize("fn, makers", [
    (loss32, [Arg("distinct", (3, 4)), Arg("away", (4, 2))]),
    (softmax_entropy, [normal(3, 4)]),
    (indexing32, [Arg("away", (5,))]),
    (einsum32, [normal(3, 4), normal(4, 2)]),
    (np_where, [Arg("away", (3, 4)), normal(4)]),
    (normalize_rows, [Arg("pos", (3, 4))]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_float32_in_float32_out(fn, makers):
    rng = np.random.default_rng(7)
    args = [m(rng) for m in makers]
    args32 = [a.astype(np.float32) for a in args]
    wrt = tuple(range(len(args)))
    seed = rng.standard_normal(np.shape(fn(*args))).astype(np.float32)
    value, grads = ad.vjp(fn, wrt=_wrt(wrt))(*args32, seed=seed)
    grads = grads if len(wrt) > 1 else (grads,)
    assert np.asarray(value).dtype == np.float32
    for k, g in enumerate(grads):
        assert g.dtype == np.float32, f"gradient {k} is {g.dtype}"
        expected = numerical_vjp(fn, [a.astype(np.float64) for a in args32], k,
                                 seed.astype(np.float64))
        assert_close(g, expected, rtol=2e-3, atol=2e-4)


def scalar_poly(x): return np.sin(x) * x + x ** 3 / 3.0
def scalar_poly_derivative(x): return np.cos(x) * x + np.sin(x) + x ** 2


@pytest.mark.parametrize("x, kind", [
    (0.7, float), (np.float64(0.7), float), (np.float32(0.7), np.float32),
    (np.array(0.7), np.ndarray), (np.array(0.7, dtype=np.float32), np.ndarray)])
def test_scalar_inputs(x, kind):
    g = ad.grad(scalar_poly)(x)
    assert isinstance(g, kind)
    assert np.asarray(g).dtype == np.asarray(x).dtype
    assert np.shape(g) == ()
    tolerance = 1e-5 if np.asarray(x).dtype == np.float32 else 1e-12
    assert_close(g, scalar_poly_derivative(float(x)), rtol=tolerance)


def scalar_then_array(s, x): return np.sum(np.exp(s * x) + s)


def test_python_float_and_array_mixed():
    x = np.array([0.1, -0.4, 0.3])
    gs, gx = ad.grad(scalar_then_array, wrt=(0, 1))(0.5, x)
    assert isinstance(gs, float)
    assert_close(gs, numerical_grad(scalar_then_array, [0.5, x], 0))
    assert_close(gx, numerical_grad(scalar_then_array, [0.5, x], 1))


def elementwise(x): return np.sin(x) * x


def test_grad_of_non_scalar_output_names_shape_and_vjp():
    with pytest.raises(TypeError) as info:
        ad.grad(elementwise)(np.ones((3, 4)))
    message = str(info.value)
    assert "(3, 4)" in message and "vjp" in message and "seed" in message


def test_vjp_with_non_trivial_seed():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 4))
    seed = rng.standard_normal((3, 4))
    value, g = ad.vjp(elementwise)(x, seed=seed)
    assert_close(value, np.sin(x) * x)
    assert_close(g, seed * (np.cos(x) * x + np.sin(x)), rtol=1e-12)
    assert_close(g, numerical_vjp(elementwise, [x], 0, seed))
    with pytest.raises(ValueError, match="seed"):
        ad.vjp(elementwise)(x, seed=np.ones(4))


def max_of(x): return np.max(x)
def maximum_of(x, y): return np.sum(np.maximum(x, y))


def test_ties_share_the_adjoint_as_central_differences_do():
    """At a two-way tie a central difference sees half the slope on each side; so do we."""
    x = np.array([1.0, 3.0, -2.0, 3.0])
    assert_close(ad.grad(max_of)(x), numerical_grad(max_of, [x], 0))
    assert_close(ad.grad(max_of)(x), [0.0, 0.5, 0.0, 0.5])
    y = np.array([1.0, 2.0, -2.0, 5.0])
    gx, gy = ad.grad(maximum_of, wrt=(0, 1))(x, y)
    assert_close(gx, numerical_grad(maximum_of, [x, y], 0))
    assert_close(gy, numerical_grad(maximum_of, [x, y], 1))


def test_one_element_wrt_tuple_gives_a_tuple():
    grads = ad.grad(squared_sum, wrt=(0,))(np.array([1.0, 2.0]))
    assert isinstance(grads, tuple) and len(grads) == 1
    assert_close(grads[0], [2.0, 4.0])


RULE_MODULES = ("operators", "ufuncs", "elementwise", "reductions", "shapes", "linalg", "runtime_helpers")
TABLES = [test_binary, test_operators, test_unary, test_selection, test_math_scalars,
          test_reduction, test_moments, test_reduction_literals, test_norm, test_products,
          test_einsum, test_shapes, test_indexing, test_runtime_helpers]


def test_every_adjoint_in_the_templates_has_a_row(monkeypatch):
    """A rule added to templates/ without a row in the tables above fails here."""
    rows = [p.values[0] for table_test in TABLES
            for mark in table_test.pytestmark if mark.name == "parametrize"
            for p in mark.args[1]]
    used = set()
    lookup = rules.adjoint_rule

    def spy(primal):
        rule = lookup(primal)
        if rule is not None:
            used.add(id(rule))
        return rule

    monkeypatch.setattr(rules, "adjoint_rule", spy)
    ad.clear_cache()
    try:
        for row in rows:
            ad.source(ad.vjp(row.fn, wrt=_wrt(row.wrt)))
    finally:
        ad.clear_cache()
    modules = {f"s2s_ad.templates.{name}" for name in RULE_MODULES}
    untested = sorted({getattr(key, "__name__", None) or repr(key)
                       for key, rule in rules.ADJOINTS.items()
                       if rule.template.__module__ in modules and id(rule) not in used})
    assert not untested, f"rules without a finite-difference row: {untested}"


def _core_params():
    """The rows of the core tables, with their marks, as pytest params."""
    return [p for table_test in TABLES for mark in table_test.pytestmark
            if mark.name == "parametrize" for p in mark.args[1]]


@pytest.mark.parametrize("row", _core_params())
def test_core_tangents(row):
    """Forward mode on every core row: the tangent rule checked directly, not only through
    a program that happens to use it."""
    check_tangent_row(row)


@pytest.mark.parametrize("row", _core_params())
def test_vjp_and_jvp_are_transposes(row):
    """<seed, J v> == <J^T seed, v>: the adjoint and the tangent of a rule describe one
    linear map, whatever finite differences can resolve."""
    rng = np.random.default_rng(zlib.crc32(("dot " + row.id).encode()))
    args = [make(rng) for make in row.args]
    value = row.fn(*args)
    seeds = [rng.standard_normal(np.shape(v)) for v in _flat_parts(value)]
    seed = tuple(seeds) if isinstance(value, tuple) else seeds[0]
    seed = float(seed) if np.ndim(value) == 0 and not isinstance(value, tuple) else seed
    directions = [_direction(rng, args[k]) for k in row.wrt]
    tangent = directions[0] if len(row.wrt) == 1 else tuple(directions)
    _, t = ad.jvp(row.fn, wrt=_wrt(row.wrt))(*args, tangent=tangent)
    _, grads = ad.vjp(row.fn, wrt=_wrt(row.wrt))(*args, seed=seed)
    grads = grads if len(row.wrt) > 1 else (grads,)
    forward = sum(float(np.sum(s * part)) for s, part in zip(seeds, _flat_parts(t)))
    reverse = sum(float(np.sum(np.asarray(g) * v)) for g, v in zip(grads, directions))
    assert_close(forward, reverse, rtol=1e-9, atol=1e-10)


# Re <seed, fn(...)>, the scalar a second-order check differentiates twice, one per arity (a
# *args parameter would be differentiated as one tuple; the real part: eig's values are complex
# since NumPy 2.5)
def seeded_sum_1(fn, seed, a): return np.real(np.sum(fn(a) * seed))
def seeded_sum_2(fn, seed, a, b): return np.real(np.sum(fn(a, b) * seed))
def seeded_sum_3(fn, seed, a, b, c): return np.real(np.sum(fn(a, b, c) * seed))
def seeded_sum_4(fn, seed, a, b, c, e): return np.real(np.sum(fn(a, b, c, e) * seed))
def seeded_sum_5(fn, seed, a, b, c, e, f): return np.real(np.sum(fn(a, b, c, e, f) * seed))
def seeded_sum_6(fn, seed, a, b, c, e, f, g): return np.real(np.sum(fn(a, b, c, e, f, g) * seed))


SEEDED_SUMS = [None, seeded_sum_1, seeded_sum_2, seeded_sum_3, seeded_sum_4, seeded_sum_5,
               seeded_sum_6]


def _autograd_version(fn):
    """`fn` with `np` bound to autograd.numpy: a first derivative s2s_ad had no part in."""
    anp = importlib.import_module("autograd.numpy")
    return types.FunctionType(fn.__code__, {**fn.__globals__, "np": anp}, fn.__name__,
                              fn.__defaults__, fn.__closure__)


# Rows where autograd's own gradient is wrong or differently defined, so central differences
# give the independent first derivative instead: np.where with broadcast branches (autograd
# leaves the adjoint unsummed), the inf-norm (nan), np.outer and transposes with negative axes
# (wrong shapes), integer casts (autograd differentiates through them), np.full_like's fill
# value (a constant to autograd)
AUTOGRAD_DIFFERS = {"np_where", "norm_ord", "np_outer", "transpose_negative_axes", "astype_int",
                    "np_array_int", "full_like_value"}


def _independent_gradient(fn, k, seed, by_autograd=True):
    """d<seed, fn(*args)>/d args[k] from autograd where it is right, else central differences."""
    def scalar(*args):
        return np.sum(np.asarray(fn(*args)) * seed)

    def by_differences(*args):
        return numerical_grad(scalar, args, k, eps=1e-5)

    try:
        import autograd
    except ImportError:
        return by_differences
    if fn.__name__ in AUTOGRAD_DIFFERS or not by_autograd:
        return by_differences
    by_autograd = autograd.grad(
        lambda *a: autograd.numpy.sum(_autograd_version(fn)(*a) * seed), k)

    def gradient(*args):
        try:
            return np.asarray(by_autograd(*args), dtype=np.float64)
        except Exception:         # no autograd rule for this function: central differences
            return by_differences(*args)
    return gradient


KNOWN_SECOND_ORDER_GAPS = {}


def _second_order_params():
    params = []
    for p in _core_params():
        row = p.values[0]
        if row.fn.__name__.startswith("rt_"):
            continue            # runtime helpers are reached through the rules that call them
        gap = KNOWN_SECOND_ORDER_GAPS.get(row.id)
        params.append(pytest.param(row, id=p.id, marks=[*p.marks, gap] if gap else p.marks))
    return params


@pytest.mark.parametrize("row", _second_order_params())
def test_core_second_order(row):
    check_second_order_row(row)


def check_second_order_row(row, by_autograd=True):
    """hvp (forward over the generated gradient) of <seed, fn> against central differences
    of an independent gradient (autograd's unless `by_autograd` is False, else central
    differences), along a random direction in the first differentiated argument."""
    rng = np.random.default_rng(zlib.crc32(("hvp " + row.id).encode()))
    args = [make(rng) for make in row.args]
    value = row.fn(*args)
    seed = tuple(rng.standard_normal(np.shape(v)) for v in value) if isinstance(value, tuple) \
        else rng.standard_normal(np.shape(value))
    k = row.wrt[0]
    direction = _direction(rng, args[k])
    gradient = _independent_gradient(row.fn, k, seed, by_autograd)

    def gradient_at(step):
        shifted = list(args)
        shifted[k] = args[k] + step * direction
        return gradient(*shifted)

    expected = (gradient_at(1e-4) - gradient_at(-1e-4)) / 2e-4
    seeded_sum = SEEDED_SUMS[len(args)]
    actual = ad.hvp(seeded_sum, wrt=2 + k)(row.fn, seed, *args, vector=direction)
    assert_close(actual, expected, rtol=max(row.rtol, 1e-5), atol=max(row.atol, 1e-5))


# ---------------------------------------------------------------------------------------------
# optional: an independent AD oracle, where one is installed
# ---------------------------------------------------------------------------------------------
AUTOGRAD_ROWS = [
    Row(loss32, Arg("distinct", (3, 4)), Arg("away", (4, 2))),
    Row(softmax_entropy, normal(3, 4)), Row(normalize_rows, Arg("pos", (3, 4))),
    Row(np_matmul, normal(2, 3, 4), normal(4, 5)),
    Row(einsum2, Const("...ij,...jk->...ik"), normal(2, 3, 4), normal(4, 5)),
    Row(index_pairs_repeated, normal(3, 4)), Row(np_std, normal(2, 3, 4), Const(1),
                                                 Const(True), Const(1)),
]


@pytest.mark.parametrize("row", table(*AUTOGRAD_ROWS))
def test_against_autograd(row):
    autograd = importlib.import_module("autograd")
    anp = importlib.import_module("autograd.numpy")
    fn = types.FunctionType(row.fn.__code__, {**row.fn.__globals__, "np": anp})
    rng = np.random.default_rng(11)
    args = [make(rng) for make in row.args]
    seed = rng.standard_normal(np.shape(row.fn(*args)))
    _, grads = ad.vjp(row.fn, wrt=_wrt(row.wrt))(*args, seed=seed)
    grads = grads if len(row.wrt) > 1 else (grads,)
    for k, g in zip(row.wrt, grads):
        reference = autograd.make_vjp(fn, k)(*args)[0](seed)
        assert_close(g, reference, rtol=1e-9, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# builtins max/min, cumulative sums, joins, repeats, tiles, traces, triangles, take and sort,
# average, np.linalg's inv/det/slogdet/solve, tensordot/inner/kron, np.pad, item() and integer
# casts: every row is checked in reverse mode (check_row) and in forward mode (check_tangent_row)
# ---------------------------------------------------------------------------------------------
def _direction(rng, value):
    if isinstance(value, float):
        return float(rng.standard_normal())
    return rng.standard_normal(np.shape(value))


def _flat_parts(value):
    """A result (an array, a number or a tuple of them, as np.linalg.slogdet gives) as a list."""
    if isinstance(value, tuple):
        return [np.asarray(v, dtype=np.float64) for v in value]
    return [np.asarray(value, dtype=np.float64)]


def check_tangent_row(row, eps=1e-6):
    """jvp of `row` along random directions against a central difference of `row.fn`."""
    rng = np.random.default_rng(zlib.crc32(("jvp " + row.id).encode()))
    args = [make(rng) for make in row.args]
    directions = [_direction(rng, args[k]) for k in row.wrt]

    def moved(step):
        shifted = list(args)
        for k, v in zip(row.wrt, directions):
            shifted[k] = args[k] + step * v
            if isinstance(args[k], float):
                shifted[k] = float(shifted[k])
        return _flat_parts(row.fn(*shifted))

    tangent = directions[0] if len(row.wrt) == 1 else tuple(directions)
    with np.errstate(divide="raise", invalid="raise", over="raise"):
        value, t = ad.jvp(row.fn, wrt=_wrt(row.wrt))(*args, tangent=tangent)
    for v, expected in zip(_flat_parts(value), _flat_parts(row.fn(*args))):
        assert_close(v, expected, rtol=1e-12, atol=0)
    for part, up, down in zip(_flat_parts(t), moved(eps), moved(-eps)):
        assert_close(part, (up - down) / (2 * eps), rtol=max(row.rtol, 1e-5),
                     atol=max(row.atol, 1e-6))


def builtin_max(a, b): return max(a, b)
def builtin_min(a, b): return min(a, b)
def builtin_max3(a, b, c): return max(a, b, c) * min(c, b, a)
def builtin_max_entries(x): return max(x[0], x[1]) * min(x[2], 2.0 * x[0])
def builtin_max_list(x): return max([x[0], 2.0 * x[1], x[2]]) - min([x[1], x[2]])
def builtin_max_vector(x): return max(x) + 2.0 * min(x)
def np_cumsum(x, axis): return np.cumsum(x, axis=axis)
def cumsum_method(x): return x.cumsum()
def cumsum_method_axis(x): return x.cumsum(-1)
def np_hstack(x, y): return np.hstack([x, y])
def np_vstack(x, y): return np.vstack((x, y))
def np_column_stack(x, y): return np.column_stack([x, y])
def np_dstack(x, y): return np.dstack([x, y])
def hstack_scalar(s, x): return np.hstack([s, x * s, 2.0])
def np_repeat(x, repeats, axis): return np.repeat(x, repeats, axis=axis)
def repeat_flat(x): return np.repeat(x, 2)
def repeat_method(x): return x.repeat(3, axis=0)
def repeat_method_flat(x): return x.repeat([1, 0, 2, 1])
def np_tile(x, reps): return np.tile(x, reps)
def np_trace(x, offset, axis1, axis2): return np.trace(x, offset, axis1, axis2)
def trace_default(x): return np.trace(x)
def trace_method(x): return x.trace()
def trace_method_axes(x): return x.trace(offset=-1, axis1=1, axis2=2)
def np_tril(x, k): return np.tril(x, k)
def np_triu(x, k): return np.triu(x, k)
def tril_default(x): return np.tril(x)
def triu_default(x): return np.triu(x)
def np_take(x, indices, axis): return np.take(x, indices, axis=axis)
def take_mode(x, indices, axis, mode): return np.take(x, indices, axis, mode=mode)
def take_method(x): return x.take([1, 1, 0], axis=0)
def take_method_flat(x): return x.take(np.array([[5, 0], [5, -1]]))
def np_take_along_axis(x, indices, axis): return np.take_along_axis(x, indices, axis=axis)
def take_along_argsort(x): return np.take_along_axis(x, np.argsort(x, axis=0), axis=0) * x
def np_sort(x, axis): return np.sort(x, axis=axis)
def builtin_sorted(x, reverse): return np.stack(sorted(x, reverse=reverse))
def builtin_sorted_by_key(x): return np.stack(sorted([x[0], 2.0 * x[1], x[2]], key=abs))
def sort_default(x): return np.sort(x)
def sort_stable(x): return np.sort(x, axis=0, kind="stable") * np.arange(4.0)
def average_plain(x): return np.average(x)
def np_average(x, axis, weights, keepdims):
    return np.average(x, axis=axis, weights=weights, keepdims=keepdims)
def average_weighted(x, w, axis): return np.average(x, axis, w)
def _shifted(x): return x + 3.0 * np.eye(x.shape[-1])
def linalg_inv(x): return np.linalg.inv(_shifted(x))
def linalg_det(x): return np.linalg.det(_shifted(x))
def linalg_det_signed(x): return np.linalg.det(x - 3.0 * np.eye(x.shape[-1]))
def linalg_slogdet(x):
    sign, logdet = np.linalg.slogdet(x - 3.0 * np.eye(x.shape[-1]))
    return sign * logdet
def linalg_slogdet_index(x): return np.linalg.slogdet(_shifted(x))[1]
def linalg_solve(a, b): return np.linalg.solve(_shifted(a), b)
def np_tensordot(a, b, axes): return np.tensordot(a, b, axes)
def tensordot_default(a, b): return np.tensordot(a, b)
def np_inner(a, b): return np.inner(a, b)
def np_kron(a, b): return np.kron(a, b)
def np_pad(x, pad_width): return np.pad(x, pad_width)
def pad_constant(x, pad_width, c): return np.pad(x, pad_width, "constant", constant_values=c)
def pad_positional_mode(x): return np.pad(x, ((1, 0), (2, 3)), "constant")
def pad_mode_keyword(x): return np.pad(x, ((0, 1), (2, 0)), mode="constant")
def item_all(x): return x.item() * x
def item_flat(x): return x.item(5) * x
def item_pair(x): return x.item(1, 2) * x.item((2, 0)) + x.item(-1)
def int_casts(x): return np.int64(x[0]) * x + np.int32(x[1]) + np.intp(x[2])


IDX = Const(np.array([[0, 2], [2, 1], [1, 1]]), "idx[3,2]")
MORE_ROWS = [
    Row(builtin_max, Arg("grid_a"), Arg("grid_b")), Row(builtin_max, Arg("grid_b"), Arg("grid_a")),
    Row(builtin_min, Arg("grid_a"), Arg("grid_b")), Row(builtin_min, Arg("grid_b"), Arg("grid_a")),
    Row(builtin_max, Arg("grid_a"), Const(0.0)),
    Row(builtin_max3, Arg("grid_a"), Arg("grid_b"), Arg("grid_a")),
    Row(builtin_max_entries, Arg("distinct", (3,))), Row(builtin_max_list, Arg("distinct", (3,))),
    Row(builtin_max_vector, Arg("distinct", (5,))),
    *[Row(np_cumsum, normal(*shape), Const(axis)) for shape, axis in [
        ((5,), None), ((3, 4), None), ((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((2, 3, 4), -2),
        ((2, 3, 4), None)]],
    Row(cumsum_method, normal(3, 4)), Row(cumsum_method_axis, normal(2, 3, 4)),
    *[Row(fn, normal(*sx), normal(*sy)) for fn, sx, sy in [
        (np_hstack, (3,), (4,)), (np_hstack, (2, 3), (2, 1)), (np_hstack, (), (3,)),
        (np_hstack, (2, 1, 3), (2, 2, 3)), (np_vstack, (3,), (3,)), (np_vstack, (2, 3), (1, 3)),
        (np_vstack, (3,), (2, 3)), (np_vstack, (), ()), (np_column_stack, (3,), (3,)),
        (np_column_stack, (3,), (3, 2)), (np_dstack, (3, 4), (3, 4)), (np_dstack, (2,), (2,)),
        (np_dstack, (2, 3), (2, 3, 2))]],
    Row(hstack_scalar, normal(), normal(3)),
    *[Row(np_repeat, normal(*shape), Const(repeats), Const(axis)) for shape, repeats, axis in [
        ((3, 4), 2, None), ((3, 4), 3, 1), ((3, 4), [1, 0, 2], 0), ((3, 4), [2, 1, 1, 3], -1),
        ((3, 4), np.array([2]), 0), ((2, 3, 4), 2, -2), ((4,), [0, 1, 2, 3], None)]],
    Row(repeat_flat, normal(2, 3)), Row(repeat_method, normal(3, 4)),
    Row(repeat_method_flat, normal(2, 2)),
    *[Row(np_tile, normal(*shape), Const(reps)) for shape, reps in [
        ((3,), 2), ((3, 4), (2, 3)), ((3, 4), (2, 1, 2)), ((2, 3), 2), ((2, 1, 3), (3, 1)),
        ((), 3), ((3,), [2, 2])]],
    *[Row(np_trace, normal(*shape), Const(offset), Const(a1), Const(a2))
      for shape, offset, a1, a2 in [((3, 4), 0, 0, 1), ((3, 4), 1, 0, 1), ((4, 3), -2, 0, 1),
                                    ((2, 3, 4), -1, 1, 2), ((2, 3, 4), 1, -1, 0)]],
    Row(trace_default, normal(3, 3)), Row(trace_method, normal(3, 4)),
    Row(trace_method_axes, normal(2, 3, 3)),
    *[Row(fn, normal(*shape), Const(k)) for fn in (np_tril, np_triu)
      for shape, k in [((4, 4), 0), ((3, 4), 1), ((4, 3), -1), ((2, 3, 3), 0), ((4,), 0),
                       ((4,), -1)]],
    Row(tril_default, normal(3, 4)), Row(triu_default, normal(4, 3)),
    *[Row(np_take, normal(*shape), Const(indices, label), Const(axis))
      for shape, indices, label, axis in [
          ((3, 4), [0, 2, 2, -1], None, None), ((3, 4), IDX.value, "idx[3,2]", 1),
          ((3, 4), [1, -1, 1], None, -1), ((3, 4), 5, None, None), ((3, 4), 2, None, 0),
          ((2, 3, 4), IDX.value, "idx[3,2]", 1), ((5,), [4, 4, 0], None, 0)]],
    Row(take_mode, normal(3, 4), Const([5, -7, 1]), Const(0), Const("wrap")),
    Row(take_mode, normal(3, 4), Const([5, -7, 1]), Const(1), Const("clip")),
    Row(take_mode, normal(3, 4), Const([13, 2]), Const(None), Const("wrap")),
    Row(take_method, normal(3, 4)), Row(take_method_flat, normal(3, 4)),
    *[Row(np_take_along_axis, normal(*shape), Const(np.array(indices), f"idx{list(np.shape(indices))}"),
          Const(axis)) for shape, indices, axis in [
              ((3, 4), [[0, 3], [1, 1], [2, 0]], 1), ((3, 4), [[2, 0, 1, 1], [0, 0, 2, 1]], 0),
              ((3, 4), [[3, 3]], -1), ((3, 4), [11, 0, 5, 5], None),
              ((2, 3, 4), [[[0], [2], [1]], [[1], [1], [0]]], 1)]],
    Row(take_along_argsort, Arg("distinct", (3, 4))),
    Row(builtin_sorted, Arg("distinct", (5,)), Const(False)),
    Row(builtin_sorted, Arg("distinct", (4,)), Const(True)),
    Row(builtin_sorted_by_key, Arg("distinct", (3,))),
    *[Row(np_sort, Arg("distinct", shape), Const(axis)) for shape, axis in [
        ((5,), -1), ((3, 4), -1), ((3, 4), 0), ((3, 4), None), ((2, 3, 4), 1)]],
    Row(sort_default, Arg("distinct", (3, 4))), Row(sort_stable, Arg("distinct", (3, 4))),
    Row(average_plain, normal(3, 4)),
    *[Row(np_average, normal(*shape), Const(axis), weights, Const(keepdims))
      for shape, axis, weights, keepdims in [
          ((3, 4), None, Const(None), False), ((3, 4), 1, Const(None), True),
          ((3, 4), -1, Const(np.array([1.0, 2.0, 0.5, 3.0]), "w[4]"), False),
          ((3, 4), 0, Arg("pos", (3,)), True), ((3, 4), None, Arg("pos", (3, 4)), False),
          ((2, 3, 4), (0, 2), Arg("pos", (2, 3, 4)), False), ((2, 3, 4), 1, Arg("pos", (3,)), False)]],
    Row(average_weighted, normal(3, 4), Arg("pos", (4,)), Const(1)),
    Row(linalg_inv, normal(3, 3)), Row(linalg_inv, normal(2, 3, 3)),
    Row(linalg_det, normal(3, 3)), Row(linalg_det, normal(2, 3, 3)),
    Row(linalg_det_signed, normal(3, 3)), Row(linalg_slogdet, normal(3, 3)),
    Row(linalg_slogdet, normal(2, 3, 3)), Row(linalg_slogdet_index, normal(3, 3)),
    *[Row(linalg_solve, normal(*sa), normal(*sb)) for sa, sb in [
        ((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (3,)), ((2, 3, 3), (2, 3, 2)),
        ((3, 3), (2, 3, 2)), ((2, 3, 3), (3, 1))]],
    *[Row(np_tensordot, normal(*sa), normal(*sb), Const(axes)) for sa, sb, axes in [
        ((2, 3, 4), (3, 4, 5), 2), ((3, 4), (4, 5), 1), ((3, 4, 2), (4, 3, 5), ([1, 0], [0, 1])),
        ((3,), (4,), 0), ((3, 4), (2, 4), ([-1], [1])), ((3, 4), (3, 4), ((0, 1), (0, 1))),
        ((2, 3), (3, 2), (1, 0))]],
    Row(tensordot_default, normal(2, 3, 4), normal(3, 4)),
    *[Row(np_inner, normal(*sa), normal(*sb)) for sa, sb in [
        ((4,), (4,)), ((3, 4), (4,)), ((2, 3, 4), (5, 4)), ((), (3,)), ((2, 3), ())]],
    *[Row(np_kron, normal(*sa), normal(*sb)) for sa, sb in [
        ((2,), (3,)), ((2, 3), (2, 2)), ((2,), (2, 3)), ((2, 2, 1), (3,)), ((), (3,))]],
    *[Row(np_pad, normal(*shape), Const(width)) for shape, width in [
        ((3, 4), 1), ((3, 4), ((1, 0), (2, 3))), ((4,), (1, 2)), ((2, 3, 2), ((0, 1),)),
        ((2, 3), [[2], [1]])]],
    *[Row(pad_constant, normal(*shape), Const(width), value) for shape, width, value in [
        ((3, 4), 1, normal()), ((3, 4), ((1, 2), (0, 1)), normal(2)),
        ((3, 4), 2, normal(2, 2)), ((2, 3), (1, 1), normal(1, 2)), ((4,), (2, 1), normal(1)),
        ((3, 4), 1, Const(0.5))]],
    Row(pad_mode_keyword, normal(3, 4)),
    Row(item_all, normal(1, 1)), Row(item_flat, normal(3, 4)), Row(item_pair, normal(3, 4)),
    Row(int_casts, Arg("pos", (3,))),
]


@pytest.mark.parametrize("row", table(*MORE_ROWS))
def test_more_rules(row):
    check_row(row)


@pytest.mark.parametrize("row", table(*MORE_ROWS))
def test_more_tangents(row):
    check_tangent_row(row)


def ties_of_max(a, b): return max(a, b) - min(a, b) * 2.0


def test_builtin_max_and_min_share_ties_like_np_maximum():
    for a in (1.5, np.float64(1.5)):
        assert_close(ad.grad(ties_of_max, wrt=(0, 1))(a, a), (-0.5, -0.5))
        assert_close(ad.grad(builtin_max, wrt=(0, 1))(a, a),
                     ad.grad(maximum_of, wrt=(0, 1))(np.array(a), np.array(a)))
        assert_close(ad.jvp(ties_of_max, wrt=(0, 1))(a, a, tangent=(1.0, 0.0))[1], -0.5)


def rt_pick_grad(g, z, x, args): return runtime.pick_grad(g, z, x, args)
def rt_unpick(u, z, x, args): return runtime.unpick(u, z, x, args)
def rt_uncumsum(g, x, axis): return runtime.uncumsum(g, x, axis)
def rt_unrepeat(g, a, repeats, axis): return runtime.unrepeat(g, a, repeats, axis)
def rt_untile(g, a, reps): return runtime.untile(g, a, reps)
def rt_undiag(g, v, k): return runtime.undiag(g, v, k)
def rt_undiagonal(g, a, offset, a1, a2): return runtime.undiagonal(g, a, offset, a1, a2)
def rt_average_weights(a, axis, weights): return runtime.average_weights(a, axis, weights)
def rt_unweight(g, weights, axis): return runtime.unweight(g, weights, axis)
def rt_pad_value_grad(g, x, width, values): return runtime.pad_value_grad(g, x, width, values)
def rt_pad_values(values, x, width): return runtime.pad_values(values, x, width)
def rt_unjoin(g, xs, kind): return np.sum(runtime.unjoin(g, xs, kind)[1] ** 2)
def rt_rejoin(u, v, xs, kind): return runtime.rejoin([u, None, v], xs, kind)


ZEROS = {shape: Const(np.zeros(shape), f"zeros{list(shape)}")
         for shape in [(3, 4), (4,), (2, 3, 4), (3,), (4, 4), (2, 3), (1, 2), (2, 2)]}
MORE_RUNTIME_ROWS = [
    Row(rt_pick_grad, normal(), Const(2.0), Const(2.0), Const((2.0, 1.0))),
    Row(rt_pick_grad, normal(), Const(2.0), Const(2.0), Const((2.0, 1.0, 2.0))),
    Row(rt_pick_grad, normal(), Const(2.0), Const(np.array([1.0, 2.0, 0.0]), "x[3]"),
        Const((np.array([1.0, 2.0, 0.0]),), "(x[3],)")),
    Row(rt_unpick, normal(), Const(2.0), Const(2.0), Const((2.0, 2.0))),
    Row(rt_unpick, normal(3), Const(2.0), Const(np.array([1.0, 2.0, 2.0]), "x[3]"),
        Const((np.array([1.0, 2.0, 2.0]),), "(x[3],)")),
    Row(rt_unjoin, normal(3, 9), Const([np.zeros((3, 4)), np.zeros((3, 2)), np.zeros((3, 3))],
                                       "[zeros[3,4],zeros[3,2],zeros[3,3]]"), Const("h")),
    Row(rt_unjoin, normal(3, 2, 3), Const([np.zeros((3, 2)), np.zeros((3, 2, 2))],
                                          "[zeros[3,2],zeros[3,2,2]]"), Const("d")),
    Row(rt_rejoin, normal(3), normal(2, 3), Const([np.zeros(3), np.zeros(3), np.zeros((2, 3))],
                                                 "[zeros[3],zeros[3],zeros[2,3]]"), Const("v")),
    Row(rt_rejoin, normal(), normal(), Const([0.0, np.zeros(2), 0.0], "[0.0,zeros[2],0.0]"),
        Const("h")),
    Row(rt_rejoin, normal(3), normal(3, 2), Const([np.zeros(3), np.zeros(3), np.zeros((3, 2))],
                                                 "[zeros[3],zeros[3],zeros[3,2]]"), Const("column")),
    Row(rt_uncumsum, normal(12), ZEROS[(3, 4)], Const(None)),
    Row(rt_uncumsum, normal(3, 4), ZEROS[(3, 4)], Const(-1)),
    Row(rt_unrepeat, normal(3, 8), ZEROS[(3, 4)], Const(2), Const(1)),
    Row(rt_unrepeat, normal(24), ZEROS[(3, 4)], Const(2), Const(None)),
    Row(rt_unrepeat, normal(3, 7), ZEROS[(3, 4)], Const([2, 0, 1, 4]), Const(-1)),
    Row(rt_untile, normal(6, 12), ZEROS[(3, 4)], Const((2, 3))),
    Row(rt_untile, normal(2, 3, 8), ZEROS[(3, 4)], Const((2, 1, 2))),
    Row(rt_undiag, normal(5, 5), ZEROS[(4,)], Const(1)),
    Row(rt_undiag, normal(3), ZEROS[(3, 4)], Const(0)),
    Row(rt_undiag, normal(2), ZEROS[(3, 4)], Const(-1)),
    Row(rt_undiagonal, normal(3), ZEROS[(3, 4)], Const(1), Const(0), Const(1)),
    Row(rt_undiagonal, normal(3, 1), ZEROS[(2, 3, 4)], Const(-1), Const(0), Const(2)),
    Row(rt_undiagonal, normal(2, 3), ZEROS[(2, 3, 4)], Const(-1), Const(2), Const(1)),
    Row(rt_undiagonal, normal(2, 1), ZEROS[(2, 3, 4)], Const(0), Const(1), Const(2)),
    Row(rt_average_weights, ZEROS[(3, 4)], Const(1), normal(4)),
    Row(rt_average_weights, ZEROS[(3, 4)], Const(None), normal(3, 4)),
    Row(rt_unweight, normal(3, 4), ZEROS[(3,)], Const(0)),
    Row(rt_unweight, normal(3, 4), ZEROS[(3, 4)], Const(None)),
    Row(rt_pad_value_grad, normal(5, 7), ZEROS[(3, 4)], Const(((1, 1), (2, 1))),
        Const(np.zeros((2, 2)), "zeros[2,2]")),
    Row(rt_pad_value_grad, normal(5, 6), ZEROS[(3, 4)], Const(1), Const(0.0)),
    Row(rt_pad_value_grad, normal(6), ZEROS[(4,)], Const((2, 0)), Const((0.0, 0.0))),
    Row(rt_pad_values, normal(2, 2), ZEROS[(3, 4)], Const(((1, 1), (2, 1)))),
    Row(rt_pad_values, normal(), ZEROS[(3, 4)], Const(1)),
    Row(rt_pad_values, normal(1, 2), ZEROS[(2, 3)], Const((1, 2))),
]


@pytest.mark.parametrize("row", table(*MORE_RUNTIME_ROWS))
def test_more_runtime_helpers(row):
    check_row(row)


@pytest.mark.parametrize("row", table(*MORE_RUNTIME_ROWS))
def test_more_runtime_helper_tangents(row):
    check_tangent_row(row)


TABLES += [test_more_rules, test_more_runtime_helpers]


# second order through the rules above and their helpers' rules
def so_builtin_max(x): return max(x[0] ** 2, x[1] * x[2]) ** 2 + min([x[2] ** 3, x[0]]) * x[1]
def so_cumsum(x): return np.sum(np.cumsum(x ** 2, axis=1) * np.cumsum(x)[:4]) + np.sum(x.cumsum() ** 3)
def so_join(x):
    joined = np.hstack([x[::-1], x ** 2])[:, 2:6] + np.vstack((x[:, ::-1], x))[1:4]
    return np.sum(joined ** 3) + np.sum(np.column_stack([x[0], x[1]]) ** 2) * np.sum(np.dstack([x, x]) ** 2)
def so_repeat_tile(x):
    return np.sum(np.repeat(x, [1, 2, 0], axis=0) ** 3) + np.sum(np.tile(x ** 2, (1, 2)) * np.repeat(x, 2, axis=1))
def so_diagonals(x):
    return (np.trace(x) ** 3 + np.trace(x ** 2, 1) ** 2
            + np.sum(np.tril(x) ** 2 * np.triu(x, 1)) + x.trace(1) * np.sum(x))
def so_take_sort(x):
    return (np.sum(np.take(x, [0, 5, 5], axis=None) ** 3) + np.sum(np.sort(x, axis=0) ** 2 * np.arange(4.0))
            + np.sum(np.take_along_axis(x, np.array([[1, 0], [3, 3], [2, 1]]), 1) ** 3)
            + np.sum(x.take([2, 2], axis=1) ** 3))
def so_average(x): return np.sum(np.average(x ** 2, axis=1, weights=x[0] ** 2) ** 2) + np.average(x) ** 3
def so_linalg(x):
    a = x[:, :3] + 3.0 * np.eye(3)
    return (np.sum(np.linalg.inv(a) ** 2) + np.linalg.det(a) ** 2 + np.linalg.slogdet(a)[1] ** 2
            + np.sum(np.linalg.solve(a, x[:, 3]) ** 2) + np.sum(np.linalg.solve(a, x[:, 1:]) ** 3))
def so_products(x):
    return (np.sum(np.tensordot(x, x, axes=([0], [0])) ** 2) + np.sum(np.inner(x, x) ** 2)
            + np.sum(np.kron(x[0], x[1:]) ** 2))
def so_pad_item(x):
    return np.sum(np.pad(x ** 2, ((1, 0), (0, 2)), constant_values=x[0, 0]) ** 2) + x.item(5) ** 3 * x.item(1, 1) ** 2


MORE_SECOND_ORDER = [
    (so_builtin_max, Arg("distinct", (3,))), (so_cumsum, normal(3, 4)),
    (so_join, normal(3, 4)), (so_repeat_tile, normal(3, 4)), (so_diagonals, normal(4, 4)),
    (so_take_sort, Arg("distinct", (3, 4))), (so_average, Arg("away", (3, 4))),
    (so_linalg, normal(3, 4)), (so_products, normal(3, 4)), (so_pad_item, normal(3, 4)),
]


@pytest.mark.parametrize("fn, make", MORE_SECOND_ORDER,
                         ids=[f"{f.__name__}({m!r})" for f, m in MORE_SECOND_ORDER])
def test_more_second_order(fn, make):
    test_second_order(fn, make)


def pad_reflect_odd(x): return np.pad(x, 1, mode="reflect", reflect_type="odd")
def max_with_key(a, b): return max(np.sin(a), b, key=abs)    # (max(a, b, key=abs) is supported)
def average_returned(x): return np.average(x, returned=True)[0]


@pytest.mark.parametrize("fn, message", [
    (pad_reflect_odd, "reflect_type='odd'"), (max_with_key, "key="),
    (average_returned, "returned=True")])
def test_more_rules_refuse_what_they_cannot_do(fn, message):
    """Refused when the derivative is built (a TransformError naming the line), not when its
    backward pass runs; tests/test_errors.py checks the location."""
    x = np.array([0.5, -1.5, 2.0]) if fn is not max_with_key else None
    args = (x,) if x is not None else (0.5, -1.5)
    wrt = 0
    with pytest.raises(TransformError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ad.vjp(fn, wrt=wrt)(*args, seed=np.ones(np.shape(fn(*args))))
    with pytest.raises(TransformError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ad.jvp(fn, wrt=wrt)(*args, tangent=1.0 if x is None else np.ones(3))


MORE_AUTOGRAD_ROWS = [
    Row(np_cumsum, normal(3, 4), Const(-1)), Row(np_cumsum, normal(3, 4), Const(None)),
    Row(np_hstack, normal(2, 3), normal(2, 1)), Row(np_vstack, normal(3), normal(2, 3)),
    Row(np_column_stack, normal(3), normal(3, 2)),
    Row(np_repeat, normal(3, 4), Const(2), Const(1)), Row(np_repeat, normal(3, 4), Const(3), Const(None)),
    Row(np_tile, normal(3, 4), Const((2, 1, 2))),
    Row(trace_default, normal(3, 4)), Row(np_tril, normal(3, 4), Const(1)),
    Row(np_triu, normal(2, 3, 3), Const(-1)), Row(np_sort, Arg("distinct", (5,)), Const(-1)),
    Row(linalg_inv, normal(2, 3, 3)), Row(linalg_det, normal(3, 3)), Row(linalg_slogdet, normal(3, 3)),
    Row(linalg_solve, normal(3, 3), normal(3, 2)), Row(linalg_solve, normal(3, 3), normal(3)),
    Row(np_tensordot, normal(3, 4, 2), normal(4, 3, 5), Const(([1, 0], [0, 1]))),
    Row(np_inner, normal(2, 3, 4), normal(5, 4)), Row(np_kron, normal(2, 3), normal(2, 2)),
    Row(pad_positional_mode, normal(3, 4)),
]


# autograd has no vjp of np.take or np.average, none of np.trace off the first two axes, nor of
# np.sort beyond 1-D, and its np.dstack gives zeros: those are checked by finite differences only
@pytest.mark.parametrize("row", table(*MORE_AUTOGRAD_ROWS))
def test_more_against_autograd(row):
    test_against_autograd(row)


# ---------------------------------------------------------------------------------------------
# inverse hyperbolic functions, degree conversions, logaddexp2, np.roll, np.diff, np.ptp,
# np.nansum / np.nanmean, np.vdot and np.linalg.cholesky, in both modes
# ---------------------------------------------------------------------------------------------
def arcsinh(x): return np.arcsinh(x)
def arccosh(x): return np.arccosh(x + 2.0)
def arctanh(x): return np.arctanh(x)
def deg2rad(x): return np.deg2rad(x) + np.radians(x) * 2.0
def rad2deg(x): return np.rad2deg(x) + np.degrees(x) * 2.0
def math_inverse_hyperbolic(x): return math.asinh(x) * math.acosh(x + 2.0) + math.atanh(x / 2.0)
def math_degrees(x): return math.degrees(x) - math.radians(x)
def np_logaddexp2(x, y): return np.logaddexp2(x, y)
def np_roll(x, shift, axis): return np.roll(x, shift, axis)
def np_diff(x, n, axis): return np.diff(x, n, axis)
def diff_default(x): return np.diff(x)
def diff_ends(x, before, after): return np.diff(x, axis=0, prepend=before, append=after)
def diff_prepend(x, before): return np.diff(x, axis=0, prepend=before)
def diff_constant_ends(x): return np.diff(x, 2, prepend=0.5, append=np.ones((3, 2)))
def np_ptp(x, axis, keepdims): return np.ptp(x, axis=axis, keepdims=keepdims)
def ptp_default(x): return np.ptp(x)
def np_nansum(x, axis, keepdims): return np.nansum(np.where(x > 1.0, np.nan, x), axis=axis, keepdims=keepdims)
def np_nanmean(x, axis, keepdims): return np.nanmean(np.where(x > 1.0, np.nan, x), axis=axis, keepdims=keepdims)
def nansum_default(x): return np.nansum(x) + np.nanmean(x)
def np_vdot(a, b): return np.vdot(a, b)
def linalg_cholesky(x): return np.linalg.cholesky(0.3 * x + 2.0 * np.eye(x.shape[-1]))
def linalg_cholesky_upper(x): return np.linalg.cholesky(0.3 * x + 2.0 * np.eye(x.shape[-1]), upper=True)
def linalg_cholesky_gram(x): return np.linalg.cholesky(x @ x.T + np.eye(3))


EXTRA_ROWS = [
    *[Row(fn, Arg(kind, shape)) for fn, kind in [
        (arcsinh, "normal"), (arccosh, "unit"), (arctanh, "unit"), (deg2rad, "normal"),
        (rad2deg, "normal")] for shape in [(3, 4), ()]],
    Row(math_inverse_hyperbolic, Arg("unit")), Row(math_degrees, normal()),
    *[Row(np_logaddexp2, normal(*sx), normal(*sy)) for sx, sy in BROADCAST_SHAPES],
    *[Row(np_roll, normal(*shape), Const(shift), Const(axis)) for shape, shift, axis in [
        ((5,), 2, None), ((3, 4), 5, None), ((3, 4), -1, 1), ((3, 4), (1, 2), (0, 1)),
        ((2, 3, 4), [1, -2], [-1, 0]), ((3, 4), (1, 2), None)]],
    *[Row(np_diff, normal(*shape), Const(n), Const(axis)) for shape, n, axis in [
        ((5,), 1, -1), ((3, 4), 1, 0), ((3, 4), 2, -1), ((2, 3, 4), 3, 2), ((3, 4), 0, 0),
        ((3, 4), 4, 1)]],
    Row(diff_default, normal(3, 4)),
    Row(diff_ends, normal(3, 4), normal(), normal(2, 4)),
    Row(diff_prepend, normal(3, 4), normal(1, 4)),
    Row(diff_constant_ends, normal(3, 4)),
    *[Row(np_ptp, Arg("distinct", (2, 3, 4)), Const(axis), Const(keepdims))
      for axis, keepdims in [(None, False), (1, False), (-1, True), ((0, 2), False)]],
    Row(ptp_default, Arg("distinct", (5,))),
    *[Row(fn, Arg("normal", (3, 4)), Const(axis), Const(keepdims))
      for fn in (np_nansum, np_nanmean) for axis, keepdims in [(None, False), (1, True), (0, False)]],
    Row(nansum_default, normal(3, 4)),
    Row(np_vdot, normal(3, 4), normal(12)), Row(np_vdot, normal(4), normal(4)),
    Row(linalg_cholesky, normal(3, 3)), Row(linalg_cholesky, normal(2, 3, 3)),
    Row(linalg_cholesky_upper, normal(3, 3)), Row(linalg_cholesky_gram, normal(3, 3)),
]


@pytest.mark.parametrize("row", table(*EXTRA_ROWS))
def test_extra_rules(row):
    check_row(row)


@pytest.mark.parametrize("row", table(*EXTRA_ROWS))
def test_extra_tangents(row):
    check_tangent_row(row)


def rt_undiff(g, a, n, axis, prepend, append, part):
    return runtime.undiff(g, a, n, axis, prepend, append, part)
def rt_rediff(u, a, n, axis, prepend, append, part):
    return runtime.rediff(u, a, n, axis, prepend, append, part)


EXTRA_RUNTIME_ROWS = [
    Row(rt_undiff, normal(3, 2), ZEROS[(3, 4)], Const(2), Const(1), Const(None), Const(None),
        Const("a")),
    Row(rt_undiff, normal(5, 4), ZEROS[(3, 4)], Const(1), Const(0), Const(0.0),
        Const(np.zeros((2, 4)), "zeros[2,4]"), Const("prepend")),
    Row(rt_undiff, normal(4, 4), ZEROS[(3, 4)], Const(2), Const(0), Const(0.0),
        Const(np.zeros((2, 4)), "zeros[2,4]"), Const("append")),
    Row(rt_rediff, normal(3, 4), ZEROS[(3, 4)], Const(2), Const(-1), Const(None), Const(None),
        Const("a")),
    Row(rt_rediff, normal(), ZEROS[(3, 4)], Const(1), Const(0), Const(0.0), Const(None),
        Const("prepend")),
]


@pytest.mark.parametrize("row", table(*EXTRA_RUNTIME_ROWS))
def test_extra_runtime_helpers(row):
    check_row(row)


@pytest.mark.parametrize("row", table(*EXTRA_RUNTIME_ROWS))
def test_extra_runtime_helper_tangents(row):
    check_tangent_row(row)


TABLES += [test_extra_rules, test_extra_runtime_helpers]


def so_extras(x):
    return (np.sum(np.arcsinh(x) * np.arctanh(x / 3.0)) + np.sum(np.roll(x, 1, 0) * x ** 2)
            + np.sum(np.diff(x ** 2, 2, axis=1, prepend=x[:, :1]) ** 2) + np.sum(np.logaddexp2(x, x ** 2))
            + np.nansum(x ** 3) * np.ptp(x ** 2) + np.vdot(x, x ** 2) + np.sum(np.deg2rad(x) ** 3))


@pytest.mark.parametrize("fn, make", [(so_extras, Arg("distinct", (3, 4)))], ids=["so_extras"])
def test_extra_second_order(fn, make):
    test_second_order(fn, make)


EXTRA_AUTOGRAD_ROWS = [
    Row(arcsinh, normal(3, 4)), Row(arccosh, Arg("unit", (3, 4))), Row(arctanh, Arg("unit", (3, 4))),
    Row(deg2rad, normal(3, 4)), Row(rad2deg, normal(3, 4)), Row(np_logaddexp2, normal(3, 1), normal(4)),
    Row(np_roll, normal(3, 4), Const(-1), Const(1)), Row(np_diff, normal(3, 4), Const(2), Const(-1)),
    Row(linalg_cholesky_gram, normal(3, 3)),
]


# autograd has no vjp of np.nansum, np.nanmean, np.ptp or np.vdot; it symmetrizes the adjoint of
# np.linalg.cholesky, which reads only one triangle, so that is compared on a symmetric input
# built from x (x @ x.T), where the two agree
@pytest.mark.parametrize("row", table(*EXTRA_AUTOGRAD_ROWS))
def test_extra_against_autograd(row):
    test_against_autograd(row)


# second derivatives through np.linalg.cholesky: tests/test_second_order_linalg.py


# ---------------------------------------------------------------------------------------------
# views: np.flip, np.fliplr, np.flipud, np.diag of a matrix, np.diagonal / x.diagonal() and
# np.float64(x) of a float64 array return a view of (or the very) array they are given, so an
# in-place write into that array afterwards must be refused, never differentiated
# ---------------------------------------------------------------------------------------------
def np_flip(x, axis): return np.flip(x, axis)
def flip_all(x): return np.flip(x)
def np_fliplr(x): return np.fliplr(x)
def np_flipud(x): return np.flipud(x)
def np_diag(x, k): return np.diag(x, k)
def diag_default(x): return np.diag(x)
def np_diagonal(x, offset, axis1, axis2): return np.diagonal(x, offset, axis1, axis2)
def diagonal_default(x): return np.diagonal(x)
def diagonal_method(x): return x.diagonal()
def diagonal_method_axes(x): return x.diagonal(1, axis1=2, axis2=0)
def float64_cast(x): return np.float64(x) * x
def float64_of_entry(x): return np.float64(x[1]) * x + np.longdouble(x[0]).astype(np.float64)


VIEW_ROWS = [
    *[Row(np_flip, normal(2, 3, 4), Const(axis)) for axis in (None, 0, -1, (0, 2))],
    Row(flip_all, normal(5)), Row(np_fliplr, normal(3, 4)), Row(np_flipud, normal(3, 4)),
    Row(np_flipud, normal(4)),
    *[Row(np_diag, normal(*shape), Const(k)) for shape, k in [
        ((4,), 0), ((4,), 1), ((4,), -2), ((4, 4), 0), ((3, 4), 1), ((3, 4), -1), ((4, 3), 2)]],
    Row(diag_default, normal(3)), Row(diag_default, normal(3, 3)),
    *[Row(np_diagonal, normal(*shape), Const(offset), Const(a1), Const(a2))
      for shape, offset, a1, a2 in [((3, 4), 0, 0, 1), ((3, 4), 1, 0, 1), ((4, 3), -1, 0, 1),
                                    ((3, 4), 0, 1, 0), ((2, 3, 4), -1, 0, 2),
                                    ((2, 3, 4), 1, -1, -2)]],
    Row(diagonal_default, normal(3, 3)), Row(diagonal_method, normal(3, 4)),
    Row(diagonal_method_axes, normal(3, 2, 4)),
    Row(float64_cast, normal(3)), Row(float64_of_entry, normal(3)),
]


@pytest.mark.parametrize("row", table(*VIEW_ROWS))
def test_view_rules(row):
    check_row(row)


@pytest.mark.parametrize("row", table(*VIEW_ROWS))
def test_view_tangents(row):
    check_tangent_row(row)


def float32_cast(x): return np.sum(np.float32(x) * 2.0)
def float16_cast(x): return np.sum(np.float16(x) * 2.0)


@pytest.mark.parametrize("row", table(Row(float32_cast, normal(3)), Row(float16_cast, normal(3))))
def test_narrowing_casts(row):
    """Central differences cannot see through rounding to float32 / float16: exact values."""
    x = np.array([0.5, -1.5, 2.0])
    assert_close(ad.grad(row.fn)(x), [2.0, 2.0, 2.0])
    assert_close(ad.jvp(row.fn)(x, tangent=np.ones(3))[1], 6.0)


TABLES += [test_view_rules, test_narrowing_casts]


def so_views(x):
    return (np.sum(np.diag(np.diag(x) ** 2, 1) ** 2) + np.sum(x.diagonal(1) ** 3)
            + np.sum(np.flip(x, 0) * x ** 2) + np.sum(np.fliplr(x) ** 3 * np.float64(x[1, 1])))


@pytest.mark.parametrize("fn, make", [(so_views, normal(4, 4))], ids=["so_views"])
def test_view_second_order(fn, make):
    test_second_order(fn, make)


VIEW_AUTOGRAD_ROWS = [
    Row(np_fliplr, normal(3, 4)), Row(np_flipud, normal(3, 4)), Row(np_diag, normal(4), Const(1)),
    Row(np_diag, normal(3, 3), Const(0)),
    Row(np_diagonal, normal(2, 3, 3), Const(0), Const(-1), Const(-2)),
]


# autograd has no vjp of np.flip and none of np.diagonal off the main diagonal of the last two
# axes, and its np.diag of a non-square matrix has the wrong shape
@pytest.mark.parametrize("row", table(*VIEW_AUTOGRAD_ROWS))
def test_view_against_autograd(row):
    test_against_autograd(row)


def write_after_flip(x):
    x = x * 1.0
    y = np.flip(x)
    x[0] = 5.0
    return np.sum(y * y)
def write_after_diagonal(x):
    x = x * 1.0
    y = x.diagonal()
    x[0, 0] = 5.0
    return np.sum(y * y)
def write_after_diag(x):
    x = x * 1.0
    y = np.diag(x)
    x[1, 1] = 5.0
    return np.sum(y * y)
def write_after_float64(x):
    x = x * 1.0
    y = np.float64(x)
    x[0, 1] = 5.0
    return np.sum(y * y)
def write_into_flip(x):
    x = x * 1.0
    y = np.fliplr(x)
    y[0, 0] = 5.0
    return np.sum(x * x)


@pytest.mark.parametrize("fn", [write_after_flip, write_after_diagonal, write_after_diag,
                                write_after_float64, write_into_flip])
def test_writes_seen_through_these_views_are_refused(fn):
    x = np.arange(1.0, 5.0).reshape(2, 2)
    with pytest.raises(ad.TransformError):
        ad.grad(fn)(x)
    with pytest.raises(ad.TransformError):
        ad.jvp(fn)(x, tangent=np.ones((2, 2)))


def max_of_nothing_by_default(x):
    return max([], default=x[0]) ** 2 + min([x[1], x[2]], default=x[0]) * 3.0


def min_of_an_empty_list_by_default(x):
    xs = []
    return min(xs, default=x[1]) * 3.0 + max(x[0], x[2])


@pytest.mark.parametrize("fn", [max_of_nothing_by_default, min_of_an_empty_list_by_default])
def test_builtin_extremum_of_an_empty_sequence_passes_the_gradient_to_its_default(fn):
    """`max([], default=d)` is `d`: the default gets the adjoint (and gives its tangent) only
    when the sequence is empty."""
    x, v = np.array([0.3, -1.2, 0.8]), np.array([1.0, 0.5, -2.0])
    expected = numerical_grad(fn, [x], 0)
    np.testing.assert_allclose(ad.grad(fn)(x), expected, rtol=1e-6, atol=1e-8)
    assert ad.jvp(fn)(x, tangent=v)[1] == pytest.approx(expected @ v, rel=1e-6)


# ---------------------------------------------------------------------------------------------
# the helpers that hand out a list adjoint, one piece per element (np.concatenate, np.stack,
# builtin sum): their adjoints put the pieces back, so grad(grad(f)) runs through them
# ---------------------------------------------------------------------------------------------
def rt_unconcatenate(g, xs, axis):
    pieces = runtime.unconcatenate(g, xs, axis)
    return np.concatenate([np.ravel(pieces[0]) * 2.0, np.ravel(pieces[1]) ** 2])
def rt_unstack_last(g, xs, axis): return runtime.unstack(g, xs, axis)[-1] * 3.0   # the rest: None
def rt_spread(g, xs):
    pieces = runtime.spread(g, xs)
    return np.concatenate([np.ravel(pieces[0]), np.ravel(pieces[1]) ** 2, np.ravel(pieces[2])])
def rt_spread_array(g, xs): return runtime.spread(g, xs) ** 2


LIST_RUNTIME_ROWS = [
    Row(rt_unconcatenate, normal(5, 4), Const([np.zeros((2, 4)), np.zeros((3, 4))],
                                             "[zeros[2,4],zeros[3,4]]"), Const(0)),
    Row(rt_unconcatenate, normal(3, 5), Const([np.zeros((3, 1)), np.zeros((3, 4))],
                                             "[zeros[3,1],zeros[3,4]]"), Const(-1)),
    Row(rt_unconcatenate, normal(10), Const([np.zeros((2, 2)), np.zeros((3, 2))],
                                           "[zeros[2,2],zeros[3,2]]"), Const(None)),
    Row(rt_unstack_last, normal(3, 4), Const([np.zeros(3)] * 4, "[zeros[3]]*4"), Const(1)),
    Row(rt_unstack_last, normal(2), Const([0.0, 0.0], "[0.0,0.0]"), Const(0)),
    Row(rt_spread, normal(3, 4), Const([np.zeros(4), np.zeros((3, 1)), np.zeros((3, 4))],
                                      "[zeros[4],zeros[3,1],zeros[3,4]]")),
    Row(rt_spread, normal(), Const([0.0, 0.0, 0.0], "[0.0,0.0,0.0]")),
    Row(rt_spread_array, normal(4), Const(np.zeros((3, 4)), "zeros[3,4]")),
]


@pytest.mark.parametrize("row", table(*LIST_RUNTIME_ROWS))
def test_list_runtime_helpers(row):
    check_row(row)


TABLES += [test_list_runtime_helpers]      # test_core_tangents checks their tangents


# ---------------------------------------------------------------------------------------------
# the helpers of the rules for np.linalg.cholesky: the layout helpers in both modes, and
# cholesky_grad's tangent (hvp and hessian through cholesky), along directions in every entry
# of the factor (the helper reads all of it)
# ---------------------------------------------------------------------------------------------
def rt_lower_half(x): return runtime.lower_half(x)
def rt_lower_oriented(x, upper): return runtime.lower_oriented(x, upper)
def rt_cholesky_grad(g, x, upper):
    return runtime.cholesky_grad(g, 0.3 * x + 2.0 * np.eye(x.shape[-1]), upper)


CHOLESKY_LAYOUT_ROWS = [
    Row(rt_lower_half, normal(3, 3)), Row(rt_lower_half, normal(2, 4, 4)),
    Row(rt_lower_oriented, normal(3, 3), Const(True)),
    Row(rt_lower_oriented, normal(2, 3, 3), Const(False)),
]


@pytest.mark.parametrize("row", table(*CHOLESKY_LAYOUT_ROWS))
def test_cholesky_layout_helpers(row):
    check_row(row)


TABLES += [test_cholesky_layout_helpers]      # test_core_tangents checks their tangents


@pytest.mark.parametrize("row", table(
    Row(rt_cholesky_grad, normal(3, 3), normal(3, 3), Const(False)),
    Row(rt_cholesky_grad, normal(3, 3), normal(3, 3), Const(True)),
    Row(rt_cholesky_grad, normal(2, 4, 4), normal(2, 4, 4), Const(False)),
    Row(rt_cholesky_grad, normal(1, 1), normal(1, 1), Const(True))))
def test_cholesky_grad_tangent(row):
    check_tangent_row(row)


def rt_across_linspace(value, y, axis): return runtime.across_linspace(value, y, axis)


LINSPACE_RUNTIME_ROWS = [
    Row(rt_across_linspace, normal(4), Const(np.zeros((4, 5)), "zeros[4,5]"), Const(1)),
    Row(rt_across_linspace, normal(), Const(np.zeros((4, 5)), "zeros[4,5]"), Const(0)),
    Row(rt_across_linspace, normal(1, 3), Const(np.zeros((2, 4, 3)), "zeros[2,4,3]"), Const(1)),
]


@pytest.mark.parametrize("row", table(*LINSPACE_RUNTIME_ROWS))
def test_linspace_runtime_helpers(row):
    check_row(row)


TABLES += [test_linspace_runtime_helpers]      # test_core_tangents checks their tangents


# the factors of the rules for np.prod and np.linalg.norm have tangents only (forward over
# reverse); the norm's direction moves with x and with the norm's value y, held apart here
def rt_prod_others(x, axis): return runtime.prod_others(x, axis)
def rt_norm_direction(x, y, ord, axis): return runtime.norm_direction(x, y, ord, axis)


@pytest.mark.parametrize("row", table(
    Row(rt_prod_others, Arg("away", (3, 4)), Const(1)),
    Row(rt_prod_others, Arg("zeros", (3, 4)), Const(None)),
    Row(rt_prod_others, Arg("zeros", (3, 4)), Const(1)),
    Row(rt_norm_direction, normal(5), Arg("pos"), Const(None), Const(None)),
    Row(rt_norm_direction, normal(3, 4), Arg("pos", (3,)), Const(3), Const(1)),
    Row(rt_norm_direction, normal(3, 4), Arg("pos"), Const("fro"), Const(None))))
def test_factor_helper_tangents(row):
    check_tangent_row(row)
