"""The benchmark runner: s2s_ad's gradients against hand-written NumPy gradients and the peers
(HIPS autograd, JAX eager and jit, PyTorch, tangent-ad) wherever they are installed.

    python benchmarks/run.py                       # every workload, every contender installed
    python benchmarks/run.py --only mlp,rnn --repeats 21
    python benchmarks/run.py --quick               # a smoke run: few, short samples
    python benchmarks/run.py --markdown            # tables ready for benchmarks/RESULTS.md
    python benchmarks/run.py --cupy                # NumPy contenders on CuPy arrays, on a GPU
    pip install -e .[bench]                        # the peers

Before anything is timed, the hand-written gradient is checked against central differences,
and every other gradient against the hand-written one; a contender that disagrees, refuses the
workload or is not installed is reported instead of timed. Times are medians of round-robin
repetitions, each gradient divided by the time of the NumPy forward function.
"""
import argparse
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated workloads (default: all)")
    parser.add_argument("--repeats", type=int, help="round-robin repetitions (default 11, quick 3)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 3 short repetitions")
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    parser.add_argument("--cupy", action="store_true", help="NumPy contenders on CuPy arrays")
    parser.add_argument("--no-peers", action="store_true", help="NumPy contenders only")
    parser.add_argument("--threads", type=int,
                        help="threads for BLAS, PyTorch and XLA (default: the libraries' own)")
    parser.add_argument("--jit-limit", type=float,
                        help="seconds jax.jit may spend compiling one workload (default 120, quick 30)")
    parser.add_argument("--list", action="store_true", help="list the workloads and exit")
    return parser.parse_args(argv)


def limit_threads(n):
    """Must run before NumPy, PyTorch or JAX is imported: they read these once (PyTorch its
    intra-op threads from OMP_NUM_THREADS)."""
    for variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[variable] = str(n)
    os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen="
                               + ("false" if n == 1 else "true")).strip()


def options_from(args, names):
    import numpy as np
    from runner import Options
    options = Options(names, peers=not (args.no_peers or args.cupy))
    if args.quick:
        options.repeats, options.sample_seconds, options.jit_limit = 3, 0.005, 30.0
    if args.jit_limit is not None:
        options.jit_limit = args.jit_limit
    if args.repeats is not None:
        options.repeats = args.repeats
    if args.cupy:
        try:
            import cupy
        except ImportError:
            sys.exit("--cupy needs CuPy (pip install -e .[gpu]) and a GPU")
        options.xp, options.sync = cupy, cupy.cuda.Device().synchronize
        options.memory = options.fresh_process = False     # tracemalloc sees no GPU memory
    else:
        options.xp = np
    return options


def main(argv=None):
    args = parse_args(argv)
    if args.threads:
        limit_threads(args.threads)
    sys.path.insert(0, HERE)
    from workloads import WORKLOADS
    if args.list:
        for workload in WORKLOADS.values():
            print(f"{workload.name:15} {workload.about}")
        return 0
    names = args.only.split(",") if args.only else list(WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        sys.exit(f"unknown workload(s) {', '.join(unknown)}; --list shows them")
    import report
    import runner
    options = options_from(args, names)
    rows = [runner.bench(WORKLOADS[name], options) for name in names]
    print(f"{platform.python_implementation()} {platform.python_version()}, {versions()}, "
          f"{os.cpu_count()} CPUs, threads: {args.threads or 'library defaults'}, "
          f"{options.repeats} repetitions\n")
    print(report.report(rows, markdown=args.markdown, memory=options.memory))
    return 0


def versions():
    from importlib import metadata
    found = []
    for package in ("numpy", "autograd", "jax", "torch", "tangent-ad"):
        try:
            found.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            pass
    return ", ".join(found)


if __name__ == "__main__":
    sys.exit(main())
