"""Adjoints of np.convolve and np.correlate: the `same` and `valid` outputs are windows of the
`full` one, so an adjoint first puts the incoming one back where its window sits in the full
output (zeros elsewhere), then correlates or convolves it with the other input."""
import numpy as np

from .arrays import shape_of

_MODES = {"v": "valid", "s": "same", "f": "full", 0: "valid", 1: "same", 2: "full"}


def _mode(mode):
    """NumPy's reading of `mode`: a name (by its first letter, any case) or 0, 1, 2."""
    key = mode.lower()[:1] if isinstance(mode, str) else mode
    if isinstance(key, (str, int)) and key in _MODES:
        return _MODES[key]
    raise NotImplementedError(f"s2s_ad differentiates np.convolve and np.correlate with mode "
                              f"'full', 'same' or 'valid', not mode={mode!r}")


def _window(a, v, kind, mode):
    """(start, length) of `kind`'s ('convolve' or 'correlate') `mode` output of `a` and `v`
    inside their 'full' output. For inputs of unequal length, np.correlate centres its 'same'
    window half a step later than np.convolve when the second input is the longer one."""
    n, m = int(np.prod(shape_of(a))), int(np.prod(shape_of(v)))
    short, long = min(n, m), max(n, m)
    mode = _mode(mode)
    if mode == "full":
        return 0, n + m - 1
    if mode == "valid":
        return short - 1, long - short + 1
    return (short // 2 if kind == "correlate" and n < m else (short - 1) // 2), long


def full_signal(g, a, v, kind, mode):
    """`g`, the adjoint of the `mode` output, placed in the `full` output (zeros elsewhere)."""
    start, length = _window(a, v, kind, mode)
    return np.pad(g, (start, int(np.prod(shape_of(a))) + int(np.prod(shape_of(v))) - 1
                      - start - length))


def signal_window(t, a, v, kind, mode):
    """The `mode` window of a `full` output `t` (the transpose of full_signal)."""
    start, length = _window(a, v, kind, mode)
    return t[start:start + length]
