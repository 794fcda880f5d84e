"""Instructions per call of each workload's calls, counted by valgrind's callgrind: the same
count on a quiet machine and on one that other jobs keep busy (where wall and CPU times of
one unchanged call moved by up to 50% between two runs), so two checkouts compare on a
shared machine. It counts work, not time: a pass over a large array costs memory traffic
that instructions do not show, so use it for the small workloads (building_20, control,
mlp_small, layered_small), where what a call costs is Python's and NumPy's per-call work.

    git archive BASE | tar -x -C /tmp/base
    python benchmarks/instructions.py /tmp/base . --only mlp_small,control --modes grad,jvp
    python benchmarks/instructions.py . --only mlp --modes fwd,hvp --calls 5
    python benchmarks/instructions.py /tmp/base . --only layered_small --modes grad-first

A mode ending in `-first` counts the first call alone: the transform and one run (the rule
tables, read once per process, are read before and not counted).

Each (checkout, workload, call) runs in its own process under valgrind (about a minute:
the imports and the transform run 50x slower there, uncounted); only what runs inside
`functools.reduce`, which repeats the call `--calls` times after two warm-up calls, is
counted (--toggle-collect). Needs valgrind and a CPython with symbols (pyenv's has them).
"""
import argparse
import os
import subprocess
import sys

WORKER = """
import functools, sys
tree, name, mode, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path[:0] = [tree, tree + '/benchmarks']
import numpy as np
from compare_trees import _call
from selfcheck import random_direction
from workloads import WORKLOADS
w = WORKLOADS[name]
args = w.make_inputs(np.random.default_rng(0))
first = mode.endswith("-first")
call = _call(w, args, random_direction(np.random.default_rng(1), args, w.wrt),
             mode[:-len("-first")] if first else mode)
if first:
    import s2s_ad.rules
    s2s_ad.rules.load_templates()     # the rule tables: read once per process, not counted
else:
    call(); call()
functools.reduce(lambda a, i: (call(), a)[1], range(1 if first else n), 0)
"""


def count(tree, name, mode, calls):
    """Instructions per call of `mode` of workload `name` in the checkout `tree`."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--collect-atstart=no",
         "--toggle-collect=functools_reduce", "--callgrind-out-file=/dev/null",
         os.path.realpath(sys.executable), "-c", WORKER, os.path.abspath(tree), name, mode,
         str(calls)], capture_output=True, text=True, env=env, check=True)
    collected = [line for line in done.stderr.splitlines() if "Collected" in line]
    return int(collected[-1].split()[-1]) // (1 if mode.endswith("-first") else calls)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="+", help="checkouts of s2s_ad (the first is the base)")
    parser.add_argument("--only", default="building_20,control,mlp_small,layered_small")
    parser.add_argument("--modes", default="fwd,hand,grad,jvp")
    parser.add_argument("--calls", type=int, default=100)
    args = parser.parse_args()
    print(f"{'call':26}" + "".join(f"{os.path.basename(os.path.abspath(t))[:14]:>16}"
                                    for t in args.trees))
    for name in args.only.split(","):
        for mode in args.modes.split(","):
            counts = [count(t, name, mode, args.calls) for t in args.trees]
            print(f"{name + '.' + mode:26}" + "".join(f"{c:16,}" for c in counts), flush=True)


if __name__ == "__main__":
    main()
