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
    print("| workload | s2s_ad grad | hand-written | ratio | first call (transform) |")
    print("|---|---|---|---|---|")
    for name, (fn, by_hand, inputs, wrt) in workloads.make_inputs(rng, xp).items():
        ad.clear_cache()
        df = ad.grad(fn, wrt=wrt)
        first = timeit.timeit(lambda: (df(*inputs), sync()), number=1)
        t_ad = best_of(lambda: (df(*inputs), sync()))
        t_hand = best_of(lambda: (by_hand(*inputs), sync()))
        print(f"| {name} | {t_ad * 1e3:.3f} ms | {t_hand * 1e3:.3f} ms | {t_ad / t_hand:.2f}x "
              f"| {first * 1e3:.1f} ms |")


if __name__ == "__main__":
    main()
