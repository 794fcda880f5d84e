"""Two (or more) checkouts of s2s_ad timed against each other on a shared machine: one worker
process per checkout, each holding its prepared calls, asked in turn for one sample of every
call (the order reversed every other round), so that a busy spell lands on all of them alike.
A sample is the process's CPU time, not the wall clock: on a machine that other jobs keep
busy, waiting for a core is not counted (cache and memory contention still are).

    git archive BASE | tar -x -C /tmp/base
    python benchmarks/compare_trees.py /tmp/base . --only mlp_small,control --rounds 15
    python benchmarks/compare_trees.py /tmp/base . --modes grad,jvp,hvp

Prints, per workload and call (forward, hand-written, grad, jvp, hvp), the median time per
call in each checkout and the last one's over the first one's.
"""
import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time

SAMPLE_SECONDS = 0.02


def prepared_calls(tree, names, modes):
    """{"workload.mode": (call, calls per sample)} from the checkout `tree`."""
    sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
    import numpy as np
    from selfcheck import random_direction
    from workloads import WORKLOADS
    calls = {}
    for name in names:
        w = WORKLOADS[name]
        args = w.make_inputs(np.random.default_rng(0))
        direction = random_direction(np.random.default_rng(1), args, w.wrt)
        for mode in modes:
            call = _call(w, args, direction, mode)
            call()                                  # the transform, and a warm-up
            start = time.process_time()
            call()
            once = time.process_time() - start
            calls[f"{name}.{mode}"] = (call, max(1, int(SAMPLE_SECONDS / max(once, 1e-7))))
    return calls


def _call(w, args, direction, mode):
    import s2s_ad as ad
    if mode == "fwd":
        return lambda: w.function(*args)
    if mode == "hand":
        return lambda: w.by_hand(*args)
    if mode == "grad":
        g = ad.grad(w.function, wrt=w.wrt)
        return lambda: g(*args)
    if mode == "jvp":
        g = ad.jvp(w.function, wrt=w.wrt)
        return lambda: g(*args, tangent=direction)
    g = ad.hvp(w.function, wrt=w.wrt)
    return lambda: g(*args, vector=direction)


def worker(tree, names, modes):
    calls = prepared_calls(tree, names, modes)
    print("ready", flush=True)
    for _ in sys.stdin:                             # one line: one sample of every call
        gc.collect()
        gc.disable()
        sample = {}
        for key, (call, number) in calls.items():
            start = time.process_time()
            for _ in range(number):
                call()
            sample[key] = (time.process_time() - start) / number
        gc.enable()
        print(json.dumps(sample), flush=True)


def compare(trees, names, modes, rounds):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env.pop("PYTHONPATH", None)
    workers = [subprocess.Popen([sys.executable, __file__, "--worker", os.path.abspath(t),
                                 "--only", ",".join(names), "--modes", ",".join(modes)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
               for t in trees]
    for w in workers:
        assert w.stdout.readline().strip() == "ready"
    samples = [{} for _ in trees]
    for r in range(rounds):
        for k in (range(len(trees)) if r % 2 == 0 else reversed(range(len(trees)))):
            workers[k].stdin.write("go\n")
            workers[k].stdin.flush()
            for key, seconds in json.loads(workers[k].stdout.readline()).items():
                samples[k].setdefault(key, []).append(seconds)
    for w in workers:
        w.stdin.close()
        w.wait()
    print(f"{'call':26}" + "".join(f"{os.path.basename(os.path.abspath(t))[:14]:>16}" for t in trees)
          + "   last/first")
    for key in samples[0]:
        medians = [statistics.median(s[key]) * 1e6 for s in samples]
        print(f"{key:26}" + "".join(f"{m:13.1f} us" for m in medians)
              + f"   {medians[-1] / medians[0]:.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="+", help="checkouts of s2s_ad (the first is the base)")
    parser.add_argument("--only", default="building_20,control,mlp_small,layered_small")
    parser.add_argument("--modes", default="fwd,hand,grad,jvp")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    names, modes = args.only.split(","), args.modes.split(",")
    if args.worker:
        worker(args.trees[0], names, modes)
    else:
        compare(args.trees, names, modes, args.rounds)


if __name__ == "__main__":
    main()
