"""Refuse complex values where a rule does not hold for them (rules.COMPLEX lists those that do).

A value may be complex where the function writes one (a literal such as `2j`, `complex(...)`,
`np.complex128(...)`, `.astype(complex)`, a transform of np.fft, a module-level complex array
or one held by a module-level object, read when the function is transformed)
or where an argument is complex. The first is known now: a complex value that meets a rule for
real values only is refused here, naming the line. The second is known when the derivative is
called: this gives, per parameter, the refusal to raise if that argument is complex (api). A
real-valued result (`np.abs(z)`, `z.real`, a comparison) stops a complex value."""
import inspect
from typing import NamedTuple

import gast
import numpy as np

from .. import definitions, rules
from ..analysis.call_results import is_user_function
from ..analysis.primitives import classify
from ..errors import ComplexValue, TransformError
from ..frontend.parse import parse_function
from ..runtime.eig import COMPLEX_EIGENVALUES
from ..traversal import child_nodes, preorder, stores, walk_statements

WRITTEN = "written"           # the source of a complex value the function writes itself

# calls that give a real value whatever their argument
_REAL_OF = (np.real, np.imag, np.abs, np.absolute, abs, np.angle, np.isreal, np.iscomplex,
            np.iscomplexobj, np.isrealobj, np.fft.irfft, np.var, np.std, np.linalg.norm,
            np.linalg.vector_norm, np.linalg.matrix_norm)
# calls that give a complex value from a real one (eig and eigvals since NumPy 2.5)
_COMPLEX_OF = (np.fft.fft, np.fft.ifft, np.fft.fft2, np.fft.ifft2, np.fft.fftn, np.fft.ifftn,
               np.fft.rfft) + ((np.linalg.eig, np.linalg.eigvals) if COMPLEX_EIGENVALUES else ())
# calls whose results are constants for real values only (np.sign(z) is z / |z|)
_CONSTANT_ONLY_IF_REAL = (np.sign,)
# calls whose adjoints pass complex values to a real argument (irfft's is an rfft, imag's is
# -1j times the incoming one), which take the real part as the convention says
_COMPLEX_ADJOINTS = (np.imag, np.angle, definitions.rfftn, definitions.irfftn,
                     definitions.rfft2, definitions.irfft2, definitions.hfft, definitions.ihfft)
_COMPLEX_ADJOINT_MODULES = ("numpy.fft", "s2s_ad.runtime.fourier")
# what a normal-form statement builds without a rule of its own: its parts keep their rules
_ROUTING = ("copy", "const")
_CONTAINERS = ("tuple", "list", "dict")

HINT = ("take the real and imaginary parts (`z.real`, `z.imag`) before this operation and write "
        "it on those, or differentiate a function of real arguments")


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


def _is_complex_value(value):
    if isinstance(value, complex):
        return True
    if isinstance(value, (list, tuple)):
        return any(_is_complex_value(v) for v in value)
    if isinstance(value, dict):
        return any(_is_complex_value(v) for v in value.values())
    dtype = getattr(value, "dtype", None)
    return getattr(dtype, "kind", None) == "c" and not isinstance(value, type)


def _complex_origin(parsed, node, local_names):
    """The first node of expression `node` that writes a complex value, or None."""
    # `start:stop:4j` in np.r_, np.mgrid, ... (or `slice(start, stop, 4j)` in a derivative
    # of one): an imaginary step is a count of points, not a complex value
    counts = {id(part.step) for part in preorder(node) if isinstance(part, gast.Slice)}
    counts |= {id(part.args[2]) for part in preorder(node) if isinstance(part, gast.Call)
               and len(part.args) == 3 and _resolve(parsed, part.func) is slice}
    for part in _complex_parts(parsed, node):
        if isinstance(part, gast.Constant) and isinstance(part.value, complex) \
                and id(part) not in counts:
            return part
        if isinstance(part, (gast.Name, gast.Attribute)) and _root(part) not in local_names \
                and _is_complex_value(_resolve(parsed, part)):
            return part            # a module-level complex array, or one an object there holds
        if not isinstance(part, gast.Call):
            continue
        if _is_complex_type(parsed, part.func) or _calls(parsed, part, _COMPLEX_OF):
            return part
        if isinstance(part.func, gast.Attribute) and part.func.attr == "astype" and part.args \
                and _is_complex_type(parsed, part.args[0]):
            return part
        if any(k.arg == "dtype" and _is_complex_type(parsed, k.value) for k in part.keywords):
            return part
    return None


def _root(node):
    """The name an attribute chain (`model.layer.c`) starts from, or None."""
    while isinstance(node, gast.Attribute):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _smooth_only_for_complex(parsed, value, varied):
    """Is `value` a call constant for real values that varies with a complex one (np.sign(z)
    is z / |z|), on a value that depends on what is differentiated?"""
    return isinstance(value, gast.Call) and _calls(parsed, value, _CONSTANT_ONLY_IF_REAL) and \
        any(isinstance(n, gast.Name) and n.id in varied for n in preorder(value))


def _complex_adjoint(parsed, node):
    """Does `node` compute something whose adjoint is complex for a real argument?"""
    if isinstance(node, gast.Attribute):
        return node.attr == "imag"
    if not isinstance(node, gast.Call):
        return False
    function = _resolve(parsed, node.func)
    module = getattr(function, "__module__", None) or ""
    return any(function is f for f in _COMPLEX_ADJOINTS) or module.startswith(
        _COMPLEX_ADJOINT_MODULES)


def _calls(parsed, node, functions):
    function = _resolve(parsed, node.func)
    return any(function is f for f in functions)


def _is_real(parsed, value):
    """Does expression `value` give a real value even from complex operands?"""
    if isinstance(value, gast.Compare):
        return True
    if isinstance(value, gast.Attribute) and value.attr in ("real", "imag"):
        return True
    return isinstance(value, gast.Call) and _calls(parsed, value, _REAL_OF)


def _complex_parts(parsed, node):
    """The nodes of expression `node` (preorder) that may hold a complex value: not those
    under a part that gives a real value (`abs(1j) * x`, `np.var(z) + 1`, `z.real`)."""
    if _is_real(parsed, node):
        return
    yield node
    for child in child_nodes(node):
        yield from _complex_parts(parsed, child)


def _target_ids(target):
    return [n.id for n in preorder(target) if isinstance(n, gast.Name)]


def _flow(statement):
    """(the names a statement may put a complex value into, the expression it comes from):
    an assignment's targets, a loop's target (the entries of what it walks), or the container a
    method call fills (`xs.append(v)`, `xs.extend(vs)`, `xs.insert(i, v)`, `d.update(e)`)."""
    if isinstance(statement, gast.Assign):
        return [n for t in statement.targets for n in _target_ids(t)], statement.value
    if isinstance(statement, gast.For):
        return _target_ids(statement.target), statement.iter
    call = getattr(statement, "value", None)
    if isinstance(statement, gast.Expr) and isinstance(call, gast.Call) and \
            isinstance(call.func, gast.Attribute) and isinstance(call.func.value, gast.Name):
        return [call.func.value.id], call
    return [], None


class ComplexSources:
    """For each name, where a complex value it may hold comes from: {source: node}, a source
    being a parameter's name or WRITTEN (the node: where the function writes it)."""

    def __init__(self, parsed, statements, params, local_names):
        self.parsed = parsed
        self.local_names = local_names
        self.of = {p: {p: None} for p in params}
        self._read = {}                  # id(expression) -> (it, reading(it)): see reading
        changed = True
        while changed:                   # a fixed point, for values carried around loops
            changed = False
            for statement in statements:
                targets, value = _flow(statement)
                if not targets or _is_real(parsed, value):
                    continue
                incoming = self.made(value)
                for name in targets:
                    known = self.of.setdefault(name, {})
                    for source, node in incoming.items():
                        if source not in known:
                            known[source] = node
                            changed = True

    def reaching(self, value):
        """{source: node} of the complex values expression `value` reads."""
        found = {}
        names, origin = self.reading(value)
        for name in names:
            for source, node in self.of.get(name, {}).items():
                found.setdefault(source, node)
        if origin is not None:
            found[WRITTEN] = origin
        return found

    def reading(self, value):
        """(the names whose complex values expression `value` reads, sorted; its first node
        that writes a complex value, or None): facts of the expression alone, found once per
        expression, since the fixed point and the refusals ask again for each statement. An
        entry keeps its expression alive, so that its id is not another's."""
        found = self._read.get(id(value))
        if found is None or found[0] is not value:
            names = sorted(n.id for n in _complex_parts(self.parsed, value)
                           if isinstance(n, gast.Name))
            found = self._read[id(value)] = (
                value, (names, _complex_origin(self.parsed, value, self.local_names)))
        return found[1]

    def made(self, value):
        """{source: node} of the complex values the result of `value` may hold: those it reads,
        and one a function of yours it calls writes (its own transform checks what it does
        with it, not what this function does with the result)."""
        found = self.reaching(value)
        if isinstance(value, gast.Call) and WRITTEN not in found and \
                _writes_complex(_resolve(self.parsed, value.func)):
            found[WRITTEN] = value
        return found


_WRITERS = {}                  # code object -> may the function return a complex value?


def _writes_complex(function):
    """May `function`, a function of yours, return a complex value it writes itself or gets
    from a function of yours (read from its source: its returns, followed back through its
    assignments)? False for anything else (a rule's primal, a builtin, s2s_ad's helpers); a
    complex argument it is given is the caller's source already."""
    if not inspect.isfunction(function) or not is_user_function(function):
        return False               # s2s_ad's run-time helpers keep complex values where given
    code = function.__code__
    if rules.adjoint_rule(function) is not None:
        return False
    if code not in _WRITERS:
        _WRITERS[code] = False     # a recursive call adds nothing to what the rest returns
        try:
            parsed = parse_function(function)
        except TransformError:
            return False
        body = parsed.node.body
        local_names = stores(body) | {a.id for a in parsed.node.args.args}
        statements = list(walk_statements(body))
        sources = ComplexSources(parsed, statements, (), local_names)
        _WRITERS[code] = any(WRITTEN in sources.made(s.value) for s in statements
                             if isinstance(s, gast.Return) and s.value is not None)
    return _WRITERS[code]


def _supported(parsed, statement, local_names):
    """Does the rule of `statement` (normal form) hold for complex values?"""
    primitive = classify(statement.value, parsed, local_names)
    if primitive.kind in _ROUTING:
        return True
    return primitive.kind == "op" and (primitive.key in _CONTAINERS or (
        primitive.key is not None and rules.has_complex_rule(primitive.key)))


def _refusal(parsed, statement, origin, parameter=None):
    primitive = classify(statement.value, parsed, set())
    what = primitive.label or "this operation"
    if parameter is not None:
        came = f"`{parameter}` is complex"
    else:
        line = parsed.location(origin)[0] if getattr(origin, "lineno", None) else None
        came = "a complex value reaches it" + (f" (from line {line})" if line else "")
    return parsed.error(
        statement, f"`{what}` has no derivative rule for complex values, and {came}; s2s_ad "
                   f"differentiates complex values through the rules listed as complex in "
                   f"docs/numpy_coverage.md", hint=HINT, kind=ComplexValue)


class ComplexRefusals(dict):
    """{parameter: the refusal to raise if that argument is complex}, and `written`: does the
    function write a complex value itself (run time refuses a complex value it did not see
    where neither holds: runtime.check_complex_seen)."""
    written = False


class CalleeRefusals(NamedTuple):
    """What a call of a function of yours g brings: [(operand, the refusal g's derivative
    raises if that operand is complex)], and whether g writes a complex value itself (its
    complex adjoints then reach this function's real values: runtime.check_complex_seen)."""
    by_operand: list
    written: bool


def _passed_to_a_callee(parsed, statement, local_names, callee_refusals):
    """For `y = g(...)`, g a function of yours: its CalleeRefusals, from
    `callee_refusals(statement, g)`; None for anything else, or where g's refusals are not
    known (a recursive call): then the call is refused as a rule for real values would be."""
    if callee_refusals is None or not isinstance(statement.value, gast.Call):
        return None
    primitive = classify(statement.value, parsed, local_names)
    if primitive.kind != "op" or primitive.key is None:
        return None
    return callee_refusals(statement, primitive.key)


def _refuse_at_the_callee(sources, passed, by_parameter):
    """Raise the callee's refusal for a complex value the function writes and passes it; keep
    those for the parameters whose complex argument would reach it."""
    for operand, refusal in passed:
        found = sources.reaching(operand)
        if WRITTEN in found:
            raise refusal
        for parameter in found:
            by_parameter.setdefault(parameter, refusal)


def refuse_complex_values(parsed, body, active, params, local_names, varied=(),
                          callee_refusals=None):
    """Raise at the first active statement of `body` (normal form) where a complex value the
    function writes meets a rule for real values only; return the ComplexRefusals for the
    parameters a complex argument would take to such a rule. `callee_refusals(statement, g)`:
    see _passed_to_a_callee (a complex value passed to a function of yours meets its rules)."""
    statements = list(walk_statements(body))
    sources = ComplexSources(parsed, statements, params, local_names)
    by_parameter = ComplexRefusals()
    by_parameter.written = any(WRITTEN in found for found in sources.of.values()) or any(
        _complex_adjoint(parsed, node) for statement in statements for node in preorder(statement))
    for statement in statements:
        if not isinstance(statement, gast.Assign):
            continue
        varies = _smooth_only_for_complex(parsed, statement.value, varied)
        if not varies and not any(n in active for t in statement.targets
                                  for n in _target_ids(t)):
            continue
        incoming = sources.reaching(statement.value)
        if not incoming or (not varies and _supported(parsed, statement, local_names)):
            continue
        passed = None if varies else _passed_to_a_callee(parsed, statement, local_names,
                                                         callee_refusals)
        if passed is not None:
            _refuse_at_the_callee(sources, passed.by_operand, by_parameter)
            by_parameter.written |= passed.written
            continue
        if WRITTEN in incoming:
            raise _refusal(parsed, statement, incoming[WRITTEN])
        for parameter in incoming:
            by_parameter.setdefault(parameter, _refusal(parsed, statement, None, parameter))
    return by_parameter
