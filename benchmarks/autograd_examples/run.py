"""s2s_ad against HIPS autograd on programs modelled on autograd's own examples (this folder).

    python benchmarks/autograd_examples/run.py                  # every program, 20 rounds
    python benchmarks/autograd_examples/run.py --only rnn,convnet --rounds 40 --markdown

For each program, first s2s_ad's gradient is checked against autograd's (relative 1e-8, leaf
by leaf; for negative_binomial the fitted (r, p) too). Then the steady state: the NumPy
forward, autograd's gradient and s2s_ad's gradient are timed interleaved, in a new random
order each round, each a batch of calls of about 30 ms; the table gives the min and the median
over rounds of the per-call time, and s2s_ad / autograd of each. Last, the first call of each
tool, each in a fresh Python process (for s2s_ad that includes the transform), imports not
counted. For negative_binomial a call is a whole fit (Newton's method, with the derivatives by
each tool's `grad`), so the first call is the first fit in a process, the steady state later
fits, and there is no forward.

BLAS runs single-threaded (the variables are set before NumPy is imported). If autograd is
not installed the runner says so and exits 0."""
import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                  "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_variable] = "1"

import argparse          # noqa: E402
import importlib.util    # noqa: E402
import json              # noqa: E402
import platform          # noqa: E402
import random            # noqa: E402
import statistics        # noqa: E402
import subprocess        # noqa: E402
import sys               # noqa: E402
import textwrap          # noqa: E402
import time              # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHMARKS = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCHMARKS)
sys.path[:0] = [BENCHMARKS, ROOT]
from autograd_examples import harness  # noqa: E402

LABELS = ("forward", "autograd", "s2s_ad")
TOLERANCE = 1e-8
BATCH_SECONDS = 0.03

_FIRST_CALL = """
import json, sys, time
sys.path[:0] = {paths!r}
from autograd_examples import harness
call = harness.contenders({name!r}, ({label!r},))[{label!r}]
start = time.perf_counter()
call()
middle = time.perf_counter()
call()
print(json.dumps([middle - start, time.perf_counter() - middle]))
"""


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated programs (default: all): "
                        + ", ".join(harness.PROGRAMS))
    parser.add_argument("--rounds", type=int, default=20,
                        help="interleaved rounds of the steady state (default 20)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    return parser.parse_args(argv)


def check(name):
    """The largest relative error of s2s_ad's results against autograd's."""
    import numpy as np
    ours, theirs = harness.gradients(name)
    error = harness.compare(ours, theirs)
    fitted = harness.fits(name)
    if fitted is not None:
        mine, ref = np.asarray(fitted[0], float), np.asarray(fitted[1], float)
        error = max(error, float(np.max(np.abs(mine - ref) / np.abs(ref))))
    return error


def batch_sizes(calls):
    """Calls per batch, so that a batch takes about BATCH_SECONDS; warms each call up."""
    sizes = {}
    for label, call in calls.items():
        for _ in range(2):
            call()
        start, count = time.perf_counter(), 0
        while time.perf_counter() - start < 0.05:
            call()
            count += 1
        sizes[label] = max(1, int(BATCH_SECONDS / ((time.perf_counter() - start) / count)))
    return sizes


def steady_state(name, rounds):
    """{label: (min, median) seconds per call}, the labels' batches interleaved in a new random
    order each round, so that a slow spell of a shared machine falls on all of them alike."""
    calls = harness.contenders(name)
    sizes = batch_sizes(calls)
    samples = {label: [] for label in calls}
    order = list(calls)
    shuffle = random.Random(1).shuffle
    for _ in range(rounds):
        shuffle(order)
        for label in order:
            call, size = calls[label], sizes[label]
            start = time.perf_counter()
            for _ in range(size):
                call()
            samples[label].append((time.perf_counter() - start) / size)
    return {label: (min(v), statistics.median(v)) for label, v in samples.items()}


def first_call(name, label, timeout=600):
    """Seconds of the first call of `label` in a fresh Python process, or why there is none."""
    script = _FIRST_CALL.format(paths=[BENCHMARKS, ROOT], name=name, label=label)
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    try:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=timeout, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return f"over {timeout} s"
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        return "failed: " + (done.stderr.strip().splitlines() or ["no output"])[-1]
    return json.loads(lines[-1])[0]


def compile_bytecode():
    """As `pip install` does: a first call that compiled s2s_ad's modules and rule templates
    from source would time the compiler of Python, which no installed copy runs."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(ROOT, "s2s_ad"),
                    os.path.join(ROOT, "templates")], capture_output=True, check=False)


def measure(name, rounds):
    """One row of the table: the check, the steady state and the first calls."""
    row = {"program": name}
    try:
        row["error"] = check(name)
    except Exception as exc:                      # a refusal or a crash: reported, not timed
        row["failure"] = f"{type(exc).__name__}: {(str(exc).splitlines() or [''])[0]}"
        return row
    row["steady"] = steady_state(name, rounds)
    row["first"] = {label: first_call(name, label) for label in ("autograd", "s2s_ad")}
    return row


def _ms(seconds):
    """Milliseconds to three significant digits (no exponent), or the reason there are none."""
    if isinstance(seconds, str):
        return seconds
    ms = 1e3 * seconds
    decimals = 2 if ms < 10 else 1 if ms < 100 else 0
    return f"{ms:.{decimals}f}"


def cells(row):
    """The table's cells for one row, as strings."""
    if "failure" in row:
        return [row["program"], "FAILED"] + ["-"] * 6
    steady, first = row["steady"], row["first"]
    ok = "ok" if row["error"] <= TOLERANCE else "MISMATCH"
    times = [" / ".join(map(_ms, steady[label])) if label in steady else "-" for label in LABELS]
    ratio = [steady["s2s_ad"][i] / steady["autograd"][i] for i in (0, 1)]
    return ([row["program"], f"{ok} {row['error']:.0e}"] + times
            + [f"{ratio[0]:.2f} / {ratio[1]:.2f}", _ms(first["autograd"]), _ms(first["s2s_ad"])])


HEADER = ["program", "check", "forward ms", "autograd ms", "s2s_ad ms", "s2s_ad / autograd",
          "autograd 1st ms", "s2s_ad 1st ms"]


def table(rows, markdown):
    lines = [HEADER] + [cells(row) for row in rows]
    if markdown:
        out = ["| " + " | ".join(lines[0]) + " |", "|" + "---|" * len(HEADER)]
        return "\n".join(out + ["| " + " | ".join(line) + " |" for line in lines[1:]])
    widths = [max(len(line[i]) for line in lines) for i in range(len(HEADER))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(line, widths))).rstrip()
                     for line in lines)


def machine():
    """The CPU's model name where Linux says it, the CPU count and the operating system."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            model = next(line.split(":", 1)[1].strip() for line in f
                         if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}"


def versions():
    from importlib import metadata
    found = []
    for package in ("numpy", "scipy", "autograd", "s2s_ad"):
        try:
            found.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            pass
    return ", ".join(found)


def notes(rows, rounds):
    out = [f"Times: min / median over {rounds} interleaved rounds of the per-call time; "
           "s2s_ad / autograd: of the mins / of the medians; 1st: the first call in a fresh "
           "process (s2s_ad's includes its transform), imports not counted. check: the largest "
           "relative error of s2s_ad's gradient (and fit) against autograd's "
           f"(ok at {TOLERANCE:g})."]
    if any(row["program"] == "negative_binomial" for row in rows):
        out.append("negative_binomial: a call is a whole Newton fit with each tool's grad "
                   "(no forward); 1st is the first fit in a process, the steady state later "
                   "fits.")
    out += [f"{row['program']} FAILED: {row['failure']}" for row in rows if "failure" in row]
    return out


def main(argv=None):
    args = parse_args(argv)
    if importlib.util.find_spec("autograd") is None:
        print("autograd is not installed (pip install autograd): nothing to compare against.")
        return 0
    names = args.only.split(",") if args.only else list(harness.PROGRAMS)
    unknown = [name for name in names if name not in harness.PROGRAMS]
    if unknown:
        sys.exit(f"unknown program(s) {', '.join(unknown)}; there are "
                 + ", ".join(harness.PROGRAMS))
    compile_bytecode()
    rows = [measure(name, args.rounds) for name in names]
    print(f"{machine()}\n{platform.python_implementation()} {platform.python_version()}, "
          f"{versions()}, BLAS threads 1\n")
    print(table(rows, args.markdown))
    print()
    print("\n".join(textwrap.fill(note, 100) for note in notes(rows, args.rounds)))
    bad = [row for row in rows if "failure" in row or row["error"] > TOLERANCE]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
