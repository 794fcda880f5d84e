"""Calls and index expressions written in each of the forms NumPy accepts, checked against
central finite differences in float64 in reverse mode, forward mode and (for scalar outputs)
forward-over-reverse, so that a rule reading its arguments for one form cannot silently read
another form wrongly."""
import functools

import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad.errors import TransformError
from fd import assert_close, numerical_grad, numerical_vjp


def numerical_jvp(f, args, argnum, tangent, eps=1e-6):
    """d/dt f(args with args[argnum] + t * tangent) at t = 0, by central differences."""
    def along(t):
        moved = list(args)
        moved[argnum] = np.asarray(args[argnum], dtype=np.float64) + t * tangent
        return np.asarray(f(*moved), dtype=np.float64)
    return (along(eps) - along(-eps)) / (2 * eps)


def check_modes(fn, args, wrt=0, second_order=True):
    """grad/vjp, jvp and hvp of fn with respect to args[wrt] against finite differences."""
    rng = np.random.default_rng(0)
    x = np.asarray(args[wrt], dtype=np.float64)
    value = np.asarray(fn(*args))
    seed = rng.standard_normal(value.shape)
    _, cotangent = ad.vjp(fn, wrt=wrt)(*args, seed=seed)
    assert_close(cotangent, numerical_vjp(fn, args, wrt, seed), rtol=1e-5, atol=1e-6)
    direction = rng.standard_normal(x.shape)
    _, derivative = ad.jvp(fn, wrt=wrt)(*args, tangent=direction)
    assert_close(derivative, numerical_jvp(fn, args, wrt, direction), rtol=1e-5, atol=1e-6)
    if second_order and value.shape == ():
        gradient = ad.grad(fn, wrt=wrt)
        along = ad.hvp(fn, wrt=wrt)(*args, vector=direction)
        expected = numerical_grad(lambda *a: np.sum(gradient(*a) * direction), args, wrt)
        assert_close(along, expected, rtol=1e-5, atol=1e-5)


# --- np.r_ / np.c_: the index is the data --------------------------------------------------------
WEIGHTS = np.linspace(0.5, 2.0, 40)


def r_pair(x): return np.sum(np.sin(np.r_[x, x]) * WEIGHTS[:2 * x.size])
def r_with_range_and_scalar(x): return np.sum(np.r_[x, 0:3, 1.5, 2 * x] ** 2 * WEIGHTS[:10])
def r_of_scalars(x): return np.sum(np.r_[x[0], x[1] * x[2], x] ** 3)
def r_directive(x): return np.sum(np.sin(np.r_['0,2,1', x, x ** 2]) * WEIGHTS[:6].reshape(2, 3))
def r_directive_columns(x): return np.sum(np.sin(np.r_['1,2,0', x, x ** 2]) * WEIGHTS[:6].reshape(3, 2))
def r_of_matrices(x): return np.sum(np.r_[np.outer(x, x), np.diag(x)] ** 2 * WEIGHTS[:18].reshape(6, 3))
def r_linspace_range(x): return np.sum(np.r_[x, 0:1:4j] * WEIGHTS[:7] * x[0])
def c_pair(x): return np.sum(np.sin(np.c_[x, x ** 2]) * WEIGHTS[:6].reshape(3, 2))
def c_vector_output(x): return np.c_[x, np.ones(3), 3 * x]


@pytest.mark.parametrize("fn", [r_pair, r_with_range_and_scalar, r_of_scalars, r_directive, r_directive_columns,
                                r_of_matrices, r_linspace_range, c_pair, c_vector_output])
def test_index_concatenators(fn):
    check_modes(fn, (np.array([0.3, -1.2, 2.0]),))


# --- np.einsum: subscripts string or sublists --------------------------------------------------
B = np.linspace(-1.0, 1.0, 12).reshape(3, 4)


def einsum_string(a, b): return np.sum(np.einsum("ij,jk->ik", a, b) ** 2)
def einsum_sublist_transpose(a, b): return np.einsum(a, [0, 1], [1, 0]) * 2.0
def einsum_sublists(a, b): return np.sum(np.einsum(a, [0, 1], b, [1, 2], [0, 2]) ** 2)
def einsum_sublists_implicit(a, b): return np.einsum(a, [0, 1], b, [1, 2]) ** 2
def einsum_sublists_ellipsis(a, b): return np.sum(np.sin(np.einsum(a, [Ellipsis, 1], b, [1, 2], [Ellipsis, 2])))
def einsum_sublist_trace(a, b): return np.einsum(a @ a.T, [0, 0]) * np.einsum(a, [0, 1], [])
def einsum_optimize(a, b): return np.sum(np.einsum("ij,jk->ik", a, b, optimize=True) ** 2)


@pytest.mark.parametrize("fn", [einsum_string, einsum_sublist_transpose, einsum_sublists,
                                einsum_sublists_implicit, einsum_sublists_ellipsis,
                                einsum_sublist_trace, einsum_optimize])
@pytest.mark.parametrize("wrt", [0, 1])
def test_einsum_forms(fn, wrt):
    a = np.linspace(0.2, 1.4, 6).reshape(2, 3)
    check_modes(fn, (a, B), wrt=wrt)


def einsum_both(a): return np.sum(np.einsum(a, [0, 1], a, [0, 1], [0]) ** 2)


def test_einsum_sublists_with_one_operand_twice():
    check_modes(einsum_both, (np.linspace(0.2, 1.4, 6).reshape(2, 3),))


def test_einsum_sublists_with_respect_to_both_operands():
    a = np.linspace(0.2, 1.4, 6).reshape(2, 3)
    ga, gb = ad.grad(einsum_sublists, wrt=(0, 1))(a, B)
    assert_close(ga, numerical_grad(einsum_sublists, (a, B), 0))
    assert_close(gb, numerical_grad(einsum_sublists, (a, B), 1))


# --- one row per calling convention: positional or keyword, function or method ----------------
C = np.arange(6.0).reshape(2, 3) + 1.0


def sum_positional_axis(x): return np.sum(np.sum(x, 0) ** 2 * C[0])
def sum_keyword_axis(x): return np.sum(np.sum(x, axis=0) ** 2 * C[0])
def sum_method_axis(x): return np.sum(x.sum(0) ** 2 * C[0])
def sum_all_positional(x): return np.sum(np.sum(x, 0, None, None, True) ** 2 * C[:1])
def max_all_positional(x): return np.sum(np.max(x * C, 1, None, True) * C[:, :1])
def mean_all_positional(x): return np.sum(np.mean(x, 1, None, None, True) ** 2 * C[:, :1])
def reshape_separate(x): return np.sum(x.reshape(3, 2) ** 2 * C.reshape(3, 2))
def reshape_tuple(x): return np.sum(x.reshape((3, 2)) ** 2 * C.reshape(3, 2))
def transpose_separate(x): return np.sum(np.sin(x.transpose(1, 0)) * C.T)
def transpose_tuple(x): return np.sum(np.sin(x.transpose((1, 0))) * C.T)
def concatenate_axis_none(x): return np.sum(np.concatenate([x, 2 * x.T], axis=None) ** 2 * np.r_[C.ravel(), C.ravel()])
def concatenate_positional_axis(x): return np.sum(np.concatenate([x, x ** 2], 1) * np.c_[C, C])


@pytest.mark.parametrize("fn", [sum_positional_axis, sum_keyword_axis, sum_method_axis,
                                sum_all_positional, max_all_positional, mean_all_positional,
                                reshape_separate, reshape_tuple, transpose_separate,
                                transpose_tuple, concatenate_axis_none,
                                concatenate_positional_axis])
def test_calling_conventions(fn):
    check_modes(fn, (np.array([[0.3, -1.2, 2.0], [0.7, 1.1, -0.4]]),))


# --- array methods with positional arguments beyond axis: bound as NumPy binds them ------------
# (x.sum(axis, dtype, out, keepdims, ...) in the order of np.sum's parameters after `a`)
def mean_method_axis_dtype_none(x): return np.sum(x.mean(1, None) * C[:, 0])
def sum_method_all_positional(x): return np.sum(x.sum(0, None, None, True) ** 2 * C[:1])
def max_method_all_positional(x): return np.sum(x.max(1, None, True) * C[:, :1])
def std_method_ddof_positional(x): return np.sum(x.std(0, None, None, 1) * C[0])
def var_method_keepdims_positional(x): return np.sum(x.var(1, None, None, 0, True) * C[:, :1])


@pytest.mark.parametrize("fn", [mean_method_axis_dtype_none, sum_method_all_positional,
                                max_method_all_positional, std_method_ddof_positional,
                                var_method_keepdims_positional])
def test_method_positional_arguments_bound_like_the_function(fn):
    check_modes(fn, (np.array([[0.3, -1.2, 2.0], [0.7, 1.1, -0.4]]),))


def mean_method_dtype_positional(x): return np.sum(x.mean(1, np.float64) * C[:, 0])
def std_method_dtype_positional(x): return np.sum(x.std(1, np.float64) * C[:, 0])
def sum_method_dtype_keyword(x): return np.sum(x.sum(1, dtype=np.float64) * C[:, 0])


@pytest.mark.parametrize("fn", [sum_method_dtype_keyword, mean_method_dtype_positional])
def test_method_dtype_is_differentiated(fn):
    # refused until 2026-11-25: now lowered to `np.asarray(x, dtype=...).sum(1)`
    check_modes(fn, (np.array([[0.3, -1.2, 2.0], [0.7, 1.1, -0.4]]),))


@pytest.mark.parametrize("fn, marker", [(std_method_dtype_positional, "x.std(1, np.float64)")])
@pytest.mark.parametrize("mode", ["grad", "jvp", "hvp"])
def test_method_argument_the_rule_ignores_is_refused(fn, marker, mode):
    import inspect
    x = np.array([[0.3, -1.2, 2.0], [0.7, 1.1, -0.4]])
    with pytest.raises(ad.TransformError) as info:
        if mode == "grad":
            ad.grad(fn)(x)
        elif mode == "jvp":
            ad.jvp(fn)(x, tangent=x)
        else:
            ad.hvp(fn)(x, vector=x)
    text = str(info.value)
    lines, first = inspect.getsourcelines(fn)
    line = next(first + i for i, t in enumerate(lines) if marker in t)
    assert text.startswith(f"{inspect.getsourcefile(fn)}:{line}:"), text
    assert info.value.lineno == line
    assert "`dtype`" in text and "would be ignored" in text, text
    assert "hint: leave out dtype" in text, text


# --- callees reached through a functools.partial or a bound method -------------------------------
# (refused as "no adjoint registered" until 2026-11-24: run-time dispatch unwraps them now)

def scaled_power(x, k, power=2.0):
    return k * x ** power


TRIPLED = functools.partial(scaled_power, k=3.0)
CUBED_HALF = functools.partial(functools.partial(scaled_power, power=3.0), k=0.5)


class Quadratic:
    def __init__(self):
        self.A = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 3.0]])

    def energy(self, x):
        return x @ self.A @ x


QUADRATIC = Quadratic()


def through_a_module_level_partial(x):
    return np.sum(TRIPLED(x))


def through_a_nested_partial(x):
    return np.sum(CUBED_HALF(x))


def through_a_local_partial(x):
    cubes = functools.partial(scaled_power, power=3.0)
    return np.sum(cubes(x, 1.5))


def through_a_partial_of_the_variable(x):
    at_the_point = functools.partial(scaled_power, x)        # x by position, k at the call
    return np.sum(at_the_point(1.5))


def through_a_bound_method(x):
    return QUADRATIC.energy(x) * 2.0


@pytest.mark.parametrize("fn", [through_a_module_level_partial, through_a_nested_partial,
                                through_a_local_partial, through_a_bound_method])
def test_callees_reached_through_partial_and_bound_methods(fn):
    check_modes(fn, [np.array([0.7, -1.3, 0.4])])


@pytest.mark.parametrize("derivative", [ad.grad, ad.jvp])
def test_a_partial_holding_a_differentiated_value_is_refused(derivative):
    x = np.array([0.7, -1.3, 0.4])
    kwargs = {"tangent": np.ones(3)} if derivative is ad.jvp else {}
    with pytest.raises(ad.TransformError, match="at_the_point") as info:
        derivative(through_a_partial_of_the_variable)(x, **kwargs)
    assert info.value.filename == __file__


def _scaled_and_shifted(x, scale=1.0, shift=0.0):
    return np.sum(x * scale) + shift


def calls_with_a_keyword_dict(x):
    kw = {"scale": 3.0, "shift": x[0]}
    return _scaled_and_shifted(x, **kw)


def calls_with_a_list_grown_after_its_literal(x):
    args = [x]
    args.append(2.0)
    return _scaled_and_shifted(*args)


def test_a_dict_literal_bound_once_spreads_into_keywords():
    """`f(**kw)` with `kw` a dict literal bound once: the keywords it holds (was refused)."""
    x = np.array([0.3, -0.7, 1.2])
    expected = numerical_grad(calls_with_a_keyword_dict, [x], 0)
    assert_close(ad.grad(calls_with_a_keyword_dict)(x), expected)
    assert_close(ad.jvp(calls_with_a_keyword_dict)(x, tangent=np.ones(3))[1], np.sum(expected))


def test_star_arguments_of_a_list_changed_after_its_literal_are_refused_not_cut_short():
    """`args = [x]; args.append(2.0); f(*args)` was read as `f(args[0])`: the appended entry
    was dropped and the gradient silently wrong ([1, 1, 1] for [2, 2, 2])."""
    with pytest.raises(TransformError, match=r"\*args"):
        ad.grad(calls_with_a_list_grown_after_its_literal)(np.array([0.3, -0.7, 1.2]))
