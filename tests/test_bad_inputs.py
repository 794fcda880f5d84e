"""Bad inputs: a catalog of what s2s_ad must refuse clearly or handle (docs/bad_inputs.md).

Refusals are `s2s_ad.errors.TransformError`s whose message starts with `file:line:col:` (computed
here from the source, never hard-coded) and has a `hint:` line saying what to do. Misuse of the
API raises the usual Python errors (TypeError, ValueError) with a message naming the problem.
Handled cases are checked against central finite differences. Functions under test are defined at
module level in this file (s2s_ad reads their source) or generated into files under tmp_path.

Cases that show a bug are marked `xfail(strict=True)` with a one-line reason.
"""
import asyncio
import functools
import importlib
import inspect
import linecache
import math
import os
import re
import subprocess
import sys
import textwrap
import time
from math import lgamma

import numpy as np
import pytest

import s2s_ad as ad
from fd import assert_close, numerical_grad
from s2s_ad.errors import NoDerivativeRule, SourceUnavailable, TransformError, UnsupportedSyntax

try:                                   # scipy is optional
    from scipy.special import kei
except ImportError:                    # pragma: no cover - depends on the environment
    kei = None

X = np.array([0.5, -1.25, 2.0])
counter = 0


# --- constructs that are refused -----------------------------------------------------------------

def uses_yield(x):
    yield x * 2


def uses_yield_from(x):
    yield from [x * 2]


async def uses_async(x):
    await asyncio.sleep(0)
    return x * 2


def uses_try_except(x):
    try:
        y = x * 2
    except ValueError:
        y = x
    return y


def uses_try_finally(x):
    try:
        y = x * 2
    finally:
        pass
    return y


def uses_with(x):
    with open(os.devnull) as fh:
        y = x * len(fh.name)
    return y


def uses_match(x):
    match 1:
        case 1:
            y = x * 2
    return y


def writes_global(x):
    global counter
    counter = counter + 1
    return x * 2


def _make_nonlocal_writer():
    calls = 0

    def writes_nonlocal(x):
        nonlocal calls
        calls = calls + 1
        return x * 2
    return writes_nonlocal


writes_nonlocal = _make_nonlocal_writer()


def uses_del(x):
    y = [x * 2, x]
    del y[0]                # deleting an entry changes the list (a bare `del y` is allowed)
    return x


def walrus_in_if(x):
    if (y := np.sum(x * 2)) > 0:
        return y * y
    return np.sum(x)


def walrus_in_while(x):
    while (y := np.sum(x * 2)) < 10:
        x = x * 1.5 + 1.0
    return y


def walrus_in_generator(x):
    return sum((y := v * 2) for v in x) + y


def star_args(*xs):
    return xs[0] * 2


def star_kwargs(x, **options):
    return x * 2


def _pair(a, b):
    return a * b


def calls_with_star_args(x):
    pair = (x, x)
    return _pair(*pair)


def calls_with_star_kwargs(x):
    options = {}
    options["b"] = x
    return _pair(x, **options)


def calls_with_a_keyword_literal(x):
    options = {"b": x}
    return _pair(x, **options)


def imports_inside(x):
    import math as m
    m = 2.0                 # the name is bound again (a plain import is allowed)
    return x * m


def defines_class(x):
    class Box:
        pass
    return x * 2


def generator_expression(x):
    return sum(x[i] * x[i] for i in range(3))


def list_comprehension(x):
    return np.sum(np.array([x[i] ** 2 for i in range(3)]))


def dict_comprehension(x):
    d = {i: x[i] for i in range(3)}
    return d[0] * d[1]


def for_else(x):
    s = 0.0
    for i in range(3):
        s = s + x[i]
    else:
        s = s * 2
    return s


def while_else(x):
    i = 0
    s = 0.0
    while i < 3:
        s = s + x[i]
        i = i + 1
    else:
        s = s * 2
    return s


def starred_unpacking(x):
    a, *rest = x
    return a * np.sum(np.array(rest))


class _Box:
    pass


def attribute_write(x):
    box = _Box()
    box.value = x * 2
    return np.sum(box.value)


def write_through_view(x):
    y = x * 1.0
    v = y[1:]
    v[0] = 5.0
    return np.sum(y * x)


def appends_to_argument(xs, x):
    xs.append(x * 2)
    return np.sum(x)


def method_without_rule(x):
    return np.sum(x.byteswap())


def through_tolist(x):
    return sum(x.tolist())


def c_function_math_gamma(x):
    return math.gamma(x) * x


def builtin_by_name(x):
    return lgamma(x) * 2


def scipy_kei(x):
    return np.sum(kei(x) * 2)


def returns_nothing(x):
    y = x * 2


def uses_eval(x):
    return eval("x * 2")


def dynamic_getattr(x):
    return np.sum(getattr(np, "sin")(x))


def numpy_vectorize(x):
    sin = np.vectorize(math.sin)
    return np.sum(sin(x))


def numpy_function_without_rule(x):
    return np.sum(np.unwrap(x))


def _location(fn, marker):
    """(file, line, 1-based column) of the first occurrence of `marker` in fn's source."""
    lines, first = inspect.getsourcelines(fn)
    for offset, text in enumerate(lines):
        if marker in text:
            return inspect.getsourcefile(fn), first + offset, text.index(marker) + 1
    raise AssertionError(f"{marker!r} not in the source of {fn.__name__}")


def _bug(reason):
    return pytest.mark.xfail(strict=True, reason=reason)


needs_scipy = pytest.mark.skipif(kei is None, reason="scipy is not installed")

# (function, arguments, wrt, marker the location points at, error class, words in the message)
REFUSED = [
    pytest.param(uses_yield, (2.0,), 0, "yield x", UnsupportedSyntax, "yield", id="generator"),
    pytest.param(uses_yield_from, (2.0,), 0, "yield from", UnsupportedSyntax, "yield from",
                 id="yield-from"),
    pytest.param(uses_async, (2.0,), 0, "async def", TransformError, "async", id="async-def"),
    pytest.param(uses_try_except, (2.0,), 0, "try:", UnsupportedSyntax, "try", id="try-except"),
    pytest.param(uses_with, (2.0,), 0, "open(os.devnull)", UnsupportedSyntax, "with",
                 id="with"),
    pytest.param(writes_global, (2.0,), 0, "global counter", UnsupportedSyntax, "global",
                 id="global-write"),
    pytest.param(writes_nonlocal, (2.0,), 0, "nonlocal calls", UnsupportedSyntax, "nonlocal",
                 id="nonlocal-write"),
    pytest.param(uses_del, (2.0,), 0, "del y", UnsupportedSyntax, "del", id="del"),
    pytest.param(walrus_in_generator, (2.0,), 0, "y := v", UnsupportedSyntax,
                 ":=.*generator expression", id="walrus-generator"),
    pytest.param(star_args, (2.0,), 0, "xs):", UnsupportedSyntax, r"\*args", id="star-args"),
    pytest.param(star_kwargs, (2.0,), 0, "options):", UnsupportedSyntax, r"\*\*kwargs",
                 id="star-kwargs"),
    pytest.param(calls_with_star_kwargs, (2.0,), 0, "_pair(x, **options)", UnsupportedSyntax,
                 r"\*\*kwargs unpacking", id="call-with-star-kwargs"),
    pytest.param(imports_inside, (2.0,), 0, "import math", UnsupportedSyntax, "import",
                 id="import-inside"),
    pytest.param(defines_class, (2.0,), 0, "class Box", UnsupportedSyntax, "class",
                 id="class-inside"),
    pytest.param(attribute_write, (X,), 0, "box.value =", UnsupportedSyntax, "attribute",
                 id="attribute-write"),
    pytest.param(appends_to_argument, ([], 2.0), 1, "xs.append", TransformError, "append",
                 id="append-to-argument"),
    pytest.param(method_without_rule, (X,), 0, "x.byteswap()", NoDerivativeRule, "byteswap",
                 id="method-without-rule"),
    pytest.param(c_function_math_gamma, (2.0,), 0, "math.gamma(x)", NoDerivativeRule,
                 r"math\.gamma.*no adjoint registered", id="c-extension-math.gamma"),
    pytest.param(builtin_by_name, (2.0,), 0, "lgamma(x)", NoDerivativeRule,
                 "lgamma.*no adjoint registered", id="builtin-by-name"),
    pytest.param(scipy_kei, (X,), 0, "kei(x) * 2", NoDerivativeRule,
                 "kei.*no adjoint registered", id="scipy.special.kei",
                 marks=needs_scipy),
    pytest.param(returns_nothing, (2.0,), 0, "def returns_nothing", UnsupportedSyntax,
                 "no return value", id="no-return"),
    pytest.param(uses_eval, (2.0,), 0, "eval(\"x", UnsupportedSyntax, "eval", id="eval-inside"),
    pytest.param(numpy_vectorize, (X,), 0, "sin(x)", NoDerivativeRule, "vectorize",
                 id="np.vectorize"),
    pytest.param(numpy_function_without_rule, (X,), 0, "np.unwrap(x)", NoDerivativeRule, "unwrap",
                 id="numpy-function-without-rule"),
]


@pytest.mark.parametrize("fn, args", [(uses_try_finally, (2.0,)), (uses_match, (2.0,)),
                                      (write_through_view, (X,))])
def test_once_refused_now_differentiated(fn, args):
    # try/finally with no jump, match on a plain value, and a write through a view of a
    # temporary nothing else reads (issue 15) were refused here before
    expected = numerical_grad(fn, list(args), 0)
    assert_close(ad.grad(fn)(*args), expected)
    assert_close(ad.jvp(fn)(*args, tangent=np.ones_like(np.asarray(args[0])))[1],
                 np.sum(expected))


def test_function_with_a_rule_reached_only_at_run_time_uses_the_rule():
    # `getattr(np, "sin")` is np.sin when the derivative runs: its rule applies there
    expected = numerical_grad(dynamic_getattr, [X], 0)
    assert_close(ad.grad(dynamic_getattr)(X), expected)
    assert_close(ad.jvp(dynamic_getattr)(X, tangent=np.ones_like(X))[1], np.sum(expected))


@pytest.mark.parametrize("fn, args, wrt, marker, kind, words", REFUSED)
def test_refused_with_location_and_hint(fn, args, wrt, marker, kind, words):
    with pytest.raises(TransformError) as info:
        ad.grad(fn, wrt=wrt)(*args)
    err = info.value
    text = str(err)
    assert isinstance(err, kind), text
    filename, line, col = _location(fn, marker)
    assert text.startswith(f"{filename}:{line}:{col}: "), text
    assert (err.lineno, err.col + 1) == (line, col)
    assert re.search(words, text), text
    assert re.search(r"^hint: \S", text, re.M), text


# --- functions without source --------------------------------------------------------------------

def _exec_defined():
    namespace = {"np": np}
    exec("def from_exec(x):\n    return x * 2\n", namespace)
    return namespace["from_exec"]


_helper_namespace = {}
exec("def exec_helper(x):\n    return x * 2\n", _helper_namespace)
exec_helper = _helper_namespace["exec_helper"]


def calls_exec_helper(x):
    return exec_helper(x) * 3


@pytest.mark.parametrize("fn, words, location", [
    (_exec_defined(), "cannot read the source of from_exec", "<string>:1:1: "),
    (eval("lambda x: x * 2"), "cannot read the source of <lambda>", "<string>:1:1: "),
    (np.frexp, "cannot read the source of frexp", "here"),
    (math.gamma, "cannot read the source of gamma", "here"),
    (functools.partial(_pair, b=2.0), "cannot read the source of functools.partial", "here"),
], ids=["exec", "eval-lambda", "numpy-ufunc", "math.gamma", "functools.partial"])
def test_function_without_source(fn, words, location):
    with pytest.raises(SourceUnavailable) as info:
        ad.grad(fn)(2.0)      # a builtin has no file: the error points at this line
    text = str(info.value)
    assert words in text
    if location == "here":
        line = inspect.currentframe().f_lineno - 4
        location = f"{__file__}:{line}:1: "
    assert text.startswith(location), text
    assert re.search(r"^hint: \S", text, re.M), text


def test_callee_without_source_names_the_call_site():
    with pytest.raises(SourceUnavailable) as info:
        ad.grad(calls_exec_helper)(2.0)
    filename, line, _ = _location(calls_exec_helper, "exec_helper(x) * 3")
    assert f"called from {filename}:{line}" in str(info.value)
    assert "hint: " in str(info.value)


def test_source_file_deleted_after_import(tmp_path):
    path = tmp_path / "vanished.py"
    path.write_text("import numpy as np\n\n\ndef f(x):\n    return x * 3.0\n")
    module = _import_file(path)
    os.remove(path)
    linecache.checkcache(str(path))
    with pytest.raises(SourceUnavailable) as info:
        ad.grad(module.f)(2.0)
    assert str(info.value).startswith(f"{path}:4:1: "), str(info.value)
    assert "hint: " in str(info.value)


# --- misuse of the API ---------------------------------------------------------------------------

def two_params(a, b):
    return a * b


def vector_valued(x):
    return x * 2


def tuple_valued(x):
    return np.sum(x), np.sum(x * x)


@pytest.mark.parametrize("a", [3, np.arange(3), np.int32(2), True],
                         ids=["int", "int-array", "numpy-int", "bool"])
def test_gradient_with_respect_to_an_integer(a):
    with pytest.raises(TypeError, match="cannot differentiate with respect to 'a': it is an "
                                        "integer"):
        ad.grad(two_params)(a, 2.0)


def test_integer_argument_outside_wrt_is_fine():
    assert ad.grad(two_params, wrt="b")(3, 2.0) == 3.0


@pytest.mark.parametrize("wrt, error, words", [
    ("c", ValueError, r"wrt='c' is not a parameter of two_params \(a, b\)"),
    (2, ValueError, r"wrt=2 is out of range: two_params has 2 parameter\(s\)"),
    (-3, ValueError, r"wrt=-3 is out of range"),
    ((), ValueError, "wrt is empty"),
    ((0, "a"), ValueError, "wrt names a parameter twice"),
    (1.5, TypeError, "wrt must be a parameter index or name"),
], ids=["missing-name", "index-out-of-range", "negative-out-of-range", "empty", "twice",
        "float"])
def test_bad_wrt(wrt, error, words):
    with pytest.raises(error, match=words):
        ad.grad(two_params, wrt=wrt)


def test_seed_of_the_wrong_shape():
    with pytest.raises(ValueError, match=r"seed has shape \(3,\) but vector_valued returned "
                                         r"shape \(2, 3\)"):
        ad.vjp(vector_valued)(np.ones((2, 3)), seed=np.ones(3))


def test_array_seed_for_a_scalar_output():
    with pytest.raises(ValueError, match=r"seed has shape \(3,\) but two_params returned "
                                         r"shape \(\)"):
        ad.vjp(two_params)(1.0, 2.0, seed=np.ones(3))


@pytest.mark.parametrize("transform", [ad.grad, ad.value_and_grad])
def test_non_scalar_output_names_the_shape_and_vjp(transform):
    with pytest.raises(TypeError, match=r"shape \(2, 3\).*vjp.*seed="):
        transform(vector_valued)(np.ones((2, 3)))


def test_tuple_output_to_grad_names_the_shape_and_vjp():
    with pytest.raises(TypeError, match=r"shape \(2,\).*vjp"):
        ad.grad(tuple_valued)(X)


def test_wrong_number_of_arguments_is_a_plain_type_error():
    with pytest.raises(TypeError, match="missing a required argument: 'b'"):
        ad.grad(two_params)(1.0)


# --- handled: the right gradient -------------------------------------------------------------------

def with_assert(x):
    assert x.shape == (3,)
    return np.sum(x * x)


def with_print(x):
    print("shape", x.shape)
    return np.sum(x * x)


def with_isinstance(x):
    if isinstance(x, np.ndarray):
        return np.sum(x * 3)
    return x * 3


def chained_assignment(x):
    a = b = x * 2
    return np.sum(a * b)


def through_float(x):
    return float(np.sum(x)) * 2.0


def with_fstring(x):
    label = f"{x.shape}"
    return np.sum(x * len(label))


def keyword_only(x, *, scale=2.0):
    return np.sum(x * scale)


def constant_result(x):
    return 3.0


def nested_def(x):
    def double(t):
        return t * 2
    return np.sum(double(x) * x)


def inner_lambda(x):
    square = lambda t: t * t      # noqa: E731
    return np.sum(square(x))


def _make_closure(c):
    def scaled(x):
        return np.sum(x * c)
    return scaled


closure = _make_closure(3.0)


@pytest.mark.parametrize("fn, x", [
    (with_assert, X), (with_print, X), (with_isinstance, X), (chained_assignment, X),
    (through_float, X), (with_fstring, X), (keyword_only, X), (constant_result, X),
    (nested_def, X), (inner_lambda, X), (closure, X), (for_else, X), (while_else, X),
    (calls_with_star_args, np.array(1.5)), (starred_unpacking, X), (through_tolist, X),
    (calls_with_a_keyword_literal, np.array(1.5)),
    (keyword_only, np.array(2.0)), (keyword_only, np.zeros(0)),
    (walrus_in_if, X), (walrus_in_while, X), (dict_comprehension, X),
], ids=["assert", "print", "isinstance", "chained-assignment", "float()", "f-string",
        "keyword-only-default", "constant-result", "nested-def", "lambda-inside", "closure",
        "for-else", "while-else", "call-with-star-args", "starred-unpacking", "tolist",
        "call-with-a-keyword-literal",
        "0-d-array", "empty-array", "walrus-if", "walrus-while", "dict-comprehension"])
def test_handled(fn, x, capsys):
    grad = ad.grad(fn)(x.copy())
    assert np.shape(grad) == np.shape(x)
    np.testing.assert_allclose(grad, numerical_grad(fn, [x.copy()], 0), rtol=1e-6, atol=1e-7)


def test_float32_input_gives_float32_gradient():
    grad = ad.grad(keyword_only)(X.astype(np.float32))
    assert grad.dtype == np.float32
    np.testing.assert_allclose(grad, 2.0)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("transform", ["grad", "hessian", "jacobian_of_grad", "hvp"])
def test_low_precision_stays_low_precision_in_every_transform(dtype, transform):
    x = np.array([0.3, -0.5], dtype=dtype)
    derivative = {"grad": lambda: ad.grad(square_sum)(x),
                  "hessian": lambda: ad.hessian(square_sum)(x),
                  "jacobian_of_grad": lambda: ad.jacobian(ad.grad(square_sum))(x),
                  "hvp": lambda: ad.hvp(square_sum)(x, vector=np.ones(2, dtype))}[transform]()
    assert derivative.dtype == dtype


def square_sum(x):
    return np.sum(x * x)


def branch_on_sum(x):
    if np.sum(x) > 0:
        return np.sum(np.tanh(x))
    return np.sum(x * 3.0)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("fn, x", [
    (square_sum, np.array([np.nan, 1.0, 2.0])),
    (square_sum, np.array([np.inf, 1.0, -np.inf])),
    (branch_on_sum, np.array([np.nan, 1.0, 2.0])),   # nan > 0 is False, as in NumPy
    (branch_on_sum, np.array([np.inf, 1.0, 2.0])),
    (keyword_only, np.array([np.nan, np.inf, -np.inf])),
], ids=["nan", "inf", "nan-in-condition", "inf-in-tanh", "nan-inf-linear"])
def test_nan_and_inf_propagate_like_numpy(fn, x):
    value, grad = ad.value_and_grad(fn)(x.copy())
    np.testing.assert_array_equal(value, fn(x.copy()))
    # the gradient NumPy arithmetic gives, written out by hand
    expected = {square_sum: lambda v: 2 * v,
                branch_on_sum: lambda v: (1 - np.tanh(v) ** 2) if np.sum(v) > 0
                else np.full_like(v, 3.0),
                keyword_only: lambda v: np.full_like(v, 2.0)}[fn](x)
    np.testing.assert_array_equal(grad, expected)


# --- redefinition: the new source wins ---------------------------------------------------------

def _import_file(path, name=None):
    name = name or f"bad_inputs_{path.stem}_{time.perf_counter_ns()}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_module_rewritten_and_reloaded(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path = tmp_path / "redefined_module.py"
    path.write_text("def f(x):\n    return x * x\n")
    module = importlib.import_module("redefined_module")
    try:
        assert ad.grad(module.f)(3.0) == 6.0
        path.write_text("def f(x):\n    return x * x * x + 1.0\n")
        module = importlib.reload(module)
        assert ad.grad(module.f)(3.0) == 27.0
        assert "x * x * x" in ad.source(ad.grad(module.f)) or "_mul" in ad.source(
            ad.grad(module.f))
    finally:
        sys.modules.pop("redefined_module", None)


def test_exec_into_a_file_then_redefined(tmp_path):
    path = tmp_path / "exec_target.py"
    namespace = {"np": np}
    path.write_text("def g(x):\n    return np.sin(x)\n")
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    first = namespace["g"]
    assert ad.grad(first)(0.5) == pytest.approx(math.cos(0.5))
    path.write_text("def g(x):\n    return np.sin(x) * np.sin(x)\n")
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    second = namespace["g"]
    assert ad.grad(second)(0.5) == pytest.approx(2 * math.sin(0.5) * math.cos(0.5))
    # the first function keeps its own derivative
    assert ad.grad(first)(0.5) == pytest.approx(math.cos(0.5))


def test_code_object_replaced(tmp_path):
    path = tmp_path / "swap_code.py"
    path.write_text("def f(x):\n    return x * 2.0\n\n\ndef g(x):\n    return x * 5.0\n")
    module = _import_file(path)
    df = ad.grad(module.f)
    assert df(1.0) == 2.0
    module.f.__code__ = module.g.__code__
    assert ad.grad(module.f)(1.0) == 5.0


# --- size: very long functions, deep nesting ---------------------------------------------------------

LONG_LINES = 2000
_STEPS = ["    y = y + 0.001 * np.sin(y)", "    y = y * 0.999 + 0.001 * x",
          "    y = np.tanh(y) * 0.5 + y * 0.5", "    y = y - 0.0001 * y * y"]


def write_long_function(path, lines):
    """`def long_fn(x):` with `lines` lines in all (def and return included)."""
    body = [_STEPS[i % 4] for i in range(lines - 3)]
    path.write_text("\n".join(["import numpy as np", "", "", "def long_fn(x):",
                               "    y = x * 1.0"] + body + ["    return np.sum(y)"]) + "\n")


def test_long_function_is_differentiated(tmp_path):
    """A 120-line straight-line function: the right gradient (the 2,000-line timing is below)."""
    path = tmp_path / "long120.py"
    write_long_function(path, 120)
    module = _import_file(path)
    x = np.array([0.3, -0.4])
    np.testing.assert_allclose(ad.grad(module.long_fn)(x), numerical_grad(module.long_fn, [x], 0),
                               rtol=1e-6, atol=1e-8)


_TIMING_SCRIPT = """
import sys, time, importlib.util
import numpy as np
sys.path.insert(0, {tests!r})
import s2s_ad as ad
from fd import assert_close, numerical_grad
spec = importlib.util.spec_from_file_location("long2000", {path!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
start = time.perf_counter()
df = ad.grad(module.long_fn)
df.source
elapsed = time.perf_counter() - start
x = np.array([0.3, -0.4])
assert np.allclose(df(x), numerical_grad(module.long_fn, [x], 0), rtol=1e-6, atol=1e-8)
print(elapsed)
"""


def test_two_thousand_line_function_is_differentiated(tmp_path):
    """The right gradient for 2,000 lines. How long the transform takes is measured by
    benchmarks/transform_time.py (recorded in docs/bad_inputs.md), not asserted here; the
    subprocess limit only stops a hang."""
    path = tmp_path / "long2000.py"
    write_long_function(path, LONG_LINES)
    assert len(path.read_text().splitlines()) == LONG_LINES + 3     # the import and 2 blanks
    script = _TIMING_SCRIPT.format(tests=os.path.dirname(__file__), path=str(path))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr


def write_deep_nesting(path, depth):
    lines = ["import numpy as np", "", "", "def deep(x):", "    s = np.sum(x)", "    y = x * 1.0"]
    for d in range(depth):
        indent = "    " * (d + 1)
        lines += [f"{indent}if s > {-2 * depth + 2 * d}:",
                  f"{indent}    y = y * 1.01 + 0.01 * np.sin(y)"]
    lines.append("    " * (depth + 1) + "y = y * x")
    lines.append("    return np.sum(y * y)")
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("x", [np.array([0.3, 0.5]), np.array([-30.2, -19.9])],
                         ids=["all-50-levels", "stops-at-level-25"])
def test_fifty_levels_of_if(tmp_path, x):
    path = tmp_path / "deep_if.py"
    write_deep_nesting(path, 50)
    module = _import_file(path)
    np.testing.assert_allclose(ad.grad(module.deep)(x), numerical_grad(module.deep, [x], 0),
                               rtol=1e-6, atol=1e-8)


def test_deeply_nested_expression(tmp_path):
    expression = "x"
    for k in range(60):
        expression = f"(np.sin({expression}) * 0.5 + x * {k % 3 + 1} * 0.1)"
    path = tmp_path / "deep_expression.py"
    path.write_text(f"import numpy as np\n\n\ndef deep_expression(x):\n    return {expression}\n")
    module = _import_file(path)
    np.testing.assert_allclose(ad.grad(module.deep_expression)(0.7),
                               numerical_grad(module.deep_expression, [0.7], 0), rtol=1e-6)


def test_chain_of_thirty_helpers(tmp_path):
    parts = ["import numpy as np", "", "", "def h0(x):", "    return np.sin(x) + x", ""]
    for k in range(1, 30):
        parts += [f"def h{k}(x):", f"    return h{k - 1}(x) * 0.9 + np.cos(x) * 0.1", ""]
    path = tmp_path / "helper_chain.py"
    path.write_text("\n".join(parts) + "\n")
    module = _import_file(path)
    np.testing.assert_allclose(ad.grad(module.h29)(0.3), numerical_grad(module.h29, [0.3], 0),
                               rtol=1e-6)


# --- calls that write into an argument, and writes through .flat / .real / .imag ----------------
# Refused in both modes when the call reads a value that depends on the inputs: the derivative
# cannot see a change made inside a NumPy call.

def ufunc_at(x):
    y = np.zeros(3)
    np.add.at(y, [0, 0, 1], x)
    return np.sum(y ** 2)


def ufunc_at_assigned(x):
    y = x * 1.0
    done = np.multiply.at(y, np.array([0, 0]), 3.0)
    return np.sum(y * x) if done is None else x[0]


def copyto(x):
    y = np.zeros(3)
    np.copyto(y, x)
    return np.sum(y ** 2)


def out_keyword(x):
    y = np.zeros(3)
    np.multiply(x, 2.0, out=y)
    return np.sum(y ** 2)


def out_into_itself(x):
    y = x * 1.0
    np.exp(y, out=y)
    return np.sum(y * x)


def out_keyword_assigned(x):
    y = np.zeros(3)
    z = np.multiply(x, 2.0, out=y)
    return np.sum(y ** 2) + np.sum(z)


def out_positional(x):
    y = np.zeros(3)
    np.multiply(x, 2.0, y)
    return np.sum(y ** 2)


def out_of_a_method(x):
    y = np.zeros(())
    x.sum(out=y)
    return y * 2.0


def np_put(x):
    y = x * 1.0
    np.put(y, [0], 5.0)
    return np.sum(y * x)


def np_place(x):
    y = x * 1.0
    np.place(y, y > 0, 5.0)
    return np.sum(y * x)


def np_putmask(x):
    y = x * 1.0
    np.putmask(y, y > 0, 5.0)
    return np.sum(y * x)


def np_fill_diagonal(x):
    y = np.outer(x, x)
    np.fill_diagonal(y, 0.0)
    return np.sum(y)


def method_fill(x):
    y = x * 1.0
    y.fill(2.0)
    return np.sum(y * x)


def method_sort(x):
    y = x * 1.0
    y.sort()
    return np.sum(y * np.arange(3.0))


def method_put(x):
    y = x * 1.0
    y.put([0], 5.0)
    return np.sum(y * x)


def method_resize(x):
    y = x * 1.0
    y.resize(2, refcheck=False)
    return np.sum(y * x[:2])


def method_itemset(x):
    y = x * 1.0
    y.itemset(0, 5.0)          # gone in NumPy 2, refused before it would run
    return np.sum(y * x)


def random_shuffle(x):
    y = x * 1.0
    np.random.shuffle(y)
    return np.sum(y * np.arange(3.0))


def write_through_flat(x):
    y = x * 1.0
    y.flat[0] = 5.0
    return np.sum(y * x)


def write_through_real(x):
    y = x * 1.0
    z = y.real
    z[0] = 5.0
    return np.sum(y * x)


def write_through_imag(x):
    y = x * 1.0
    z = y.imag
    z[0] = 5.0
    return np.sum(y * x)


def write_into_real(x):
    y = x * 1.0
    y.real[1] = 5.0
    return np.sum(y * x)


def write_through_flat_view(x):
    y = x * 1.0
    z = y.flat
    z[0] = 5.0
    return np.sum(y * x)


_STATEMENT = "used as a statement: it may change `y` in place"
_ASSIGN = r"compute the new value and assign it \(`y = \.\.\.`"

# (function, marker the location points at, words in the message, words in the hint)
IN_PLACE_REFUSED = [
    pytest.param(ufunc_at, "np.add.at", r"`np\.add\.at\(\.\.\.\)` writes into `y` in place",
                 r"for k in range\(len\(idx\)\): y\[idx\[k\]\] \+= x\[k\]", id="np.add.at"),
    pytest.param(ufunc_at_assigned, "np.multiply.at", r"`np\.multiply\.at\(\.\.\.\)` writes into "
                 "`y`", r"y\[idx\[k\]\] \*= 3\.0", id="ufunc.at-assigned"),
    pytest.param(copyto, "np.copyto", r"`np\.copyto\(\.\.\.\)` " + _STATEMENT, _ASSIGN,
                 id="np.copyto"),
    pytest.param(out_keyword, "np.multiply", r"`np\.multiply\(\.\.\., out=y\)` writes its result "
                 "into `y`", r"`y = np\.multiply\(x, 2\.0\)`", id="out="),
    pytest.param(out_into_itself, "np.exp", r"out=y", r"`y = np\.exp\(y\)`", id="out=-itself"),
    pytest.param(out_keyword_assigned, "np.multiply", r"out=y", r"`y = np\.multiply\(x, 2\.0\)`",
                 id="out=-assigned"),
    pytest.param(out_positional, "np.multiply", r"out=y", r"`y = np\.multiply\(x, 2\.0\)`",
                 id="ufunc-positional-out"),
    pytest.param(out_of_a_method, "x.sum", r"`x\.sum\(\.\.\., out=y\)`", r"`y = x\.sum\(\)`",
                 id="method-out="),
    pytest.param(np_put, "np.put", r"`np\.put\(\.\.\.\)` " + _STATEMENT, _ASSIGN, id="np.put"),
    pytest.param(np_place, "np.place", r"`np\.place\(\.\.\.\)` " + _STATEMENT, _ASSIGN,
                 id="np.place"),
    pytest.param(np_putmask, "np.putmask", r"`np\.putmask\(\.\.\.\)` " + _STATEMENT, _ASSIGN,
                 id="np.putmask"),
    pytest.param(np_fill_diagonal, "np.fill_diagonal",
                 r"`np\.fill_diagonal\(\.\.\.\)` " + _STATEMENT,
                 _ASSIGN, id="np.fill_diagonal"),
    pytest.param(method_fill, "y.fill", r"`y\.fill\(\.\.\.\)` " + _STATEMENT, _ASSIGN, id=".fill"),
    pytest.param(method_sort, "y.sort", r"`y\.sort\(\.\.\.\)` " + _STATEMENT, _ASSIGN, id=".sort"),
    pytest.param(method_put, "y.put", r"`y\.put\(\.\.\.\)` " + _STATEMENT, _ASSIGN, id=".put"),
    pytest.param(method_resize, "y.resize", r"`y\.resize\(\.\.\.\)` " + _STATEMENT, _ASSIGN,
                 id=".resize"),
    pytest.param(method_itemset, "y.itemset", r"`y\.itemset\(\.\.\.\)` " + _STATEMENT, _ASSIGN,
                 id=".itemset"),
    pytest.param(random_shuffle, "np.random.shuffle",
                 r"`np\.random\.shuffle\(\.\.\.\)` " + _STATEMENT,
                 _ASSIGN, id="np.random.shuffle"),
    pytest.param(write_through_flat, "y.flat[0]", r"in-place write into `y\.flat`, which may share "
                 "memory with `y`", r"write into `y` itself", id="write-through-.flat"),
    pytest.param(write_through_flat_view, "z[0] = 5.0", r"in-place write into `z`, which may share "
                 "memory", r"copy first", id="write-through-.flat-view"),
    pytest.param(write_through_real, "z[0] = 5.0", r"in-place write into `z`, which may share "
                 "memory", r"copy first", id="write-through-.real"),
    pytest.param(write_through_imag, "z[0] = 5.0", r"in-place write into `z`", r"copy first",
                 id="write-through-.imag"),
    pytest.param(write_into_real, "y.real[1]", r"in-place write into `y\.real`",
                 r"write into `y` itself", id="write-into-.real"),
]


@pytest.mark.parametrize("transform", [ad.grad, ad.jvp], ids=["grad", "jvp"])
@pytest.mark.parametrize("fn, marker, words, hint", IN_PLACE_REFUSED)
def test_in_place_write_refused_in_both_modes(fn, marker, words, hint, transform):
    with pytest.raises(TransformError) as info:
        ad.source(transform(fn))
    err = info.value
    text = str(err)
    assert isinstance(err, UnsupportedSyntax), text
    filename, line, col = _location(fn, marker)
    assert text.startswith(f"{filename}:{line}:{col}: "), text
    assert re.search(words, text), text
    hint_line = re.search(r"^hint: (.+)$", text, re.M)
    assert hint_line and re.search(hint, hint_line.group(1)), text


def test_in_place_write_refused_when_the_derivative_is_first_called():
    with pytest.raises(UnsupportedSyntax, match="out=y"):
        ad.grad(out_keyword)(X.copy())
    with pytest.raises(UnsupportedSyntax, match="out=y"):
        ad.jvp(out_keyword)(X.copy(), tangent=np.ones(3))


def add_at_constants(x):
    y = np.zeros(3)
    np.add.at(y, [0, 0, 1], 1.0)          # nothing here depends on x: a constant, fine
    return np.sum(y * x)


def out_with_constants(x):
    y = np.zeros(3)
    np.multiply(np.arange(3.0), 2.0, out=y)
    return np.sum(y * x)


def add_at_as_the_hint_says(x):
    y = np.zeros(3)
    idx = np.array([0, 0, 1])
    for k in range(len(idx)):
        y[idx[k]] += x[k]
    return np.sum(y ** 2)


@pytest.mark.parametrize("fn", [add_at_constants, out_with_constants, add_at_as_the_hint_says],
                         ids=["ufunc.at-on-constants", "out=-on-constants", "add.at-hint-loop"])
def test_in_place_calls_on_constants_and_the_hint_are_differentiated(fn):
    x = np.array([0.3, -1.2, 0.8])
    expected = numerical_grad(fn, [x.copy()], 0)
    np.testing.assert_allclose(ad.grad(fn)(x.copy()), expected, rtol=1e-6, atol=1e-7)
    v = np.array([1.0, 0.5, -0.3])
    _, tangent = ad.jvp(fn)(x.copy(), tangent=v)
    np.testing.assert_allclose(tangent, expected @ v, rtol=1e-6, atol=1e-7)


# --- fancy-index assignment with a repeated index: the last write wins, as in NumPy -------------

def repeated_index_set(x):
    y = np.zeros(4)
    y[[1, 1]] = x[:2]
    return np.sum(y ** 2)


def repeated_index_add(x):
    y = np.zeros(4)
    y[[1, 1]] += x[:2]            # buffered: y[1] = 0 + x[1], not x[0] + x[1]
    return np.sum(y ** 2)


def repeated_array_index_add(x):
    y = x * 1.0
    y[np.array([0, 0])] += x[1:]
    return np.sum(y ** 2)


def repeated_index_scalar_value(x):
    y = x * 1.0
    y[[0, 0]] = x[2] * 2.0
    return np.sum(y ** 2)


def repeated_pairs_2d(x):
    y = np.zeros((3, 3))
    y[[0, 0, 2], [1, 1, 0]] = x * 2.0
    return np.sum(y ** 2 * np.arange(9.0).reshape(3, 3))


def repeated_columns(x):
    y = np.zeros((2, 3))
    y[:, [2, 2, 0]] = np.stack([x, x * 3.0])
    return np.sum(y ** 2 * np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))


def repeated_index_in_a_loop(x):
    y = np.zeros(4)
    idx = np.array([1, 1, 3])
    for k in range(2):
        y[idx] += x * (k + 1.0)
    return np.sum(y ** 2)


def repeated_index_argument(x, idx):
    y = x * 1.0
    y[idx] = x[1:] ** 2
    return np.sum(y ** 3)


@pytest.mark.parametrize("fn, extra", [
    (repeated_index_set, ()), (repeated_index_add, ()), (repeated_array_index_add, ()),
    (repeated_index_scalar_value, ()), (repeated_pairs_2d, ()), (repeated_columns, ()),
    (repeated_index_in_a_loop, ()), (repeated_index_argument, (np.array([0, 0]),)),
    (repeated_index_argument, ([2, 1],)),
], ids=["set", "+=", "array-index-+=", "scalar-value", "2-d-pairs", "columns", "in-a-loop",
        "index-argument", "unique-index-argument"])
def test_repeated_fancy_index_keeps_the_last_write(fn, extra):
    x = np.array([0.3, -1.2, 0.8])
    v = np.array([1.0, 0.5, -0.3])
    expected = numerical_grad(fn, [x.copy(), *extra], 0)
    np.testing.assert_allclose(ad.grad(fn)(x.copy(), *extra), expected, rtol=1e-6, atol=1e-7)
    _, tangent = ad.jvp(fn)(x.copy(), *extra, tangent=v)
    np.testing.assert_allclose(tangent, expected @ v, rtol=1e-6, atol=1e-7)
    eps = 1e-5
    hessian_v = (ad.grad(fn)(x + eps * v, *extra) - ad.grad(fn)(x - eps * v, *extra)) / (2 * eps)
    np.testing.assert_allclose(ad.hvp(fn)(x.copy(), *extra, vector=v), hessian_v,
                               rtol=1e-5, atol=1e-6)


def test_repeated_index_example_from_the_report():
    x = np.array([0.3, -1.2, 0.8])
    np.testing.assert_allclose(ad.grad(repeated_index_set)(x), [0.0, -2.4, 0.0])


_ALONG = np.array([1.0, 0.5, -0.3])
_grad_of_repeated_pairs = ad.grad(repeated_pairs_2d)


def repeated_pairs_slope_along(x):
    return np.sum(_grad_of_repeated_pairs(x) * _ALONG)


def test_repeated_fancy_index_differentiated_twice_in_reverse_mode():
    x = np.array([0.3, -1.2, 0.8])
    np.testing.assert_allclose(ad.grad(repeated_pairs_slope_along)(x),
                               numerical_grad(repeated_pairs_slope_along, [x], 0),
                               rtol=1e-6, atol=1e-6)


_rng = np.random.default_rng(0)


def permutation_of_the_input(x):
    return np.sum(np.random.permutation(x) * np.arange(3.0))


def draw_with_an_input_mean(x):
    return np.sum(_rng.normal(x, 1.0) ** 2)


def reparameterized_draw(x):
    noise = _rng.standard_normal(x.shape) + np.random.rand(len(x))
    return np.sum((x + 0.5 * noise) ** 2)


@pytest.mark.parametrize("transform", [ad.grad, ad.jvp], ids=["grad", "jvp"])
@pytest.mark.parametrize("fn, marker, callee", [
    (permutation_of_the_input, "np.random.permutation", "np.random.permutation"),
    (draw_with_an_input_mean, "_rng.normal", "_rng.normal")], ids=["permutation", "normal"])
def test_a_random_draw_from_the_inputs_is_refused(fn, marker, callee, transform):
    """Random draws are constants: one whose arguments depend on the inputs would silently
    lose their gradient (a permutation of x, a sample with mean x)."""
    with pytest.raises(UnsupportedSyntax) as info:
        ad.source(transform(fn))
    text = str(info.value)
    filename, line, col = _location(fn, marker)
    assert text.startswith(f"{filename}:{line}:{col}: cannot differentiate the random draw "
                           f"`{callee}(...)`"), text
    assert "hint: draw from fixed parameters" in text


def test_noise_drawn_from_shapes_of_the_input_is_a_constant():
    x = np.array([0.3, -1.2, 0.8])
    state = _rng.bit_generator.state
    np.random.seed(5)
    grad = ad.grad(reparameterized_draw)(x)
    _rng.bit_generator.state = state
    np.random.seed(5)
    noise = _rng.standard_normal(3) + np.random.rand(3)
    np.testing.assert_allclose(grad, 2 * (x + 0.5 * noise), rtol=1e-12)


@pytest.mark.parametrize("fn", [generator_expression, list_comprehension])
def test_comprehensions_over_the_input_are_differentiated(fn):
    # refused (rows 20 and 21 of docs/bad_inputs.md) until comprehensions became loops
    np.testing.assert_allclose(ad.grad(fn)(X), 2 * X, rtol=1e-12)     # d sum(x_i^2) = 2x
