"""The coverage table: which NumPy (and math, builtin, operator) functions have derivative rules,
in which mode, and whether their gradient can be differentiated again. Read from the rule
registry, so it cannot drift from what the transformer does; docs/numpy_coverage.md is this
table, written by `s2s-ad rules --markdown` and checked current by a test."""
import builtins
import inspect
import math
import operator
import sys
import types

import gast
import numpy as np

from . import definitions, rules

_NAMESPACES = (("np", np), ("np.linalg", np.linalg), ("np.fft", np.fft), ("math", math),
               ("operator", operator), ("builtins", builtins))
# the modules of optional libraries whose rules are listed once someone has imported them (the
# table never imports them: their rules load only then, rules.OPTIONAL_PACKAGES)
OPTIONAL_NAMESPACES = ("scipy.special", "scipy.stats")

# what a template calls only to read shapes or build index arguments: no derivative flows
_SHAPE_ONLY = {np.shape, np.ndim, np.size, len, range, tuple, list, int, float, isinstance,
               min, max, sorted, zip, enumerate, abs, slice, dict}

HEADER = """# NumPy coverage

Generated from the rule registry by `s2s-ad rules --markdown`; a test keeps it current.

- **reverse**: `grad`, `vjp` and `value_and_grad` differentiate through the function.
- **forward**: `jvp` does.
- **second order**: the reverse rule's own derivative code can be differentiated again
  (`hvp`, `hessian`, `grad` of `grad`); `no: f` names what its rule calls without a tangent.
- **complex**: the rules hold for complex values too, under the convention of JAX and HIPS
  autograd (README "Complex numbers"); `no`: a complex value that reaches the function is
  refused, naming your line.
- **constant**: the result carries no derivative (an index, a shape, a boolean).

The methods of the binary ufuncs are the functions they compute: `np.add.reduce` is `np.sum`
(`axis=0` by default), `np.multiply.reduce` `np.prod`, `np.maximum.reduce` / `np.minimum.reduce`
`np.max` / `np.min`, `np.add.accumulate` / `np.multiply.accumulate` `np.cumsum` / `np.cumprod`,
and `f.outer(a, b)` is `f` of every pair of entries; each has the rows of those functions.

A NumPy function missing here is refused at transform time, naming it and your line; register a
rule with `@s2s_ad.adjoint` / `@s2s_ad.tangent`, or wrap the value in `s2s_ad.stop_gradient`.

The `scipy.special` and `scipy.stats` rows are generated with SciPy installed and imported (`s2s-ad
rules` imports it where it can): their rules load once your code imports SciPy, and a SciPy
function missing here is refused the same way.
"""


def public_name(key):
    """How a user writes the primal `key`: `np.linalg.svd`, `x.sum()`, `x.T`, `x[i]`; aliases
    side by side (`np.arccos / np.acos`)."""
    if isinstance(key, rules.method):
        return f"x.{key.name}()"
    if isinstance(key, rules.attribute):
        return f"x.{key.name}"
    if key == rules.SUBSCRIPT:
        return "x[i]"
    if isinstance(key, type) and issubclass(key, np.generic):
        return f"np.{key.__name__}"        # a scalar type: its aliases differ by platform
    if isinstance(key, types.BuiltinMethodType) and isinstance(key.__self__, np.ufunc):
        owner = _names_of(key.__self__)              # np.maximum.accumulate
        return " / ".join(f"{name}.{key.__name__}" for name in owner) if owner else None
    if isinstance(key, types.MethodType):          # scipy.stats.norm.logpdf: a distribution's
        owner = _names_of(key.__self__)              # method, made anew at each access
        return f"{owner[0]}.{key.__name__}" if owner else None
    names = _names_of(key)
    return " / ".join(names) if names else None


def _namespaces():
    imported = [(name, sys.modules[name]) for name in OPTIONAL_NAMESPACES if name in sys.modules]
    return [*_NAMESPACES, *imported]


def _names_of(value):
    """The public names of `value` in the first namespace that holds it, longest first."""
    for prefix, namespace in _namespaces():
        names = sorted((name for name, held in vars(namespace).items()
                        if held is value and not name.startswith("_")), key=lambda n: (-len(n), n))
        if names:
            return [f"{prefix}.{name}" for name in names]
    return []


def _resolve(node, namespace):
    """The object a template's call target names (`np.swapaxes`, `unreduce`), or None."""
    if isinstance(node, gast.Name):
        return namespace.get(node.id, getattr(builtins, node.id, None))
    if isinstance(node, gast.Attribute):
        owner = _resolve(node.value, namespace)
        return getattr(owner, node.attr, None) if inspect.ismodule(owner) else None
    return None


def _has_tangent(callee):
    return (callee in _SHAPE_ONLY or rules.is_non_differentiable(callee)
            or rules.tangent_rule(callee) is not None)


def missing_second_order(rule):
    """The callables the reverse `rule` calls that have no tangent rule: what stops forward
    mode over its derivative code. Methods and operators on arrays all have rules."""
    missing = set()
    for node in gast.walk(rule.node):
        if isinstance(node, gast.Call):
            callee = _resolve(node.func, rule.globals)
            if callee is not None and not _has_tangent(callee):
                missing.add(public_name(callee) or getattr(callee, "__name__", repr(callee)))
    return sorted(missing)


def _note(rule):
    """A template's docstring is its note to users (conditions, conventions at kinks); its
    comments are for whoever reads the rule."""
    return _note_of(rule.template) if rule is not None else ""


def _note_of(function):
    text = inspect.getdoc(function)
    return " ".join(text.split()) if text else ""


def coverage_rows():
    """(name, reverse, forward, second order, complex, note) per public primal in the
    registry."""
    rules.load_templates()
    keys = [*rules.ADJOINTS, *rules.TANGENTS, *rules.NON_DIFFERENTIABLE]
    rows = {}
    for key in keys:
        name = public_name(key)
        if name is None or name in rows:
            continue
        if rules.is_non_differentiable(key):
            rows[name] = (name, "constant", "constant", "constant", "constant", "")
            continue
        reverse, forward = rules.adjoint_rule(key), rules.tangent_rule(key)
        missing = missing_second_order(reverse) if reverse is not None else None
        second = ("-" if missing is None else "yes" if not missing
                  else "no: " + ", ".join(missing))
        rows[name] = (name, "yes" if reverse else "no", "yes" if forward else "no", second,
                      "yes" if rules.has_complex_rule(key) else "no", _note(reverse or forward))
    for key, definition in definitions.defined().items():
        name = public_name(key)
        if name not in rows:
            complex_values = "yes" if any(key is k for k in definitions.COMPLEX) else "no"
            rows[name] = (name, "yes", "yes", "yes", complex_values, f"Differentiated through its "
                          f"definition in Python ({definition.__module__}): "
                          f"{_note_of(definition)}")
    return sorted(rows.values(), key=lambda row: (_section(row[0]), row[0]))


def _section(name):
    if name.startswith("x"):
        return -1
    prefixes = [prefix for prefix, _ in _namespaces()]
    first = name.split(" ")[0]
    return max((k for k, prefix in enumerate(prefixes) if first.startswith(prefix + ".")),
               key=lambda k: len(prefixes[k]))


def markdown():
    """docs/numpy_coverage.md."""
    lines = [HEADER, "| function | reverse | forward | second order | complex | notes |",
             "|---|---|---|---|---|---|"]
    for name, reverse, forward, second, complex_values, note in coverage_rows():
        note = note.replace("|", "\\|")
        lines.append(f"| `{name}` | {reverse} | {forward} | {second} | {complex_values} | "
                     f"{note} |")
    return "\n".join(lines) + "\n"


def plain():
    """The table for a terminal."""
    rows = [("function", "reverse", "forward", "second order"),
            *(row[:4] for row in coverage_rows())]
    width = max(len(row[0]) for row in rows)
    return "\n".join(f"{row[0]:<{width}}  {row[1]:<8} {row[2]:<8} {row[3]}" for row in rows) + "\n"
