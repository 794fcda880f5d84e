"""How long the transform itself takes: long straight-line functions and deep nesting.

    python benchmarks/transform_time.py
Prints a Markdown table (transform = parse, passes, reverse or forward mode, optimizer, emit,
compile, as timed around `ad.grad(f).source` and `ad.jvp(f).source`, each in a fresh process so
that nothing is cached); paste it into benchmarks/RESULTS.md with the machine.
The functions are those tests/test_bad_inputs.py checks for correctness.
"""
import importlib.util
import os
import subprocess
import sys
import tempfile
import timeit

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
import s2s_ad as ad  # noqa: E402
from test_bad_inputs import write_deep_nesting, write_long_function  # noqa: E402


_TIMED = """
import importlib.util, sys, time
sys.path.insert(0, {root!r})
import s2s_ad as ad
spec = importlib.util.spec_from_file_location("case", {path!r})
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
start = time.perf_counter()
ad.{mode}(module.{name}).source
print(time.perf_counter() - start)
"""
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def transform_seconds(path, name, mode, repeat=3):
    """The best of `repeat` fresh processes: the time a user waits on the first call."""
    times = []
    for _ in range(repeat):
        script = _TIMED.format(root=ROOT, path=path, mode=mode, name=name)
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              check=True)
        times.append(float(done.stdout))
    return min(times)


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    print("| function | grad transform | jvp transform | running the gradient (2-element x) |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as directory:
        cases = [(f"{n:,} lines", write_long_function, n, "long_fn") for n in (250, 500, 1000, 2000)]
        cases.append(("50 nested `if` levels", write_deep_nesting, 50, "deep"))
        for k, (label, write, size, name) in enumerate(cases):
            path = os.path.join(directory, f"case{k}.py")
            write(path_like(path), size)
            reverse = transform_seconds(path, name, "grad")
            forward = transform_seconds(path, name, "jvp")
            df = ad.grad(getattr(load(path, f"case{k}"), name))
            x = np.array([0.3, 0.5])
            run = min(timeit.repeat(lambda: df(x), number=5, repeat=3)) / 5
            print(f"| {label} | {reverse:.2f} s | {forward:.2f} s | {run * 1e3:.1f} ms |", flush=True)


class path_like(str):
    """The test helpers write with `path.write_text(...)`."""

    def write_text(self, text):
        with open(self, "w") as handle:
            handle.write(text)


if __name__ == "__main__":
    main()
