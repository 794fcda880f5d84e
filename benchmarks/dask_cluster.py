"""The gradient of a least-squares loss over a chunked Dask array, on a dask.distributed
LocalCluster of 1 and 2 workers: s2s_ad's lazy gradient against the hand-written one
(`X.T @ (X @ w - y)`), each divided by the time of the loss alone.

    pip install -e ".[dask]"
    python benchmarks/dask_cluster.py                       # 10^7 rows, 20 features
    python benchmarks/dask_cluster.py --rows 1000000 --repeats 3 --markdown

X and y are generated on the workers and kept there (persist), so that what is timed is the
computation, not the data's transfer. Before anything is timed, s2s_ad's gradient is checked
against the hand-written one (relative error 1e-8 of the largest entry).
"""
import argparse
import statistics
import sys
import time

import numpy as np

import s2s_ad as ad


def least_squares(w, X, y):
    r = X @ w - y
    return np.sum(r * r) / 2


def by_hand(w, X, y):
    return X.T @ (X @ w - y)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--chunk-rows", type=int, default=500_000)
    parser.add_argument("--workers", default="1,2", help="cluster sizes, comma-separated")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--markdown", action="store_true")
    return parser.parse_args(argv)


def contenders(w, X, y):
    """name -> a function that builds the lazy result (the graph, not yet computed)."""
    grad = ad.grad(least_squares)
    return {"loss (forward)": lambda: least_squares(w, X, y),
            "hand-written gradient": lambda: by_hand(w, X, y),
            "s2s_ad gradient": lambda: grad(w, X, y)}


def check(client, w, X, y):
    found, expected = client.compute([ad.grad(least_squares)(w, X, y), by_hand(w, X, y)],
                                     sync=True)
    error = np.max(np.abs(found - expected)) / np.max(np.abs(expected))
    if error > 1e-8:
        raise SystemExit(f"s2s_ad's gradient differs from the hand-written one: {error:.1e}")
    return error


def time_round_robin(client, built, repeats):
    """Median seconds per contender: build the graph and compute it, round-robin."""
    samples = {name: [] for name in built}
    for _ in range(repeats):
        for name, build in built.items():
            start = time.perf_counter()
            client.compute(build(), sync=True)
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(times) for name, times in samples.items()}


def run_on_cluster(n_workers, args):
    import dask.array as da
    from dask.distributed import Client, LocalCluster
    with LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit=None) as cluster, \
            Client(cluster) as client:
        rs = da.random.default_rng(0)
        X = rs.standard_normal((args.rows, args.features),
                               chunks=(args.chunk_rows, args.features))
        y = rs.standard_normal(args.rows, chunks=args.chunk_rows)
        X, y = client.persist([X, y])
        w = np.random.default_rng(1).standard_normal(args.features)
        error = check(client, w, X, y)
        times = time_round_robin(client, contenders(w, X, y), args.repeats)
    return error, times


def report(results, args):
    header = (f"{args.rows:,} rows x {args.features} features, chunks of {args.chunk_rows:,} "
              f"rows; median of {args.repeats}, seconds (ratio to the loss alone)")
    print(header if not args.markdown else f"{header}\n")
    names = list(next(iter(results.values()))[1])
    print("| workers | " + " | ".join(names) + " | s2s_ad / hand-written | max rel. error |")
    print("|---" * (len(names) + 3) + "|")
    for workers, (error, times) in results.items():
        forward = times["loss (forward)"]
        cells = [f"{times[n]:.3f} ({times[n] / forward:.2f}x)" for n in names]
        ratio = times["s2s_ad gradient"] / times["hand-written gradient"]
        print(f"| {workers} | " + " | ".join(cells) + f" | {ratio:.2f} | {error:.1e} |")


def main(argv=None):
    args = parse_args(argv)
    results = {int(n): run_on_cluster(int(n), args) for n in args.workers.split(",")}
    report(results, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
