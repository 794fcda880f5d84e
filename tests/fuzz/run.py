"""Run a large differential-fuzzing batch and write a summary.

    python -m tests.fuzz.run --count 20000 --seed 1000000            # a release batch
    python -m tests.fuzz.run --count 2000 --seed 7 --jobs 2 --time-limit 600 --record
    python -m tests.fuzz.run --count 500 --all-features             # known-bug triggers too
    python -m tests.fuzz.run --count 250 --seed 1 --index-active    # one opt-in mechanism

Each mechanism of generator.OPT_IN_FEATURES has a flag of its own (`--index-active`,
`--call-conventions`, `--degenerate-sizes`, `--factory-closure`, `--wraps-decorator`,
`--shared-container`, `--complex-active`, `--complex-inactive`); the summary counts, for each
enabled one, the programs that have it by verdict.

Program `k` of a batch is `generator.generate(seed + k)`: any failure is reproduced with
`python tests/fuzz/generator.py SEED` (print it) and shrunk with
`python -m tests.fuzz.minimize SEED`. Each failure's full report (program, arguments, what went
wrong) is written to `<out>/failures/seed_<SEED>.txt`, the totals to `<out>/summary.json`;
`--record` also rewrites the "Last release run" section of tests/fuzz/RESULTS.md.

A program whose derivative disagrees with finite differences that cannot settle it (oracle
status "disagrees") is listed by seed with its report, as a failure is.

Exit status: 0 when no program failed or disagreed (known bugs, refusals and inconclusive
programs aside), 1 otherwise.
"""
import argparse
import collections
import datetime
import json
import multiprocessing
import os
import platform
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from tests.fuzz import generator, oracle  # noqa: E402

_directory = None


def _init():
    global _directory
    _directory = tempfile.mkdtemp(prefix="s2s_fuzz_")
    import atexit
    atexit.register(shutil.rmtree, _directory, True)


def _one(job):
    seed, enable = job
    import s2s_ad
    start = time.perf_counter()
    program = generator.generate(seed, enable)
    outcome = oracle.check(program, _directory)
    if seed % 100 == 0:
        s2s_ad.clear_cache()          # bound memory in long runs
    status = outcome.status
    if outcome.known:
        status = "known"
    if outcome.error:
        status = "generator-error"
    first = outcome.message.splitlines()[0] if outcome.message else ""
    return {
        "seed": seed,
        "status": status,
        "known": outcome.known,
        "autograd": bool(outcome.details.get("autograd")),
        "jvp": outcome.details.get("jvp", "not run"),
        "features": sorted(program.features),
        "message": first,
        "report": outcome.report() + ("\n" + outcome.error if outcome.error else "")
        if status in ("fail", "disagrees", "generator-error", "known") else "",
        "seconds": time.perf_counter() - start,
    }


def _refusal_kind(message):
    """'file:line:col: cannot differentiate ... `x` ...' -> the message without names."""
    import re
    text = message.split(": ", 1)[1] if ": " in message else message
    text = re.sub(r"`[^`]*`", "`…`", text)
    text = re.sub(r"\([^()]*\.py:\d+\)", "(…)", text)
    return re.sub(r"\b\d+\b", "N", text)[:110]


def _invalid_kind(message):
    """'margin 1.2e-9 to a kink (max); value 3e20' -> 'margin to a kink (max)'."""
    import re
    first = message.split(";")[0]
    return re.sub(r"\s*-?[\d.]+(e[-+]?\d+)?", "", first).strip()[:60]


def run(seed, count, jobs, enable, time_limit, out):
    os.makedirs(os.path.join(out, "failures"), exist_ok=True)
    start = time.perf_counter()
    totals = collections.Counter()
    known = collections.Counter()
    refusals = collections.Counter()
    invalid = collections.Counter()
    features = collections.defaultdict(collections.Counter)
    forward = collections.Counter()          # (reverse-mode verdict, jvp verdict) -> count
    failures = []
    disagreements = []
    generator_errors = []
    done = autograd_checked = 0
    jobs_iter = ((s, frozenset(enable)) for s in range(seed, seed + count))
    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    with context.Pool(jobs, initializer=_init, maxtasksperchild=1000) as pool:
        for result in pool.imap_unordered(_one, jobs_iter, chunksize=4):
            done += 1
            status = result["status"]
            totals[status] += 1
            autograd_checked += result["autograd"]
            forward[f"{status}/{result['jvp']}"] += 1
            for f in result["features"]:
                features[f][status] += 1
            if status == "known":
                known[result["known"]] += 1
            elif status == "refused":
                refusals[_refusal_kind(result["message"])] += 1
            elif status == "invalid":
                invalid[_invalid_kind(result["message"])] += 1
            if result["report"]:
                path = os.path.join(out, "failures", f"seed_{result['seed']}.txt")
                with open(path, "w") as fh:
                    fh.write(result["report"])
                if status == "fail":
                    failures.append(result["seed"])
                elif status == "disagrees":
                    disagreements.append(result["seed"])
                elif status == "generator-error":
                    generator_errors.append(result["seed"])
            if done % 500 == 0:
                print(f"  {done} programs, {time.perf_counter() - start:.0f} s: "
                      f"{_verdicts(totals)}", flush=True)
            if time_limit and time.perf_counter() - start > time_limit:
                pool.terminate()
                break
    elapsed = time.perf_counter() - start
    summary = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "first_seed": seed,
        "requested": count,
        "programs": done,
        "seconds": round(elapsed, 1),
        "jobs": jobs,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "enabled_known_bug_features": sorted(enable),
        "totals": dict(totals),
        "autograd_checked": autograd_checked,
        "known_bugs": dict(known),
        "failures": sorted(failures),
        "disagreements": sorted(disagreements),
        "generator_errors": sorted(generator_errors),
        "refusals": dict(refusals.most_common()),
        "inconclusive": dict(invalid.most_common()),
        "features": {f: dict(c) for f, c in sorted(features.items())},
        "forward": dict(forward),
    }
    with open(os.path.join(out, "summary.json"), "w") as fh:
        json.dump(summary, fh, indent=1)
    return summary


def _flags(enabled):
    """The command-line flags that enable `enabled`."""
    if set(enabled) >= generator.ALL_FEATURES:
        return " --all-features"
    return "".join(f" --{f.replace('_', '-')}" for f in sorted(enabled)
                   if f in generator.OPT_IN_FEATURES)


def _verdicts(counts):
    """'12 right, 3 refused, 1 failed, 4 inconclusive' from {status: count}."""
    names = [("pass", "right"), ("refused", "refused"), ("fail", "failed"),
             ("disagrees", "disagreeing where FD cannot settle it"), ("known", "known bug"),
             ("invalid", "inconclusive"), ("generator-error", "generator error")]
    return ", ".join(f"{counts.get(k, 0)} {name}" for k, name in names
                     if counts.get(k, 0) or k in ("pass", "refused", "fail"))


def format_summary(s):
    t = s["totals"]
    forward = s.get("forward", {})
    lines = [
        f"- date: {s['date']}",
        f"- command: `python -m tests.fuzz.run --count {s['requested']} --seed {s['first_seed']} "
        f"--jobs {s['jobs']}" + _flags(s["enabled_known_bug_features"]) + "`",
        f"- programs judged: {s['programs']} (seeds {s['first_seed']}..."
        f"{s['first_seed'] + s['requested'] - 1}, stopped by the time limit: "
        f"{'yes' if s['programs'] < s['requested'] else 'no'})",
        f"- time: {s['seconds']} s on {s['machine']}, {s['jobs']} worker(s)",
        f"- right gradient: {t.get('pass', 0)}; clear refusal (TransformError): "
        f"{t.get('refused', 0)}; inconclusive (kink, overflow): {t.get('invalid', 0)}",
        f"- **derivative disagrees with finite differences that cannot settle it: "
        f"{len(s.get('disagreements', []))}**"
        + (f" (seeds {', '.join(map(str, s['disagreements'][:20]))})"
           if s.get("disagreements") else ""),
        f"- forward mode (jvp): where the gradient was right, {forward.get('pass/pass', 0)} right "
        f"and {forward.get('pass/refused', 0)} refused; where grad refused, "
        f"{forward.get('refused/pass', 0)} right and {forward.get('refused/refused', 0)} refused",
        f"- of the right gradients, also checked against HIPS autograd: "
        f"{s.get('autograd_checked', 0)} (the programs autograd can run: no in-place writes)",
        f"- **failures: {len(s['failures'])}**"
        + (f" (seeds {', '.join(map(str, s['failures'][:20]))})" if s["failures"] else ""),
        f"- known bugs hit (crash signatures, see test_regressions.py): "
        + (", ".join(f"{k} x{v}" for k, v in s["known_bugs"].items()) or "none"),
        f"- generator errors (the generated program itself raised): "
        f"{t.get('generator-error', 0)}"
        + (f" (seeds {', '.join(map(str, s['generator_errors'][:20]))})"
           if s.get("generator_errors") else ""),
    ]
    for feature in sorted(set(s["enabled_known_bug_features"]) & set(generator.OPT_IN_FEATURES)):
        counts = s["features"].get(feature, {})
        lines.append(f"- `{feature}`: {sum(counts.values())} programs: {_verdicts(counts)}")
    if s["refusals"]:
        lines.append("- refusals by message:")
        for text, n in list(s["refusals"].items())[:8]:
            lines.append(f"  - {n} x `{text}`")
    return "\n".join(lines)


def record(summary):
    path = os.path.join(HERE, "RESULTS.md")
    marker = "## Last release run"
    text = open(path).read() if os.path.exists(path) else "# Fuzzing results\n\n"
    head = text.split(marker)[0].rstrip() + "\n\n"
    tail = ""
    if marker in text:
        rest = text.split(marker, 1)[1]
        if "\n## " in rest:
            tail = "\n## " + rest.split("\n## ", 1)[1]
    with open(path, "w") as fh:
        fh.write(head + marker + "\n\n" + format_summary(summary) + "\n" + tail)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1_000_000)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--time-limit", type=float, default=0,
                        help="stop after this many seconds (0: no limit)")
    parser.add_argument("--all-features", action="store_true",
                        help="also generate the constructs of known bugs (expect failures)")
    for feature, description in sorted(generator.OPT_IN_FEATURES.items()):
        parser.add_argument(f"--{feature.replace('_', '-')}", action="store_true",
                            help=f"generate {description}")
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "s2s_fuzz_results"))
    parser.add_argument("--record", action="store_true",
                        help="write the summary into tests/fuzz/RESULTS.md")
    options = parser.parse_args(argv)
    enable = generator.ALL_FEATURES if options.all_features else frozenset(
        f for f in generator.OPT_IN_FEATURES if getattr(options, f))
    summary = run(options.seed, options.count, options.jobs, enable, options.time_limit,
                  options.out)
    print(format_summary(summary))
    print(f"(details: {os.path.join(options.out, 'summary.json')})")
    if options.record:
        record(summary)
    return 1 if summary["failures"] or summary["disagreements"] or \
        summary["totals"].get("generator-error") else 0


if __name__ == "__main__":
    sys.exit(main())
