"""Where a function of yours draws random numbers, itself or through the functions of yours it
calls: a callee that the backward pass runs again (a checkpoint, or the recomputing twin that
second derivatives read) would draw other numbers the second time, and the derivative would
belong to neither draw."""
import random

import gast
import numpy as np

from ..errors import SourceUnavailable
from ..traversal import walk
from ..frontend import parse_function
from .call_results import is_user_function
from .primitives import is_random_draw, static_value


def first_random_draw(fn, seen=None, wanted=None):
    """(parsed function, call node) of the first random draw `fn` makes, following the calls
    of functions of yours it names; None where it makes none that transform time can see.
    `wanted(called, node)`, where given, picks the calls looked for instead."""
    wanted = wanted or (lambda called, node: is_random_draw(called))
    seen = set() if seen is None else seen
    if id(fn) in seen:
        return None
    seen.add(id(fn))
    try:
        parsed = parse_function(fn)
    except (SourceUnavailable, TypeError, OSError):
        return None
    local_names = {n.id for n in gast.walk(parsed.node)
                   if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param))}
    for node in gast.walk(parsed.node):
        if not isinstance(node, gast.Call):
            continue
        try:
            called = static_value(node.func, parsed, local_names)
        except LookupError:
            continue
        if wanted(called, node):
            return parsed, node
        if is_user_function(called):
            found = first_random_draw(called, seen, wanted)
            if found is not None:
                return found
    return None


def draws_through_parameters(fn):
    """[(parameter, attribute names, parsed function, call node)] for the calls `fn` makes on
    an attribute chain of one of its parameters (`self.rng.normal(...)`): whether such a call
    draws random numbers is known only from the argument (checked where one is at hand)."""
    try:
        parsed = parse_function(fn)
    except (SourceUnavailable, TypeError, OSError):
        return []
    args = parsed.node.args
    params = {a.id for a in args.posonlyargs + args.args + args.kwonlyargs}
    found = []
    for node in walk(parsed.node):
        if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute)):
            continue
        chain, root = [], node.func
        while isinstance(root, gast.Attribute):
            chain.append(root.attr)
            root = root.value
        if isinstance(root, gast.Name) and root.id in params:
            found.append((root.id, tuple(reversed(chain)), parsed, node))
    return found


# what a NumPy Generator or RandomState draws with: a call of one of these on an object only
# known when the derivative runs may be a draw
DRAW_METHODS = frozenset(name for kind in (np.random.Generator, np.random.RandomState)
                         for name in dir(kind) if not name.startswith("_")) - \
    {"bit_generator", "spawn", "get_state", "set_state", "seed", "bytes", "f", "power"}


# what makes a random generator; without a seed, it takes fresh entropy from the system
_GENERATOR_MAKERS = (np.random.default_rng, np.random.RandomState, random.Random,
                     np.random.PCG64, np.random.PCG64DXSM, np.random.MT19937, np.random.Philox,
                     np.random.SFC64, np.random.SeedSequence)


def first_unseeded_generator(fn):
    """(parsed function, call node) of the first `np.random.default_rng()` (or
    `RandomState()`, `random.Random()`) without a seed that `fn` or a function of yours it
    calls makes: each call draws numbers no state held beforehand can give again."""
    def unseeded(called, node):
        if not any(called is maker for maker in _GENERATOR_MAKERS):
            return False
        seed = node.args[0] if node.args else next(
            (k.value for k in node.keywords if k.arg in ("seed", "x")), None)
        return seed is None or isinstance(seed, gast.Constant) and seed.value is None
    return first_random_draw(fn, wanted=unseeded)
