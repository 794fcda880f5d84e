"""What a user waits for on the first call, timed in a fresh Python process so that nothing
the runner did before (derivatives generated, rule templates parsed, code compiled) is reused."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

_SCRIPT = """
import json, sys, time
sys.path[:0] = {paths!r}
import numpy as np
from contenders import make_context
from workloads import WORKLOADS
ctx = make_context(WORKLOADS[{name!r}], np.random.default_rng({seed}))
try:
    {setup}
    start = time.perf_counter()
    {body}
    print(json.dumps(time.perf_counter() - start))
except Exception as exc:
    print(json.dumps(type(exc).__name__ + ": " + (str(exc).splitlines() or [""])[0]))
"""

S2S_FIRST_CALL = ("import s2s_ad as ad", "ad.grad(ctx.workload.function, wrt=ctx.workload.wrt)(*ctx.args)")
JAX_JIT_COMPILE = ("import peers; peers._jax()", "peers.jax_grad(ctx, jit=True)")


def first_call(name, seed, what, timeout):
    """Seconds for `what` (setup, body) on workload `name`, or a string saying why not. The
    modules' bytecode is compiled first, as `pip install` does: a first call that compiles
    s2s_ad's rule templates from source (PYTHONDONTWRITEBYTECODE, a read-only checkout) takes
    about twice as long, which no installed copy pays."""
    setup, body = what
    script = _SCRIPT.format(paths=[HERE, ROOT], setup=setup, name=name, seed=seed, body=body)
    _compile_bytecode()
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    try:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return f"over {timeout:.0f} s"
    lines = done.stdout.strip().splitlines()
    if done.returncode or not lines:
        return f"failed: {(done.stderr.strip().splitlines() or ['no output'])[-1]}"
    return json.loads(lines[-1])


def _compile_bytecode():
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(ROOT, "s2s_ad"),
                    os.path.join(ROOT, "templates")], capture_output=True, check=False)
