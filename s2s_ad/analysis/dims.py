"""Shape tokens and the arithmetic on them: what shape an operation's result has, from the
shapes of its operands.

A token is NUMBER (a Python or NumPy number), a tuple with one entry per axis, or None (not
known). An axis is 1 or the name of a size class (analysis.kinds): within one specialization
two axes have one size exactly when they name one class, so these answers are exact, not
guesses. Where NumPy would raise (operands that cannot broadcast, a matmul of mismatched
sizes), the answer is None: that statement never finishes, so nothing is claimed for it.

An axis may also be OTHER_THAN_1: a size known not to be 1 but not which (the join of two
size classes: a loop over layers of different widths). Two such axes are not known to be
equal, but NumPy's rules make them so wherever they meet: broadcasting two axes neither of
which is 1, or the summed axes of a matmul, raises unless they are equal. So an operation's
result takes the sizes of its operands, and an operand whose axes are not 1 was not
stretched: the answers stay exact for the operands of the operation asked about.
"""
NUMBER = "()"                           # the shape token of a number
OTHER_THAN_1 = "n?"                     # an axis of some size other than 1


def joined_axis(a, b):
    """The axis a value has if it has axis `a` at one binding and `b` at another."""
    if a == b:
        return a
    return OTHER_THAN_1 if a != 1 and b != 1 else None


def broadcast(tokens, numbers=True):
    """The token of an elementwise result: NUMBER from numbers alone (if `numbers`; a real
    power of numbers may be complex, whose helper keeps its check), else the shapes
    broadcast together, numbers taking the shape of the rest."""
    if None in tokens:
        return None
    shapes = [t for t in tokens if t != NUMBER]
    if not shapes:
        return NUMBER if numbers else None
    ndim = max(map(len, shapes))
    out = []
    for axis in range(-ndim, 0):
        sizes = {s[axis] for s in shapes if len(s) >= -axis} - {1}
        if len(sizes) > 1 and OTHER_THAN_1 in sizes:
            sizes.discard(OTHER_THAN_1)   # equal to the others where the statement finishes
        if len(sizes) > 1:
            return None                 # two different sizes, neither 1: NumPy raises
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def matmul(a, b):
    """The token of `a @ b` (a gufunc: 1-D operands get an axis that the result drops)."""
    if not (isinstance(a, tuple) and isinstance(b, tuple)) or not a or not b:
        return None
    if not _may_equal(a[-1], b[0] if len(b) == 1 else b[-2]):
        return None                     # the summed axes differ: NumPy raises
    if len(a) == 1 and len(b) == 1:
        return NUMBER
    if len(b) == 1:
        return a[:-1]
    if len(a) == 1:
        return b[:-2] + b[-1:]
    batch = broadcast([a[:-2], b[:-2]]) if len(a) > 2 or len(b) > 2 else ()
    return None if batch is None else batch + (a[-2], b[-1])


def reduced(token, axis, keepdims):
    """The token of a reduction of an array of `token` over `axis` (None: all axes; an int
    or a tuple of ints, negative ones counting from the end), keeping the axes as 1s if
    `keepdims`. None where an axis is out of range or named twice."""
    if not isinstance(token, tuple):
        return None
    if axis is None:
        return tuple(1 for _ in token) if keepdims else NUMBER
    axes = axis if isinstance(axis, tuple) else (axis,)
    if not all(type(a) is int and -len(token) <= a < len(token) for a in axes):
        return None
    axes = {a % len(token) for a in axes}
    if len(axes) != len(axis if isinstance(axis, tuple) else (axis,)):
        return None
    if keepdims:
        return tuple(1 if k in axes else n for k, n in enumerate(token))
    kept = tuple(n for k, n in enumerate(token) if k not in axes)
    return kept or NUMBER


def _may_equal(a, b):
    """Can axes `a` and `b` have one size? Those of two classes cannot (nor 1 and a class)."""
    return a == b or OTHER_THAN_1 in (a, b) and 1 not in (a, b)
