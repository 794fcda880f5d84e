"""Errors that teach: every refusal names file:line:col, shows the line with a caret, and a hint.

The functions under test are defined at module level in this file (the transformer reads their
source). Expected line and column numbers are computed from this file with `inspect`, from a
marker: the text at which the caret must point.
"""
import inspect
import math
import os
import re
from math import lgamma

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close
from s2s_ad.errors import NoDerivativeRule, SourceUnavailable, TransformError, UnsupportedSyntax

try:                                   # scipy is optional: not among the test extras
    import scipy.special
    from scipy.special import kei
except ImportError:
    scipy = kei = None

needs_scipy = pytest.mark.skipif(kei is None, reason="scipy is not installed")

counter = 0


# --- functions the transformer refuses -------------------------------------------------------------

def uses_yield(x):
    yield x * 2


def uses_try(x):
    try:
        y = x * 2
    except ValueError:
        y = x
    return y


def writes_global(x):
    global counter
    counter = counter + 1
    return x * 2


def calls_c_function_by_name(x):
    return np.sum(kei(x) * 2)


def calls_builtin_by_name(x):
    return lgamma(x) * 2


def calls_c_function_by_attribute(x):
    return np.sum(scipy.special.kei(x) * 2)


def calls_numpy_function_without_rule(x):
    return np.sum(np.unwrap(x))


def calls_math_gamma(x):
    return math.gamma(x) * x


def helper_with_math_gamma(x):
    return math.gamma(x) + 1.0


def calls_helper_with_math_gamma(x):
    return helper_with_math_gamma(x) * 2


def defines_lambda(x):
    # stored in a list: a lambda called or passed to a call is differentiated (issue 15)
    fs = [lambda t: t * 2]
    return np.sum(fs[0](x))


def defines_nested_def(x):
    def double(t):
        return t * 2
    helpers = [double]
    return helpers[0](x)


def deletes(x):
    y = [x * 2, x]
    del y[0]                # deleting an entry changes the list (a bare `del y` is allowed)
    return x


def uses_with(x):
    with open(os.devnull) as fh:
        y = x * 2
    return y


def star_args(*xs):
    return xs[0] * 2


def uses_walrus(x):
    return sum((y := x * k) for k in range(3)) + y


def imports_inside(x):
    import math as m
    m = 2.0                 # the name is bound again (a plain import is allowed)
    return x * m


def writes_through_view(x, k=1):
    y = x * 1.0
    v = y[k:]                   # a view at a named index is not written back into y
    v[0] = 5.0
    return np.sum(y * x)


def _make_counting():
    calls = 0

    def counting(x):
        nonlocal calls
        calls = calls + 1
        return x * 2
    return counting


counting = _make_counting()


class Model:
    def loss(self, x):
        try:
            return x * 2
        except ValueError:
            return x


two_lambdas = lambda x: x * 2, lambda x: x * 3
lambda_without_source = eval("lambda x: x * 2")
lambdas_over_lines = [lambda x: x * 2,
                      lambda x: x * 3]


@ad.grad
def decorated_with_yield(x):
    yield x


# --- helpers -----------------------------------------------------------------------------------

def location_of(fn, marker):
    """(file, line, 1-based column, source line) of the first occurrence of `marker` in fn."""
    lines, first = inspect.getsourcelines(fn)
    for offset, text in enumerate(lines):
        if marker in text:
            return fn.__code__.co_filename, first + offset, text.index(marker) + 1, text.rstrip("\n")
    raise AssertionError(f"{marker!r} not in the source of {fn.__name__}")


def assert_points_at(err, fn, marker):
    """`err` is formatted like a SyntaxError pointing at `marker` in the source of `fn`."""
    filename, line, col, source_line = location_of(fn, marker)
    assert os.path.samefile(filename, __file__)
    text = str(err)
    assert text.startswith(f"{filename}:{line}:{col}: "), text
    assert (err.filename, err.lineno, err.col + 1) == (filename, line, col)
    shown, caret = text.splitlines()[1:3]
    assert shown.strip() == source_line.strip()
    # the caret sits under the marker, on a line indented like the shown source line
    assert caret.rstrip().endswith("^") and set(caret.strip()) == {"^"}
    indent = len(source_line) - len(source_line.lstrip())
    assert caret.index("^") - shown.index(source_line.strip()) == col - 1 - indent
    assert re.search(r"^hint: \S", text, re.M), text
    assert err.hint


def wrt_of(fn):
    return "x" if fn is Model.loss else 0


REFUSED = [
    # (function, marker the caret points at, error class, words in the message)
    pytest.param(uses_yield, "yield x", UnsupportedSyntax, "yield", id="yield"),
    pytest.param(uses_try, "try:", UnsupportedSyntax, "try", id="try"),
    pytest.param(writes_global, "global counter", UnsupportedSyntax, "global", id="global-write"),
    pytest.param(calls_c_function_by_name, "kei(x)", NoDerivativeRule,
                 "kei.*no adjoint registered", id="c-function-by-name", marks=needs_scipy),
    pytest.param(calls_builtin_by_name, "lgamma(x)", NoDerivativeRule,
                 "lgamma.*no adjoint registered", id="builtin-by-name"),
    pytest.param(calls_math_gamma, "math.gamma(x)", NoDerivativeRule,
                 "math.gamma.*no adjoint registered", id="math.gamma"),
    pytest.param(calls_c_function_by_attribute, "scipy.special.kei(x)", NoDerivativeRule,
                 "kei.*no adjoint registered", id="c-function-by-attribute",
                 marks=needs_scipy),
    pytest.param(calls_numpy_function_without_rule, "np.unwrap(x)", NoDerivativeRule,
                 "unwrap.*no adjoint registered", id="numpy-function-without-rule"),
    pytest.param(defines_lambda, "lambda t", UnsupportedSyntax, "lambda", id="lambda-inside"),
    pytest.param(defines_nested_def, "def double", UnsupportedSyntax, "nested `def`",
                 id="nested-def"),
    pytest.param(deletes, "del y", UnsupportedSyntax, "del", id="del"),
    pytest.param(uses_with, "open(os.devnull)", UnsupportedSyntax, "with", id="with"),
    pytest.param(star_args, "xs):", UnsupportedSyntax, r"\*args", id="star-args"),
    pytest.param(uses_walrus, "y := x", UnsupportedSyntax, ":=", id="walrus"),
    pytest.param(imports_inside, "import math", UnsupportedSyntax, "import", id="import"),
    pytest.param(writes_through_view, "v[0] = 5.0", UnsupportedSyntax, "in-place write into `v`",
                 id="write-through-view"),
    pytest.param(counting, "nonlocal calls", UnsupportedSyntax, "nonlocal", id="nonlocal"),
    pytest.param(Model.loss, "try:", UnsupportedSyntax, "try", id="method-indented"),
]


@pytest.mark.parametrize("fn, marker, kind, words", REFUSED)
def test_refused_when_source_is_read(fn, marker, kind, words):
    df = ad.grad(fn, wrt=wrt_of(fn))     # building the wrapper does no transformation work
    with pytest.raises(kind, match=words) as info:
        df.source
    assert isinstance(info.value, TransformError)
    assert_points_at(info.value, fn, marker)


@pytest.mark.parametrize("fn, marker, kind, words", REFUSED)
def test_refused_when_first_called(fn, marker, kind, words):
    args = (Model(), 2.0) if fn is Model.loss else (2.0,)
    df = ad.grad(fn, wrt=wrt_of(fn))
    with pytest.raises(TransformError) as info:
        df(*args)
    assert isinstance(info.value, kind)
    assert_points_at(info.value, fn, marker)
    # the failure is not cached away: asking again gives the same error
    with pytest.raises(kind):
        df(*args)


def test_refused_through_the_decorator():
    with pytest.raises(UnsupportedSyntax) as info:
        decorated_with_yield(1.0)
    line, _ = _line_starting_with("def decorated_with_yield(x):")
    filename = uses_yield.__code__.co_filename
    assert str(info.value).startswith(f"{filename}:{line + 1}:5: generators (`yield`)")
    assert info.value.hint


def sums_unwrapped(x):
    return np.sum(np.unwrap(x) * 2.0)


NO_RULE = [p for p in REFUSED if p.values[2] is NoDerivativeRule] + [
    pytest.param(sums_unwrapped, "np.unwrap(x)", NoDerivativeRule, "unwrap", id="np.unwrap")]


@pytest.mark.parametrize("fn, marker, kind, words", NO_RULE)
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_function_without_a_rule_is_refused_at_transform_time_in_both_modes(
        fn, marker, kind, words, mode):
    # forward mode ran into a bare TypeError with no location when the derivative ran
    derivative = getattr(ad, mode)(fn)
    name = words.split(".*")[0]
    with pytest.raises(NoDerivativeRule, match=f"{name}.*no (adjoint|tangent) registered") as info:
        derivative.source
    assert_points_at(info.value, fn, marker)


@pytest.mark.parametrize("transform", [ad.value_and_grad, ad.vjp])
def test_every_transform_refuses(transform):
    with pytest.raises(UnsupportedSyntax) as info:
        transform(uses_try).source
    assert_points_at(info.value, uses_try, "try:")


def test_refusal_inside_a_callee_names_the_call_chain():
    with pytest.raises(NoDerivativeRule) as info:
        ad.grad(calls_helper_with_math_gamma).source
    assert_points_at(info.value, helper_with_math_gamma, "math.gamma(x)")
    _, line, _, _ = location_of(calls_helper_with_math_gamma, "helper_with_math_gamma(x) * 2")
    assert f"called from {calls_helper_with_math_gamma.__code__.co_filename}:{line} " \
           f"(in calls_helper_with_math_gamma)" in str(info.value)


def test_two_lambdas_on_one_line_are_told_apart():
    """By the columns their code objects cover (refused as ambiguous until 2026-11-25)."""
    assert ad.grad(two_lambdas[0])(2.0) == 2.0
    assert ad.grad(two_lambdas[1])(2.0) == 3.0
    assert ad.jvp(two_lambdas[1])(2.0, tangent=1.0) == (6.0, 3.0)


def _line_starting_with(text):
    with open(__file__) as fh:
        for number, line in enumerate(fh, 1):
            if line.startswith(text):
                return number, line.rstrip("\n")
    raise AssertionError(text)


def test_lambda_with_source_is_differentiated():
    assert ad.grad(lambda x: x * 3)(2.0) == 3.0


def test_lambda_without_source_is_refused():
    df = ad.grad(lambda_without_source)
    with pytest.raises(SourceUnavailable, match="cannot read the source of <lambda>") as info:
        df(1.0)
    assert str(info.value).startswith("<string>:1:")
    assert re.search(r"^hint: .*def", str(info.value), re.M)


def test_lambda_on_a_continuation_line_is_differentiated():
    # its line alone does not parse; the lambda is found in the whole file instead
    assert ad.grad(lambdas_over_lines[1])(2.0) == 3.0
    assert ad.grad(lambdas_over_lines[0])(2.0) == 2.0


@pytest.mark.parametrize("builtin", [np.sin, math.sin], ids=["np.sin", "math.sin"])
def test_a_builtin_with_a_rule_is_differentiated_through_it(builtin):
    assert ad.grad(builtin)(0.5) == pytest.approx(math.cos(0.5), rel=1e-15)
    assert ad.jvp(builtin)(0.5, tangent=2.0)[1] == pytest.approx(2 * math.cos(0.5), rel=1e-15)
    assert ad.grad(ad.grad(builtin))(0.5) == pytest.approx(-math.sin(0.5), rel=1e-15)


def test_a_numpy_function_with_a_rule_is_differentiated_through_it_not_its_source():
    assert_close(ad.grad(np.sum)(np.ones(3)), np.ones(3))
    assert_close(ad.grad(np.linalg.norm)(np.array([3.0, 4.0])), [0.6, 0.8])
    assert_close(ad.jvp(np.mean)(np.ones(4), tangent=np.arange(4.0))[1], 1.5)


def test_a_ufunc_of_two_inputs_with_a_rule():
    assert ad.grad(np.arctan2, wrt=1)(1.0, 2.0) == pytest.approx(-0.2, rel=1e-15)
    assert ad.grad(np.arctan2, wrt="x1")(1.0, 2.0) == pytest.approx(0.4, rel=1e-15)


@pytest.mark.parametrize("builtin", [np.frexp, math.gamma], ids=["np.frexp", "math.gamma"])
def test_builtin_without_a_rule_is_refused(builtin):
    df = ad.grad(builtin)
    with pytest.raises(SourceUnavailable, match=builtin.__name__) as info:
        df.source
    assert "hint: " in str(info.value)
    assert "@s2s_ad.adjoint" in str(info.value)


# --- errors in how a derivative is asked for or called ----------------------------------------------

def two_params(a, b):
    return a * b


def vector_valued(x):
    return x * 2


@pytest.mark.parametrize("wrt, words", [
    ("c", r"wrt='c' is not a parameter of two_params \(a, b\)"),
    (("a", "c"), r"wrt='c' is not a parameter of two_params \(a, b\)"),
    (2, r"wrt=2 is out of range: two_params has 2 parameter\(s\) \(a, b\)"),
    (-3, r"wrt=-3 is out of range: two_params has 2 parameter\(s\) \(a, b\)"),
    ((), "wrt is empty"),
    ((0, "a"), "wrt names a parameter twice"),
])
def test_wrt_naming_a_missing_parameter(wrt, words):
    with pytest.raises(ValueError, match=words):
        ad.grad(two_params, wrt=wrt)


def test_wrt_of_the_wrong_type():
    with pytest.raises(TypeError, match="wrt must be a parameter index or name"):
        ad.grad(two_params, wrt=1.5)


@pytest.mark.parametrize("a", [3, np.arange(3), np.int32(2), True],
                         ids=["int", "int-array", "numpy-int", "bool"])
def test_gradient_with_respect_to_an_integer(a):
    with pytest.raises(TypeError, match="cannot differentiate with respect to 'a': it is an integer"):
        ad.grad(two_params)(a, 2.0)


def test_integer_argument_outside_wrt_is_fine():
    assert ad.grad(two_params, wrt="b")(3, 2.0) == 3.0


@pytest.mark.parametrize("transform", [ad.grad, ad.value_and_grad])
def test_non_scalar_output_names_the_shape_and_vjp(transform):
    with pytest.raises(TypeError, match=r"shape \(2, 3\).*vjp.*seed="):
        transform(vector_valued)(np.ones((2, 3)))


def test_seed_of_the_wrong_shape():
    with pytest.raises(ValueError, match=r"the seed has shape \(3,\) but vector_valued returned "
                                         r"shape \(2, 3\)"):
        ad.vjp(vector_valued)(np.ones((2, 3)), seed=np.ones(3))


def test_seed_for_a_scalar_output_must_be_scalar():
    with pytest.raises(ValueError, match=r"seed has shape \(3,\) but two_params returned shape \(\)"):
        ad.vjp(two_params)(1.0, 2.0, seed=np.ones(3))


# --- refused in both modes, at transform time ------------------------------------------------

def mgrid_of_a_varied_bound(x):
    grid = np.mgrid[0:3, 0:x[0]]
    return np.sum(grid * x)


def r_range_of_a_varied_bound(x):
    y = np.r_[x, x[0]:4.0]
    return np.sum(y)


def r_matrix_directive(x):
    y = np.r_['r', x, x]
    return np.sum(y)


def index_expression_of_a_varied_value(x):
    index = np.s_[x]
    return np.sum(index)


BOTH_MODES_REFUSE = [
    pytest.param(mgrid_of_a_varied_bound, "np.mgrid[", UnsupportedSyntax,
                 r"range \(`start:stop:step`\) in np.mgrid\[\.\.\.\] whose bounds depend",
                 id="mgrid-bound"),
    pytest.param(r_range_of_a_varied_bound, "np.r_[", UnsupportedSyntax,
                 r"range .* in np.r_\[\.\.\.\]", id="r_-range-bound"),
    pytest.param(r_matrix_directive, "np.r_[", UnsupportedSyntax, "makes an np.matrix",
                 id="r_-matrix"),
    pytest.param(index_expression_of_a_varied_value, "np.s_[", NoDerivativeRule,
                 r"np.s_\[\.\.\.\]", id="s_-without-rule"),
]


@pytest.mark.parametrize("fn, marker, kind, words", BOTH_MODES_REFUSE)
def test_refused_in_both_modes(fn, marker, kind, words):
    x = np.array([1.0, 2.0, 3.0])
    with pytest.raises(kind, match=words) as info:
        ad.grad(fn)(x)
    assert_points_at(info.value, fn, marker)
    with pytest.raises(kind, match=words) as info:
        ad.jvp(fn)(x, tangent=np.ones(3))
    assert_points_at(info.value, fn, marker)


def std_with_positional_dtype(x):      # np.sum's positional dtype is differentiated now
    return np.sum(np.std(x, 0, np.float32))


def einsum_with_dtype(x):
    return np.sum(np.einsum("i,i->i", x, x, dtype=np.float32))


def sum_of_unpacked_arguments(x, options):
    return np.sum(np.sum(x, **options))


@pytest.mark.parametrize("fn, marker, words", [
    pytest.param(std_with_positional_dtype, "np.std(x, 0", "`dtype` would be ignored",
                 id="ignored-positional"),
    pytest.param(einsum_with_dtype, "np.einsum(", "unexpected keyword argument 'dtype'",
                 id="ignored-keyword"),
])
def test_arguments_a_rule_would_ignore_are_refused_in_both_modes(fn, marker, words):
    x = np.array([1.0, 2.0, 3.0])
    with pytest.raises(UnsupportedSyntax, match=words) as info:
        ad.grad(fn)(x)
    assert_points_at(info.value, fn, marker)
    with pytest.raises(UnsupportedSyntax, match=words) as info:
        ad.jvp(fn)(x, tangent=np.ones(3))
    assert_points_at(info.value, fn, marker)


def test_unpacked_keywords_into_a_rule_are_refused():
    with pytest.raises(UnsupportedSyntax, match=r"\*\*kwargs") as info:
        ad.grad(sum_of_unpacked_arguments)(np.ones(3), {"axis": 0})
    assert_points_at(info.value, sum_of_unpacked_arguments, "np.sum(x, **")


def pad_reflect_odd(x):
    return np.sum(np.pad(x, 2, mode="reflect", reflect_type="odd") ** 2)


def average_returned(x):
    avg, total = np.average(x, weights=x * x, returned=True)
    return avg * total


def max_with_key(x):
    return max(np.sin(x[0]), x[1], key=abs)


@pytest.mark.parametrize("fn, marker, words", [
    pytest.param(pad_reflect_odd, "np.pad(", r"reflect_type='odd'", id="pad-mode"),
    pytest.param(average_returned, "np.average(", r"returned=True", id="average-returned"),
    pytest.param(max_with_key, "max(", r"max\(\.\.\., key=\.\.\.\)", id="max-key"),
])
def test_options_without_rules_are_refused_at_transform_time(fn, marker, words):
    with pytest.raises(UnsupportedSyntax, match=words) as info:
        ad.source(ad.grad(fn))
    assert_points_at(info.value, fn, marker)
    with pytest.raises(UnsupportedSyntax, match=words) as info:
        ad.source(ad.jvp(fn))
    assert_points_at(info.value, fn, marker)


def _rows_swapped_through_a_view(x):
    y = np.outer(x, x)
    t = y[0]
    y[0] = y[1]
    y[1] = t
    return np.sum(y)


def test_a_stale_view_message_names_the_line_that_reads_it():
    # np.outer's dtype is not known when the code is made, so the store converts `t`
    # (stored_as): that read was located at the def line until 2026-11-29
    first = inspect.getsourcelines(_rows_swapped_through_a_view)[1]
    with pytest.raises(ad.TransformError) as error:
        ad.grad(_rows_swapped_through_a_view)(np.array([0.5, -1.2, 0.8]))
    assert error.value.lineno == first + 3
    assert f"which is read afterwards (line {first + 4})" in str(error.value)
