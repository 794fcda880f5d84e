"""Loads each program of this folder twice from the same source text: once as a plain module on
NumPy and SciPy (for s2s_ad), and once executed with its imports of `numpy`, `scipy.special`,
`scipy.stats` and `s2s_ad` bound to autograd.numpy, autograd.scipy.special,
autograd.scipy.stats and autograd (for autograd). Only what the import statements return
differs, so `from s2s_ad import grad` in a program is s2s_ad's grad in one copy and autograd's
in the other.

A program defines `loss`, `make_args(rs)` (the arguments of loss, drawn from a RandomState) and
`WRT` (the arguments the gradient is taken with respect to). One that defines `fit_maxlike`
and `fit_args(rs)` as well is timed by a whole fit instead of one gradient call."""
import builtins
import functools
import importlib.util
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = ["convnet", "neural_net", "rnn", "variational_autoencoder",
            "generative_adversarial_net", "negative_binomial"]
SEED = 0


def path_of(name):
    return os.path.join(HERE, name + ".py")


@functools.cache
def load_numpy(name):
    """The program as a plain module (for s2s_ad, which reads its source from the file)."""
    spec = importlib.util.spec_from_file_location("autograd_examples_np_" + name, path_of(name))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _autograd_import():
    import autograd
    import autograd.numpy as anp
    import autograd.scipy.special as asp
    import autograd.scipy.stats as ast
    import autograd.scipy.stats.norm  # noqa: F401  (so that ast.norm is there)
    table = {"numpy": anp, "scipy.special": asp, "scipy.stats": ast, "s2s_ad": autograd}
    real = builtins.__import__

    def mapped(name, globals=None, locals=None, fromlist=(), level=0):
        if name in table and (name in ("numpy", "s2s_ad") or fromlist):
            return table[name]
        return real(name, globals, locals, fromlist, level)
    return mapped


@functools.cache
def load_autograd(name):
    """The same source executed with its imports bound to autograd's wrappers."""
    path = path_of(name)
    with open(path) as f:
        source = f.read()
    module = types.ModuleType("autograd_examples_ag_" + name)
    module.__file__ = path
    module.__builtins__ = dict(builtins.__dict__, __import__=_autograd_import())
    sys.modules[module.__name__] = module
    exec(compile(source, path, "exec"), module.__dict__)
    return module


def is_fit(module):
    return hasattr(module, "fit_maxlike")


def gradients(name, seed=SEED):
    """(s2s_ad's gradient, autograd's gradient) of the program's loss at make_args(seed)."""
    import autograd
    import numpy as np
    import s2s_ad
    ours, theirs = load_numpy(name), load_autograd(name)
    args = ours.make_args(np.random.RandomState(seed))
    return (s2s_ad.grad(ours.loss, wrt=ours.WRT)(*args),
            autograd.grad(theirs.loss, ours.WRT)(*args))


def fits(name, seed=SEED):
    """(s2s_ad's fit, autograd's fit) of a fitting program, or None for the others."""
    import numpy as np
    ours = load_numpy(name)
    if not is_fit(ours):
        return None
    args = ours.fit_args(np.random.RandomState(seed))
    return ours.fit_maxlike(*args), load_autograd(name).fit_maxlike(*args)


def contenders(name, which=("forward", "autograd", "s2s_ad"), seed=SEED):
    """Zero-argument callables to time, by label: the plain NumPy loss ('forward'), autograd's
    gradient, s2s_ad's gradient; for a fitting program, a whole fit with each tool's `grad`
    (and no 'forward'). Only what `which` names is loaded or imported."""
    import numpy as np
    ours = load_numpy(name) if {"forward", "s2s_ad"} & set(which) else None
    theirs = load_autograd(name) if "autograd" in which else None
    spec = ours or theirs
    rs = np.random.RandomState(seed)
    if is_fit(spec):
        args = spec.fit_args(rs)
        made = {"autograd": lambda: functools.partial(theirs.fit_maxlike, *args),
                "s2s_ad": lambda: functools.partial(ours.fit_maxlike, *args)}
    else:
        args = spec.make_args(rs)
        made = {"forward": lambda: functools.partial(ours.loss, *args),
                "autograd": lambda: _autograd_grad(theirs, spec.WRT, args),
                "s2s_ad": lambda: _s2s_ad_grad(ours, args)}
    return {label: made[label]() for label in which if label in made}


def _autograd_grad(module, wrt, args):
    import autograd
    return functools.partial(autograd.grad(module.loss, wrt), *args)


def _s2s_ad_grad(module, args):
    import s2s_ad
    return functools.partial(s2s_ad.grad(module.loss, wrt=module.WRT), *args)


def leaves(tree):
    """The arrays of a gradient (dicts in sorted key order, lists and tuples in order)."""
    import numpy as np
    if isinstance(tree, dict):
        return [leaf for k in sorted(tree, key=str) for leaf in leaves(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [leaf for v in tree for leaf in leaves(v)]
    return [np.asarray(tree, dtype=float)]


def structure(tree):
    """The containers and shapes of a gradient, for comparing two without their values."""
    if isinstance(tree, dict):
        return {k: structure(v) for k, v in tree.items()}
    if isinstance(tree, (list, tuple)):
        return type(tree).__name__, [structure(v) for v in tree]
    return getattr(tree, "shape", ())


def compare(ours, theirs):
    """The largest relative error of `ours` against `theirs`, leaf by leaf: max |difference| over
    max |theirs| in that leaf. A leaf whose true gradient is zero (a bias that feeds a batch
    normalisation) holds only roundoff in both tools, so its scale is floored at 1e-6 of the
    largest entry of any leaf. Raises AssertionError when the structures differ."""
    import numpy as np
    assert structure(ours) == structure(theirs), (structure(ours), structure(theirs))
    mine, ref = leaves(ours), leaves(theirs)
    largest = max((float(np.max(np.abs(b))) for b in ref if b.size), default=0.0)
    worst = 0.0
    for a, b in zip(mine, ref):
        if b.size:
            scale = max(float(np.max(np.abs(b))), 1e-6 * largest, 1e-300)
            worst = max(worst, float(np.max(np.abs(a - b))) / scale)
    return worst
