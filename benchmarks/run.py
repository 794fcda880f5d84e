"""Time s2s_ad gradients against hand-written gradients (and peers, when installed).

    python benchmarks/run.py            # NumPy on this machine
    python benchmarks/run.py --cupy     # CuPy on a GPU
Prints a Markdown table; paste it into benchmarks/RESULTS.md with the machine it ran on.
"""
import argparse
import os
import sys
import timeit

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import s2s_ad as ad  # noqa: E402
import workloads  # noqa: E402


def best_of(fn, repeat=5):
    fn()                                   # warm up: generation and caches
    number = max(1, int(0.2 / max(timeit.timeit(fn, number=1), 1e-6)))
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cupy", action="store_true", help="run on CuPy arrays")
    args = parser.parse_args()
    xp = np
    sync = lambda: None  # noqa: E731
    if args.cupy:
        import cupy as xp
        sync = xp.cuda.Device().synchronize
    rng = np.random.default_rng(0)
    peer = None if args.cupy else autograd_workloads()
    print("| workload | s2s_ad grad | hand-written | ratio | first call (transform) | autograd |")
    print("|---|---|---|---|---|---|")
    for name, (fn, by_hand, inputs, wrt) in workloads.make_inputs(rng, xp).items():
        ad.clear_cache()
        df = ad.grad(fn, wrt=wrt)
        first = timeit.timeit(lambda: (df(*inputs), sync()), number=1)
        t_ad = best_of(lambda: (df(*inputs), sync()))
        t_hand = best_of(lambda: (by_hand(*inputs), sync()))
        if peer is None:
            t_peer = "not installed"
        else:
            by_autograd = peer(name, wrt)
            t_peer = f"{best_of(lambda: by_autograd(*inputs)) * 1e3:.3f} ms"
        print(f"| {name} | {t_ad * 1e3:.3f} ms | {t_hand * 1e3:.3f} ms | {t_ad / t_hand:.2f}x "
              f"| {first * 1e3:.1f} ms | {t_peer} |")


def autograd_workloads():
    """(name, wrt) -> HIPS autograd's gradient of the same workload, or None if not installed.
    The workloads are re-read with `autograd.numpy` as `np`, which autograd needs to trace."""
    try:
        import autograd
    except ImportError:
        return None
    path = workloads.__file__
    with open(path) as handle:
        source = handle.read().replace("import numpy as np", "import autograd.numpy as np")
    namespace = {"__name__": "workloads_autograd"}
    exec(compile(source, path, "exec"), namespace)
    functions = {"mlp": "mlp_loss", "rnn_50_steps": "rnn_loss", "newton_scalar_loop": "newton_sqrt"}
    return lambda name, wrt: _autograd_gradient(autograd, namespace[functions[name]], wrt)


def _autograd_gradient(autograd, fn, wrt):
    if isinstance(wrt, int):
        return autograd.grad(fn, wrt)

    def packed(chosen, *args):            # one backward pass for several arguments
        args = list(args)
        for position, value in zip(wrt, chosen):
            args[position] = value
        return fn(*args)
    gradient = autograd.grad(packed, 0)
    return lambda *args: gradient(tuple(args[i] for i in wrt), *args)


if __name__ == "__main__":
    main()
