"""The registry of derivative rules, written as templates: Python functions in which `d[x]`
names the adjoint (reverse mode) or tangent (forward mode) of `x`.

A template's first parameter is the primal's result; the rest are the primal's arguments.
Rules are keyed by the primal: a callable (`np.sin`, `operator.mul`), or a `method('sum')`,
`attribute('T')` or `SUBSCRIPT` marker for the syntax that has no callable of its own.

`adjoint` and `tangent` register the rule of one mode. Where the math lets one rule give both,
it is declared once and the other mode's template derived (s2s_ad/rule_derivations.py):
`elementwise` by its partial derivatives, `linear` and `bilinear` by the adjoint (the tangent
is the function applied to the tangent), `transposes` for two linear functions that are each
other's adjoint.
"""
import functools
import importlib
import importlib.util
import inspect
import linecache
import pkgutil
import sys
import textwrap
from collections import ChainMap
from collections.abc import MutableMapping, MutableSet
from dataclasses import dataclass
from pathlib import Path

import gast

from . import rule_derivations
from .errors import RuleError


class _DerivativeNamespace:
    """`d` inside templates: only meaningful to the transformer, never evaluated."""

    def __getitem__(self, name):
        raise RuntimeError("d[...] is template syntax; templates are never called directly")

    __setitem__ = __getitem__


d = _DerivativeNamespace()


@dataclass(frozen=True)
class method:
    """Key for an array method, `x.name(...)`: the template's second parameter is `x`."""
    name: str


@dataclass(frozen=True)
class attribute:
    """Key for an array attribute, `x.name`."""
    name: str


SUBSCRIPT = "subscript"          # y = x[index]: template (y, x, index)
FIELD = "field"                  # y = x.name, a name no table has: template (y, x, field)


@dataclass
class Rule:
    """One template; its tree is parsed, and its signature read, when a transform first uses
    it (reading ~900 signatures as the tables load would cost every first transform ~30 ms)."""

    key: object
    template: object
    skip: int = 0                   # leading template parameters that are not the primal's
    derive_node: object = None      # for a rule declared once for both modes: its template
    helpers: dict = None            # globals a derived template reads, its table need not import
    field: str = None               # a FIELD rule's attribute name: its `field` default

    def __post_init__(self):
        namespace = self.template.__globals__
        self._globals = namespace if self.helpers is None else ChainMap(self.helpers, namespace)

    @functools.cached_property
    def signature(self):
        """The template's signature, the primal's defaults filled in."""
        signature = _with_primal_defaults(_template_signature(self.template, self.skip), self.key)
        if self.field is None:
            return signature
        return signature.replace(parameters=[p.replace(default=self.field) if p.name == "field"
                                             else p for p in signature.parameters.values()])

    @functools.cached_property
    def params(self):
        return list(self.signature.parameters)

    @functools.cached_property
    def defaults(self):
        return {name: p.default for name, p in self.signature.parameters.items()
                if p.default is not inspect.Parameter.empty}

    @property
    def node(self):
        if self.derive_node is not None:
            return self.derive_node(_parse_template(self.template))
        return _parse_template(self.template)

    @property
    def result(self):
        return self.params[0]

    @functools.cached_property
    def derivative_params(self):
        """The parameters whose derivative the template writes or reads (`d[x]`, `d[xs[k]]`)."""
        found = set()
        for node in gast.walk(self.node):
            if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                    and node.value.id == "d":
                inner = node.slice.value if isinstance(node.slice, gast.Subscript) else node.slice
                if isinstance(inner, gast.Name):
                    found.add(inner.id)
        return found - {self.result}

    @property
    def globals(self):
        return self._globals


class CallableTable(MutableMapping):
    """A dict keyed by callables that also takes unhashable ones (a ctypes function, an object
    whose `__hash__` is None or raises): those are keyed by identity, as a call site names the
    very object a rule was registered for."""

    def __init__(self):
        self._hashed = {}
        self._by_identity = {}           # id(key) -> (key, value); the key keeps the id alive

    def __getitem__(self, key):
        if is_hashable(key):
            return self._hashed[key]
        return self._by_identity[id(key)][1]

    def __setitem__(self, key, value):
        if is_hashable(key):
            self._hashed[key] = value
        else:
            self._by_identity[id(key)] = (key, value)

    def __delitem__(self, key):
        if is_hashable(key):
            del self._hashed[key]
        else:
            del self._by_identity[id(key)]

    # `in` and `get` asked directly: MutableMapping's own go through __getitem__ and a
    # KeyError for each key not there, the common answer when a call is classified
    def __contains__(self, key):
        if is_hashable(key):
            return key in self._hashed
        return id(key) in self._by_identity

    def get(self, key, default=None):
        if is_hashable(key):
            return self._hashed.get(key, default)
        entry = self._by_identity.get(id(key))
        return default if entry is None else entry[1]

    def __iter__(self):
        yield from self._hashed
        yield from (key for key, _ in self._by_identity.values())

    def __len__(self):
        return len(self._hashed) + len(self._by_identity)


class CallableSet(MutableSet):
    """A set of callables and rule keys that also holds unhashable ones (by identity), so that
    `key in KEYS` never fails on what a call site names."""

    def __init__(self, items=()):
        self._table = CallableTable()
        for item in items:
            self.add(item)

    def __contains__(self, item):
        return item in self._table

    def __iter__(self):
        return iter(self._table)

    def __len__(self):
        return len(self._table)

    def add(self, item):
        self._table[item] = True

    def discard(self, item):
        self._table.pop(item, None)


def is_hashable(value):
    """Can `value` key a dict? Any failure of its `__hash__` counts as no."""
    try:
        hash(value)
    except Exception:
        return False
    return True


ADJOINTS = CallableTable()
TANGENTS = CallableTable()


@functools.cache
def _parse_template(template):
    try:
        node = gast.parse(textwrap.dedent(_shipped_source(template))).body[0]
    except (SyntaxError, IndexError, ValueError, OSError):
        node = gast.parse(textwrap.dedent(inspect.getsource(template))).body[0]
    node.decorator_list = []
    if inspect.getdoc(template):         # the note to users (docs/numpy_coverage.md), not code
        node.body = node.body[1:]
    return node


def _shipped_source(template):
    """`template`'s lines, from its first decorator to the end of the last expression its
    code evaluates: what inspect.getsource finds by tokenizing the module from the definition
    on (a tenth of a millisecond a template, for each of the rules a first call uses)."""
    code = template.__code__
    ends = [end for _, end, _, _ in code.co_positions() if end is not None]
    lines = linecache.getlines(code.co_filename)
    if not ends or not lines:
        raise OSError(f"no source lines for {code.co_name}")
    return "".join(lines[code.co_firstlineno - 1:max(ends)])


def _primal_signature(primal):
    if isinstance(primal, (method, attribute, str)):
        return None
    try:
        return inspect.signature(primal)
    except (TypeError, ValueError):
        return None


def _check_matches_primal(primal, template, params):
    signature = _primal_signature(primal)
    given = params[1:]
    nin = getattr(primal, "nin", None)
    if hasattr(primal, "argtypes") and hasattr(primal, "restype"):
        # a ctypes function: any names, one per declared argument type (none declared: any)
        if primal.argtypes is None:
            return
        nin, signature = len(primal.argtypes), inspect.Signature()
    if signature is None:
        return
    if isinstance(nin, int):                 # a ufunc: any names, one per input
        expected = given if len(given) == nin else [f"x{i + 1}" for i in range(nin)]
    elif inspect.isfunction(primal):
        expected = [name for name, p in signature.parameters.items()
                    if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    else:
        expected = [name for name, p in signature.parameters.items()
                    if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if given != expected:
        code = template.__code__
        raise RuleError(
            f"the rule for {getattr(primal, '__qualname__', primal)} takes parameters "
            f"({', '.join(given)}) after the result, but the function takes "
            f"({', '.join(expected)})",
            filename=code.co_filename, lineno=code.co_firstlineno,
            hint=f"write the rule as def _(result, {', '.join(expected)}): ...")


def _is_shipped(template):
    """Is `template` one of the rule tables in templates/ (not a user's @s2s_ad.adjoint)?"""
    return template.__module__.startswith(f"{__package__}.templates.")


def _refuse_second_registration(table, primal, template):
    """The shipped tables declare each derivative fact once: a second rule for a key would
    silently replace the first (a user's @s2s_ad.adjoint may replace a shipped rule on purpose)."""
    if not _is_shipped(template) or primal not in table:
        return
    first = table[primal].template.__code__
    code = template.__code__
    if (first.co_filename, first.co_firstlineno) == (code.co_filename, code.co_firstlineno):
        return          # one rule naming a key twice (np.abs is np.absolute), or a reload
    raise RuleError(
        f"a second rule for {getattr(primal, '__qualname__', primal)}: the first is "
        f"{first.co_name} at {first.co_filename}:{first.co_firstlineno}",
        filename=code.co_filename, lineno=code.co_firstlineno,
        hint="keep one of the two rules")


def _register(table, primals, template, validate=False, derive_node=None, skip=0, helpers=None):
    if not _is_shipped(template):
        _parse_template(template)        # a user's rule: a source we cannot read fails now
        if not _template_signature(template, skip).parameters:
            code = template.__code__
            raise RuleError("a rule needs the primal's result as its first parameter",
                            filename=code.co_filename, lineno=code.co_firstlineno,
                            hint="write the rule as def _(result, x, ...): ...")
    for primal in primals:
        if _is_shipped(template) and primal in table and not _is_shipped(table[primal].template):
            continue          # a user's rule, registered before this table was loaded, stays
        _refuse_second_registration(table, primal, template)
        if validate:
            _check_matches_primal(primal, template,
                                  list(_template_signature(template, skip).parameters))
        table[primal] = Rule(primal, template, skip, derive_node, helpers)
    return template


@functools.lru_cache(maxsize=None)
def _template_signature(template, skip):
    """The template's signature without its first `skip` parameters."""
    signature = inspect.signature(template)
    return signature.replace(parameters=list(signature.parameters.values())[skip:])


def _with_primal_defaults(signature, primal):
    """The template's signature, where a parameter it leaves without a default takes the
    default of the primal's parameter in the same place: a rule `def _(y, x, factor)` for
    `def scale(x, factor=2.0)` then fits the call `scale(x)`."""
    if not inspect.isfunction(primal):
        return signature
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    theirs = [p for p in inspect.signature(primal).parameters.values() if p.kind in positional]
    ours = list(signature.parameters.values())
    for k, param in enumerate(ours[1:len(theirs) + 1], start=1):
        if param.default is param.empty and param.kind in positional:
            ours[k] = param.replace(default=theirs[k - 1].default)
    try:
        return signature.replace(parameters=ours)
    except ValueError:                   # a parameter without a default after one with
        return signature


def adjoint(*primals, validate=False):
    """Register a reverse-mode rule for each of `primals` (decorator)."""
    return lambda template: _register(ADJOINTS, primals, template, validate)


def tangent(*primals, validate=False):
    """Register a forward-mode rule for each of `primals` (decorator)."""
    return lambda template: _register(TANGENTS, primals, template, validate)


def elementwise(*primals, broadcasting=True, complex=False):
    """Register both rules of an elementwise function from its partial derivatives (decorator).

    The template gives the derivative in terms of `g`, the incoming one. One input:
    `def exp(g, y, x): return g * y`, read as the adjoint `d[x] = d[y] * y` and the tangent
    `d[y] = d[x] * y` (an elementwise derivative is its own transpose). Several inputs: one line
    `d[x] = E` per input, read as the adjoints `d[x] = unbroadcast(E, x)` with g = d[z] (the sum
    over what broadcasting stretched) and the tangent `d[z] = E_x + E_y + ...` with g = d[x] in
    the term of x. `broadcasting=False` for functions of scalars: nothing to unbroadcast.
    `complex=True`: the rule also holds for complex values (supports_complex)."""
    def register(template):
        if complex:
            supports_complex(*primals)
        for primal in primals:
            ELEMENTWISE.add(primal)
        for table, mode in ((ADJOINTS, "adjoint"), (TANGENTS, "tangent")):
            _register(table, primals, template, skip=1,
                      derive_node=rule_derivations.elementwise(template, mode, broadcasting),
                      helpers=rule_derivations.ELEMENTWISE_HELPERS)
        return template
    return register


def linear(*primals, keywords=False, complex=False):
    """Register both rules of a function linear in one input (decorator): the template is its
    adjoint, one line `d[x] = <the transpose applied to d[y]>`; the tangent is the function
    itself applied to the tangent, `d[y] = f(d[x], ...)`, each primal calling itself (a method
    key, or a function the table cannot name, calls the first of `primals`) with the template's
    parameters in order (by keyword after the input with `keywords=True`).
    `complex=True`: the rule also holds for complex values (supports_complex)."""
    return _multilinear(primals, 1, keywords, complex)


def bilinear(*primals, complex=False):
    """`linear` for a function of two inputs linear in each (a product): the template has one
    adjoint line per input, and the tangent is `f(d[x], y) + f(x, d[y])`."""
    return _multilinear(primals, 2, False, complex)


def _multilinear(primals, inputs, keywords, complex=False):
    def register(template):
        if complex:
            supports_complex(*primals)
        _register(ADJOINTS, primals, template)
        for primal in primals:
            calls_itself = not isinstance(primal, (method, attribute)) and \
                rule_derivations.can_call(template, primal)
            caller = primal if calls_itself else primals[0]
            helpers = {}            # filled when the derived template is first made
            derive = rule_derivations.multilinear_tangent(template, caller, helpers, inputs,
                                                          keywords)
            _register(TANGENTS, [primal], template, derive_node=derive, helpers=helpers)
        return template
    return register


def transposes(primal, partner, complex=False):
    """Register the four rules of two linear functions that are each other's transposes and
    take the same arguments after the first, the one they are linear in (decorator). The
    template is the adjoint of `primal`, `d[g] = partner(d[y], ...)`; the adjoint of `partner`
    is `primal(d[y], ...)` the same way, and each one's tangent is itself applied to the tangent."""
    def register(template):
        if complex:
            supports_complex(primal, partner)
        helpers = {}
        _register(ADJOINTS, [primal], template)
        _register(ADJOINTS, [partner], template, helpers=helpers, derive_node=(
            rule_derivations.transposed_adjoint(template, primal, partner, helpers)))
        for function in (primal, partner):
            _register(TANGENTS, [function], template, helpers=helpers, derive_node=(
                rule_derivations.multilinear_tangent(template, function, helpers, 1)))
        return template
    return register


# The callables whose rules were declared `elementwise`: NumPy's among them read a list or a
# tuple operand as the array it makes (passes/read_sequences_as_arrays.py).
ELEMENTWISE = CallableSet()


def is_elementwise(primal):
    """Was the rule of `primal` declared `elementwise`?"""
    load_templates()
    return primal in ELEMENTWISE


# Callables whose results carry no derivative: integer-valued, boolean or shape queries,
# and array constructors that take no differentiable input.
NON_DIFFERENTIABLE = CallableSet()


def non_differentiable(*primals):
    """Mark callables (or method/attribute keys) whose results are constants."""
    for primal in primals:
        NON_DIFFERENTIABLE.add(primal)


# The rules that hold for complex values too, under the convention of JAX and HIPS autograd (the
# adjoint of a holomorphic f is g * f'(z), no conjugate; a real-valued f of z = a + ib gets
# df/da - i df/db; README "Complex numbers"). A complex value that meets a rule not listed here
# is refused (analysis/complex_values.py): the rule was written for real values only.
COMPLEX = CallableSet()


def supports_complex(*primals):
    """Declare that the rules of `primals` hold for complex values as well as real ones."""
    for primal in primals:
        COMPLEX.add(primal)


def has_complex_rule(primal):
    """Does the rule of `primal` hold for complex values (or does it have no derivative)?"""
    load_templates()
    if primal in COMPLEX or primal in NON_DIFFERENTIABLE:
        return True
    twin = _equivalent_numpy(primal)
    return twin is not None and (twin in COMPLEX or twin in NON_DIFFERENTIABLE)


# Parameters a rule gives no derivative on purpose: the primal reads them only for a shape or a
# choice (np.full_like's `a`, np.where's `condition`), so their derivative is zero.
CONSTANT_PARAMETERS = CallableTable()      # callable -> names of such parameters


def constant_parameters(names, *primals):
    """Declare `names` (a tuple of template parameters) as carrying no derivative into `primals`."""
    for primal in primals:
        CONSTANT_PARAMETERS[primal] = frozenset(names)


def ignored_parameters(rule, bindings, carries_derivative):
    """The parameters bound to an operand that `carries_derivative` for which `rule` has no
    derivative and declares none: a derivative that would be dropped without a word."""
    constant = CONSTANT_PARAMETERS.get(rule.key, frozenset())
    position = INDEX_ARGUMENTS.get(rule.key)
    if position is not None and position + 1 < len(rule.params):
        constant = constant | {rule.params[position + 1]}
    ignored = []
    for name, atom in bindings.items():
        if name == rule.result or name in rule.derivative_params or name in constant:
            continue
        atoms = atom if isinstance(atom, list) else [] if isinstance(atom, dict) else [atom]
        if any(carries_derivative(a) for a in atoms):
            ignored.append(name)
    return ignored


# Callables that take an index among their arguments (`scatter(x, index, g)`): the index
# says where a value goes and carries no derivative, so activity does not flow through it.
INDEX_ARGUMENTS = CallableTable()          # callable -> the position of its index argument


def index_argument(position, *primals):
    """Mark argument `position` of each of `primals` as an index (no derivative flows)."""
    for primal in primals:
        INDEX_ARGUMENTS[primal] = position


def index_position(primal):
    """The position of `primal`'s index argument, or None."""
    load_templates()
    return INDEX_ARGUMENTS.get(primal)


# scipy.special's ufuncs that compute what NumPy's of the same name do
_SCIPY_TWINS = frozenset({"log1p", "expm1", "cbrt", "exp2"})


def _equivalent_numpy(primal):
    """The NumPy function a CuPy function mirrors, or that a scipy.special ufunc of the same
    name computes (scipy.special.log1p), so one rule serves both."""
    import numpy
    name = getattr(primal, "__name__", None)
    special = sys.modules.get("scipy.special")
    if name in _SCIPY_TWINS and special is not None and getattr(special, name, None) is primal:
        return getattr(numpy, name)
    module = getattr(primal, "__module__", None) or type(primal).__module__ or ""
    if not module.startswith("cupy"):
        return None
    for namespace in (numpy, numpy.linalg):
        candidate = getattr(namespace, name or "", None)
        if candidate is not None:
            return candidate
    return None


def _lookup(table, primal):
    load_templates()
    if primal in table:
        return table[primal]
    if isinstance(primal, attribute) and FIELD in table:
        return _field_rule(table[FIELD], primal.name)
    twin = _equivalent_numpy(primal)
    if twin is not None:
        return table.get(twin)
    return None


_FIELD_RULES = {}


def _field_rule(rule, name):
    """The FIELD rule with its `field` parameter defaulting to `name`."""
    key = (id(rule), name)
    if key not in _FIELD_RULES:
        _FIELD_RULES[key] = Rule(attribute(name), rule.template, rule.skip, rule.derive_node,
                                 rule.helpers, field=name)
    return _FIELD_RULES[key]


def adjoint_rule(primal):
    return _lookup(ADJOINTS, primal)


def tangent_rule(primal):
    return _lookup(TANGENTS, primal)


def is_non_differentiable(primal):
    load_templates()
    if primal in NON_DIFFERENTIABLE:
        return True
    twin = _equivalent_numpy(primal)
    return twin is not None and twin in NON_DIFFERENTIABLE


_LOADED = False

# Rule tables for libraries s2s_ad does not depend on. A module of templates/ named
# `<package>_<module>` for a package listed here (templates/scipy_special.py) holds the rules for
# functions of `<package>.<module>` (scipy.special) and imports it. It is loaded at the first rule
# lookup after that module has been imported by someone else, never before: `import s2s_ad`
# imports no SciPy, and a function that calls `scipy.special.erf` finds its rule, since its own
# module imported scipy.special before the transform could name the callable.
OPTIONAL_PACKAGES = ("scipy",)
_WAITING = {}                 # optional table not loaded yet -> the module it needs


def optional_requirement(name):
    """The module a table of templates/ needs before it is loaded (`scipy_stats` needs
    `scipy.stats`), or None for the tables of NumPy, loaded at the first lookup."""
    package, _, module = name.partition("_")
    return f"{package}.{module}" if package in OPTIONAL_PACKAGES and module else None


def _templates_package():
    """The package of rule tables. In a source checkout templates/ sits beside the package
    instead of inside it: that checkout's own, even where an editable install of another
    checkout maps `s2s_ad.templates` to that one's templates/."""
    path = Path(__file__).resolve().parent.parent / "templates"
    checkout = (path.parent / "pyproject.toml").is_file() and (path / "__init__.py").is_file()
    if "s2s_ad.templates" in sys.modules or not checkout:
        return importlib.import_module("s2s_ad.templates")
    spec = importlib.util.spec_from_file_location(
        "s2s_ad.templates", path / "__init__.py", submodule_search_locations=[str(path)])
    package = importlib.util.module_from_spec(spec)
    sys.modules["s2s_ad.templates"] = package
    spec.loader.exec_module(package)
    return package


def load_templates():
    """Load the rule tables: at the first call every table of NumPy's; at each call, the tables
    of optional libraries whose module has been imported since (cheap once none is waiting)."""
    global _LOADED
    if not _LOADED:
        _LOADED = True
        package = _templates_package()
        for name in template_modules(package):
            needs = optional_requirement(name)
            if needs is None:
                importlib.import_module(f"s2s_ad.templates.{name}")
            else:
                _WAITING[name] = needs
    if _WAITING:
        _load_imported_optional_tables()


def _load_imported_optional_tables():
    for name, needs in list(_WAITING.items()):
        if needs in sys.modules:
            del _WAITING[name]            # first, so that a failing import is not retried
            importlib.import_module(f"s2s_ad.templates.{name}")


def template_modules(package=None):
    """The rule tables: every module of templates/, found there (no list to keep by hand)."""
    package = package or _templates_package()
    return sorted(info.name for info in pkgutil.iter_modules(package.__path__)
                  if not info.name.startswith("_"))
