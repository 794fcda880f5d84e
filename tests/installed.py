"""Where the tests' `s2s_ad` comes from: the installed package in CI (`pytest` run from the
repository does not put the checkout on sys.path), the checkout under PYTHONPATH=. . Programs
the tests run in new interpreters import the same one."""
import os

import s2s_ad

IMPORT_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(s2s_ad.__file__)))


def environment(base=None):
    """`base` (os.environ by default) with IMPORT_ROOT first on PYTHONPATH."""
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = IMPORT_ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env
