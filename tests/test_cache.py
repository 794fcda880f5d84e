"""The derivative cache: keyed by the function's code, closure cells, globals and the options.

One transformation per key (also when threads race for it), a redefined function gets a new
derivative, `s2s_ad.clear_cache()` forgets everything, and no file is left in a temporary
directory per call (generated code lives in `linecache`).
"""
import importlib.util
import linecache
import os
import sys
import tempfile
import threading
import time
import types

import numpy as np
import pytest

import s2s_ad as ad
from s2s_ad import cache, pipeline, rules


def square(x):
    return np.sum(x * x)


def two_args(x, y):
    return np.sum(x * y)


def make_scaled(c):
    def scaled(x):
        return np.sum(x * c)
    return scaled


def make_rebindable(c):
    def scaled(x):
        return x * c

    def set_c(value):
        nonlocal c
        c = value
    return scaled, set_c


@pytest.fixture
def builds(monkeypatch):
    """Count (and optionally slow down) calls to pipeline.reverse_mode."""
    calls = []
    real = pipeline.reverse_mode

    def counting(fn, wrt_names, *args, **kwargs):
        calls.append((getattr(fn, "__name__", fn), tuple(wrt_names)))
        if counting.delay:
            time.sleep(counting.delay)
        return real(fn, wrt_names, *args, **kwargs)

    counting.delay = 0.0
    counting.calls = calls
    monkeypatch.setattr(pipeline, "reverse_mode", counting)
    ad.clear_cache()
    yield counting
    ad.clear_cache()


def _import_file(path):
    name = f"cache_test_{path.stem}_{time.perf_counter_ns()}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


X = np.array([1.0, -2.0, 0.5])


def test_one_transformation_per_function_and_wrt(builds):
    assert np.allclose(ad.grad(square)(X), 2 * X)
    assert np.allclose(ad.grad(square)(X * 2), 4 * X)          # a new wrapper, same entry
    df = ad.grad(square)
    df(X)
    df(X)
    assert builds.calls == [("square", ("x",))]


def test_value_and_grad_and_vjp_share_one_transformation_and_grad_has_one(builds):
    ad.grad(two_args)(X, X)                 # the gradient alone: code of its own
    ad.value_and_grad(two_args)(X, X)
    ad.vjp(two_args)(X, X, seed=1.0)
    ad.grad(two_args, wrt="x")(X, X)                          # the same wrt, spelled by name
    assert builds.calls == [("two_args", ("x",))] * 2


def test_wrt_is_part_of_the_key(builds):
    gx = ad.grad(two_args, wrt=0)(X, 2 * X)
    gy = ad.grad(two_args, wrt=1)(X, 2 * X)
    gxy = ad.grad(two_args, wrt=(0, 1))(X, 2 * X)
    assert np.allclose(gx, 2 * X) and np.allclose(gy, X)
    assert np.allclose(gxy[0], 2 * X) and np.allclose(gxy[1], X)
    assert sorted(w for _, w in builds.calls) == [("x",), ("x", "y"), ("y",)]


def test_forward_mode_is_a_separate_entry(builds):
    before = cache.size()
    ad.grad(square)(X)
    value, tangent = ad.jvp(square)(X, tangent=np.ones(3))
    assert tangent == pytest.approx(np.sum(2 * X))
    assert cache.size() >= before + 2


def test_each_closure_gets_its_own_derivative(builds):
    double, triple = make_scaled(2.0), make_scaled(3.0)
    assert double.__code__ is triple.__code__
    assert np.allclose(ad.grad(double)(X), 2.0)
    assert np.allclose(ad.grad(triple)(X), 3.0)
    assert np.allclose(ad.grad(double)(X), 2.0)
    assert len(builds.calls) == 2


def test_closures_created_and_dropped_in_a_loop_never_see_a_stale_entry(builds):
    # a dropped closure's cell ids can be reused by the next one: the cache must not confuse them
    for c in np.linspace(1.0, 4.0, 25):
        assert np.allclose(ad.grad(make_scaled(c))(X), c)


def test_closure_cell_rebound_after_the_derivative_was_built(builds):
    # was a bug: the old value stayed baked into the derivative (stale value and gradient)
    scaled, set_c = make_rebindable(2.0)
    df = ad.value_and_grad(scaled)
    assert df(1.0) == (2.0, 2.0)
    set_c(5.0)
    assert scaled(1.0) == 5.0
    assert df(1.0) == (5.0, 5.0)


def test_globals_are_read_when_the_derivative_runs(tmp_path, builds):
    path = tmp_path / "uses_global.py"
    path.write_text("SCALE = 2.0\n\n\ndef f(x):\n    return x * SCALE\n")
    module = _import_file(path)
    df = ad.grad(module.f)
    assert df(1.0) == 2.0
    module.SCALE = 5.0
    assert df(1.0) == 5.0
    assert len(builds.calls) == 1


def test_same_code_with_other_globals_is_another_entry(tmp_path, builds):
    path = tmp_path / "two_globals.py"
    path.write_text("def f(x):\n    return x * SCALE\n")
    module = _import_file(path)
    code = module.f.__code__
    f2 = types.FunctionType(code, {"SCALE": 2.0, "__builtins__": __builtins__}, "f")
    f7 = types.FunctionType(code, {"SCALE": 7.0, "__builtins__": __builtins__}, "f")
    assert ad.grad(f2)(1.0) == 2.0
    assert ad.grad(f7)(1.0) == 7.0
    assert len(builds.calls) == 2


def test_redefined_function_gets_a_new_derivative(tmp_path, builds):
    path = tmp_path / "redefined.py"
    namespace = {"np": np}
    path.write_text("def f(x):\n    return x * x\n")
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    old = namespace["f"]
    assert ad.grad(old)(3.0) == 6.0
    path.write_text("def f(x):\n    return x * x * x + 0.5\n")
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    new = namespace["f"]
    assert new.__code__ is not old.__code__
    assert ad.grad(new)(3.0) == 27.0
    assert "x * x * x" in "".join(linecache.getlines(str(path)))
    assert len(builds.calls) == 2
    assert ad.grad(old)(3.0) == 6.0                         # the old function keeps its own


def test_replacing_the_code_object_replaces_the_derivative(tmp_path, builds):
    path = tmp_path / "swap.py"
    path.write_text("def f(x):\n    return x * 2.0\n\n\ndef g(x):\n    return x * 5.0\n")
    module = _import_file(path)
    assert ad.grad(module.f)(1.0) == 2.0
    module.f.__code__ = module.g.__code__
    assert ad.grad(module.f)(1.0) == 5.0


def test_two_threads_get_one_transformation_and_the_same_function(builds):
    builds.delay = 0.3                          # keep the first build in flight
    barrier = threading.Barrier(2)
    generated = [None, None]
    errors = []

    def worker(k):
        try:
            df = ad.grad(square)
            barrier.wait()
            assert np.allclose(df(X), 2 * X)
            generated[k] = df.generated         # the code for arguments like X
        except Exception as e:                  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert not errors, errors
    assert builds.calls == [("square", ("x",))]
    assert generated[0] is generated[1]
    assert generated[0].function is generated[1].function


def test_many_threads_many_functions(builds):
    """Eight threads, two functions, several wrts: one build per (function, wrt)."""
    builds.delay = 0.05
    barrier = threading.Barrier(8)
    results = {}
    lock = threading.Lock()

    def worker(k):
        barrier.wait()
        fn, wrt = [(square, 0), (two_args, 0), (two_args, 1), (two_args, (0, 1))][k % 4]
        df = ad.grad(fn, wrt=wrt)
        out = df(X, X) if fn is two_args else df(X)
        with lock:
            results.setdefault((fn.__name__, str(wrt)), []).append(df.generated)
        return out

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(builds.calls) == 4
    for entries in results.values():
        assert all(e is entries[0] for e in entries)


def test_clear_cache(builds):
    ad.grad(square)(X)
    assert cache.size() >= 1
    ad.clear_cache()
    assert cache.size() == 0
    assert np.allclose(ad.grad(square)(X), 2 * X)
    assert len(builds.calls) == 2


def test_derivative_made_before_clear_cache_keeps_working(builds):
    df = ad.grad(square)
    df(X)
    ad.clear_cache()
    assert np.allclose(df(X), 2 * X)


def _listing(directory):
    return set(os.listdir(directory))


def _s2s_entries(directory):
    """Entries that look like s2s_ad's own (the fuzzer's scratch directories aside)."""
    if not os.path.isdir(directory):
        return set()
    return {n for n in os.listdir(directory) if "s2s" in n.lower() and "fuzz" not in n.lower()}


def test_no_file_left_in_the_temporary_directory(tmp_path, monkeypatch):
    """50 distinct transformations, 50 calls: nothing new in tempfile.gettempdir()."""
    system_tmp = tempfile.gettempdir()
    before_system = _s2s_entries(system_tmp)
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setenv("TMPDIR", str(private))
    monkeypatch.setattr(tempfile, "tempdir", str(private))
    source = tmp_path / "src"
    source.mkdir()
    path = source / "fifty.py"
    path.write_text("import numpy as np\n\n\n" + "".join(
        f"def f{k}(x):\n    return np.sum(np.sin(x) * {k + 1}.0)\n\n\n" for k in range(50)))
    module = _import_file(path)
    assert tempfile.gettempdir() == str(private)
    before = _listing(private)
    for k in range(50):
        fn = getattr(module, f"f{k}")
        assert np.allclose(ad.grad(fn)(X), (k + 1) * np.cos(X))
        ad.value_and_grad(fn)(X)
        ad.source(ad.grad(fn))
    assert _listing(private) == before
    assert _s2s_entries(system_tmp) <= before_system, _s2s_entries(system_tmp) - before_system
    # the generated code is in linecache instead, so tracebacks still show it
    assert any(name.startswith("<s2s_ad") for name in linecache.cache)


# A transform keeps the derivatives its calls got (cache.Recent) and skips the cache's key on
# the next call: the same transform object must still see what the cache sees.

def test_the_same_transform_follows_a_replaced_code_object(tmp_path, builds):
    path = tmp_path / "swap_same.py"
    path.write_text("def f(x):\n    return x * 2.0\n\n\ndef g(x):\n    return x * 5.0\n")
    module = _import_file(path)
    df = ad.grad(module.f)
    assert df(1.0) == 2.0
    module.f.__code__ = module.g.__code__
    assert df(1.0) == 5.0


def test_the_same_transform_follows_a_rule_registered_after_its_first_call():
    def bent(x):
        return x * x

    def f(x):
        return bent(x)

    df = ad.grad(f)
    assert df(3.0) == 6.0

    try:
        @ad.adjoint(bent)
        def _(y, x):
            d[x] = d[y] * 10.0        # noqa: F821 (a template: `d` is the adjoint)

        assert df(3.0) == 10.0
    finally:                          # leave no rule behind for other tests
        rules.ADJOINTS.pop(bent, None)
        ad.clear_cache()


def test_the_names_a_function_reads_from_its_module():
    def reads(x):
        helper = [SCALE * v for v in x]          # noqa: F821 (read inside a comprehension)
        return np.tanh(helper)

    names = cache._names_read(reads.__code__)
    assert "SCALE" in names and "np" in names
    assert "tanh" not in names                   # an attribute, not a name of the module
