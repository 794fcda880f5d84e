"""The random states a function may draw from, held and put back: `jacobian` and `hessian`
run the derivative once per column, and a function that draws random numbers must see the
same draws in every column (the Jacobian of one call), not new ones each time.

Held: NumPy's global state (`np.random.*`), the standard `random` module's, and every
`np.random.Generator` / `np.random.RandomState` the function can reach by name: its module's
globals, its closure, its arguments, their entries and their attributes (`self.rng`)."""
import random

import numpy as np

_STATEFUL = (np.random.Generator, np.random.RandomState)


def _reachable(values):
    """The generators among `values`, their container entries and attributes (one level:
    deeper ones are rare, and walking a whole object graph per call costs what it finds)."""
    found = {}
    for value in values:
        inner = [value]
        if isinstance(value, (list, tuple)):
            inner += list(value)
        elif isinstance(value, dict):
            inner += list(value.values())
        else:
            inner += list(getattr(value, "__dict__", {}).values())
        for v in inner:
            if isinstance(v, _STATEFUL):
                found[id(v)] = v
    return found.values()


def _get(generator):
    if isinstance(generator, np.random.Generator):
        return generator.bit_generator.state
    return generator.get_state()


def _set(generator, state):
    if isinstance(generator, np.random.Generator):
        generator.bit_generator.state = state
    else:
        generator.set_state(state)


class RandomStates:
    """The states `fn` may draw from when called with `arguments`, as they are now."""

    def __init__(self, fn, arguments):
        fn = getattr(fn, "__func__", fn)
        cells = [c.cell_contents for c in (getattr(fn, "__closure__", None) or ())
                 if _has_contents(c)]
        named = list(getattr(fn, "__globals__", {}).values()) + cells
        found = {id(g): g for g in named if isinstance(g, _STATEFUL)}
        found.update((id(g), g) for g in _reachable(arguments))
        self.held = [(g, _get(g)) for g in found.values()]
        self.python = random.getstate()
        self.numpy = np.random.get_state()

    def restore(self):
        """Put every held state back: the next call draws what the first one drew."""
        random.setstate(self.python)
        np.random.set_state(self.numpy)
        for generator, state in self.held:
            _set(generator, state)


def _has_contents(cell):
    try:
        cell.cell_contents
    except ValueError:           # a name the function binds later
        return False
    return True
