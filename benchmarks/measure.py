"""Timing and memory. Contenders are timed round-robin: each repetition runs every contender
once, in an order rotated by one each time, so that a slow spell of a shared machine lands on
all of them alike; the median of the repetitions is reported."""
import gc
import statistics
import time
import tracemalloc

SLOW_CALL = 2.0         # seconds: a contender this slow gets at most SLOW_REPEATS samples
SLOW_REPEATS = 3


def seconds_per_call(call, number):
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()                      # as timeit does: a collection lands on whoever triggers it
    try:
        start = time.perf_counter()
        for _ in range(number):
            call()
        return (time.perf_counter() - start) / number
    finally:
        if enabled:
            gc.enable()


def round_robin(calls, repeats, sample_seconds):
    """{name: call} -> {name: median seconds per call}. Every call has run once already (its
    check), so the first sample times no warm-up."""
    once = {name: seconds_per_call(call, 1) for name, call in calls.items()}
    number = {name: max(1, int(sample_seconds / max(t, 1e-9))) for name, t in once.items()}
    wanted = {name: repeats if t < SLOW_CALL else min(repeats, SLOW_REPEATS)
              for name, t in once.items()}
    samples = {name: [] for name in calls}
    names = list(calls)
    for rep in range(repeats):
        for name in names[rep % len(names):] + names[:rep % len(names)]:
            if len(samples[name]) < wanted[name]:
                samples[name].append(seconds_per_call(calls[name], number[name]))
    return {name: statistics.median(times) for name, times in samples.items()}


def peak_bytes(call):
    """The most memory NumPy and Python held at once during `call`, beyond what was held
    before it (the inputs). Not the timing: tracemalloc slows every allocation."""
    gc.collect()
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
