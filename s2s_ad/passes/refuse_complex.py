"""Refuse, at transform time, a complex value written in the function (a literal such as `2j`,
`complex(...)`, `np.complex128(...)`, `.astype(complex)`) that meets a differentiated value.

Complex numbers have no derivative convention in s2s_ad yet: a rule would silently drop the
imaginary part. Complex values that stay inactive are fine (`np.real(np.exp(1j * c))` with `c`
a constant). Complex values the source does not show (a module-level complex array, a complex
argument not in wrt) are refused when the derivative runs (runtime.gradient_like)."""
import gast
import numpy as np

from ..errors import ComplexValue
from ..traversal import loads, preorder, walk_statements

# calls that give a real value whatever their argument
_REAL_OF = (np.real, np.imag, np.abs, np.absolute, abs, np.angle, np.isreal, np.iscomplex,
            np.iscomplexobj, np.isrealobj)


def _resolve(parsed, node):
    """The object a Name or dotted Attribute refers to, or None."""
    if isinstance(node, gast.Name):
        try:
            return parsed.resolve(node.id)
        except (KeyError, AttributeError):
            return None
    if isinstance(node, gast.Attribute):
        owner = _resolve(parsed, node.value)
        return getattr(owner, node.attr, None) if owner is not None else None
    return None


def _is_complex_type(parsed, node):
    if isinstance(node, gast.Constant):
        return isinstance(node.value, str) and "complex" in node.value
    kind = _resolve(parsed, node)
    try:
        return kind is complex or (isinstance(kind, type) and issubclass(kind, np.complexfloating))
    except TypeError:
        return False


def _complex_origin(parsed, node):
    """The first node of expression `node` that writes a complex value, or None."""
    # `start:stop:4j` in np.r_, np.mgrid, ... (or `slice(start, stop, 4j)` in a derivative
    # of one): an imaginary step is a count of points, not a complex value
    counts = {id(part.step) for part in preorder(node) if isinstance(part, gast.Slice)}
    counts |= {id(part.args[2]) for part in preorder(node) if isinstance(part, gast.Call)
               and len(part.args) == 3 and _resolve(parsed, part.func) is slice}
    for part in preorder(node):
        if isinstance(part, gast.Constant) and isinstance(part.value, complex) \
                and id(part) not in counts:
            return part
        if not isinstance(part, gast.Call):
            continue
        if _is_complex_type(parsed, part.func):
            return part
        if isinstance(part.func, gast.Attribute) and part.func.attr == "astype" and part.args \
                and _is_complex_type(parsed, part.args[0]):
            return part
        if any(k.arg == "dtype" and _is_complex_type(parsed, k.value) for k in part.keywords):
            return part
    return None


def _is_real(parsed, value):
    """Does expression `value` give a real value even from complex operands?"""
    if isinstance(value, gast.Compare):
        return True
    if isinstance(value, gast.Attribute) and value.attr in ("real", "imag"):
        return True
    return isinstance(value, gast.Call) and any(_resolve(parsed, value.func) is f for f in _REAL_OF)


def _complex_names(parsed, statements):
    """{name: the node that wrote its complex value} for the names that may hold one."""
    origins = {}
    changed = True
    while changed:                       # a fixed point, for values carried around loops
        changed = False
        for statement in statements:
            if not isinstance(statement, gast.Assign) or _is_real(parsed, statement.value):
                continue
            origin = _complex_origin(parsed, statement.value) or next(
                (origins[n] for n in sorted(loads(statement.value)) if n in origins), None)
            for target in statement.targets:
                for name in _target_ids(target):
                    if origin is not None and name not in origins:
                        origins[name] = origin
                        changed = True
    return origins


def _target_ids(target):
    return [n.id for n in preorder(target) if isinstance(n, gast.Name)]


def refuse_complex_constants(parsed, body, active):
    """Raise at the first complex value written in `body` (normal form) that an active
    statement (one assigning a name in `active`) reads."""
    statements = list(walk_statements(body))
    origins = _complex_names(parsed, statements)
    for statement in statements:
        if not isinstance(statement, gast.Assign) or _is_real(parsed, statement.value):
            continue
        if not any(name in active for t in statement.targets for name in _target_ids(t)):
            continue
        origin = _complex_origin(parsed, statement.value) or next(
            (origins[n] for n in sorted(loads(statement.value)) if n in origins), None)
        if origin is not None:
            raise parsed.error(
                origin if getattr(origin, "lineno", None) else statement,
                "a complex value meets a value being differentiated here; s2s_ad does not "
                "differentiate complex numbers yet",
                hint="split the complex value into real parts (`c.real`, `c.imag`) before it "
                     "meets the values you differentiate, and write the arithmetic on those",
                kind=ComplexValue)
