"""A seeded generator of random, valid NumPy programs for differential fuzzing of s2s_ad.

`generate(seed)` returns a `Program`: the source text of a module (helper functions and an
entry point `f` that returns a scalar), the argument specs, and the `wrt` to differentiate
with respect to. Everything is a pure function of the seed.

Each program is rendered twice from the same random choices:

* `source`: plain NumPy, what s2s_ad reads and differentiates (written to a real file);
* `probe_source`: the same program in which every non-smooth decision (a data comparison in
  `if`/`while`/ternaries, `max`/`min` reductions, `abs`, `maximum`, `clip`, `where`, `std`,
  `norm`) goes through a recording function (`_k_cmp`, `_k_red`, ...) that notes the decision
  taken and how far the value was from the kink. The oracle runs the probe version: finite
  differences are only trusted when every perturbed evaluation takes the same decisions as the
  unperturbed one, and inputs too close to a kink are rejected (see `oracle.py`).

Covered: arithmetic and broadcasting, the registered elementwise rules (sin, cos, tanh, exp,
log and sqrt of positive quantities, arctan, square, sinh, log1p, expm1, reciprocal, hypot,
arctan2, logaddexp, power, abs, maximum, minimum, clip, where), reductions along axes (sum,
mean, max, min, prod, var, std, norm; keepdims), matmul/dot/outer, reshape/ravel/transpose/.T,
indexing reads (constants, loop indices, negative indices, slices, reversed slices, fancy
indexing), in-place writes into local arrays (`y[i] = ...`, `y[i] += ...`, slices, rows,
columns) created with np.zeros/ones/zeros_like/copy, writes into arguments, `if`/`elif`/`else`
on data (with names defined on every branch), ternaries, `and`/`or`/`not`, `while` (counter
bound plus data condition, `break`, `continue`), `for` over range/reversed/enumerate/zip/rows
with `break`/`continue`, early returns, augmented assignment, calls to generated helper
functions (positional, keyword, defaults, tuple returns, calls nested in expressions), tuples
(packing, unpacking, swaps, tuple parameters) and dicts (parameters and local dict literals).

Features that expose an open bug go in `KNOWN_BUG_FEATURES` (none now); the CI batch
turns them off (`generate(seed, enable=...)`), the release command can turn them on.

The mechanisms of issue 12 (`OPT_IN_FEATURES`, class `Mechanisms`) are generated only when
enabled, one run.py flag each: active values inside `np.r_`/`np.c_`, other calling conventions
(einsum subscripts and sublists, positional axes, method forms, reshape and transpose argument
forms), degenerate sizes (one element, a length-1 axis, ddof, `x ** 0` and norm at 0), closures
returned by factories, `functools.wraps` decorators that change the result, one container
passed to two helpers, and complex constants, mixed into active values (a refusal is the right
answer) or kept inactive (the gradient must be right); and, found later, loops whose body
rebinds their own target and names bound in a returning branch and again after it. Each expression form is also an
expression kind, so it lands anywhere in a program; f's top-level block gets one statement of
each enabled mechanism at a random place, so every program of such a run has it.
"""
import functools
import random
import re
from dataclasses import dataclass, field

# Features generated only when asked for: each would expose an open bug, pinned
# by a test in tests/fuzz/test_regressions.py. Re-enable (remove from here) once fixed.
KNOWN_BUG_FEATURES = set()

# Every feature the generator can switch on or off. Each of these once exposed a bug that is
# now fixed (or refused clearly) and pinned by a test in test_regressions.py; they are always
# generated: in-place updates through an alias (`alias_inplace`), `y = y` or `pass` as a
# whole branch (`self_assign`), `for v in x` with x rebound in the body (`loop_rebind`),
# `d['key']` read in a loop (`dict_read_in_loop`), `w[:] = w` (`setitem_self`), a view read
# before its base is written (`write_after_view_read`), wrt=(0,) (`wrt_1tuple`), x[1:]
# (`slice_from`).
ALL_FEATURES = {"alias_inplace", "self_assign", "loop_rebind", "dict_read_in_loop", "setitem_self",
                "write_after_view_read", "wrt_1tuple", "slice_from"}

# The mechanisms of issue 12, generated only when asked for (`run.py --index-active`, ...,
# or `--all-features`): on the code they were written against, most of them give wrong
# gradients or crash, so the CI batch leaves them out. Draw no random number for them unless
# they are enabled: the CI batch's programs stay exactly what they were.
OPT_IN_FEATURES = {
    "index_active": "active values inside np.r_[...] and np.c_[...] (an index of an object "
                    "that is not an array)",
    "call_conventions": "np.einsum in subscript and sublist form, a positional axis, method "
                        "forms (x.sum(0), x.std()), reshape(R, C) / reshape((R, C)), "
                        "transpose(1, 0), swapaxes",
    "degenerate_sizes": "std/var/mean of one element or along a length-1 axis, ddof=1, "
                        "power(x, 0) at 0, norm at 0",
    "factory_closure": "a closure returned by a factory function, capturing active values",
    "wraps_decorator": "a functools.wraps decorator that changes the result of a helper or f",
    "shared_container": "one list, tuple or dict of active values passed to two helpers",
    "complex_active": "a complex constant mixed into active values (expected: a clean "
                      "TransformError)",
    "complex_inactive": "a complex constant that stays inactive (expected: the right gradient)",
    "loop_target_rebind": "a loop whose body rebinds its own target: `for i in range(n): i = "
                          "n - 1 - i` (or i + k modulo n), `for row in M: row = row * c`",
    "early_return_rebind": "a name bound in a branch that returns, and bound again after it",
}
ALL_FEATURES |= set(OPT_IN_FEATURES)

# The opt-in mechanisms that are one expression: also drawn as an expression kind.
EXPRESSION_MECHANISMS = ("index_active", "call_conventions", "degenerate_sizes",
                         "complex_active", "complex_inactive")

# Constructs that s2s_ad mostly refuses (writes through views and aliases): each is switched on
# in a quarter of the programs, so that a batch still differentiates more than it refuses.
RARE_FEATURES = {"alias_inplace", "write_after_view_read"}

UNARY = [
    # (clean template, probe template or None when smooth everywhere)
    ("np.sin({0})", None),
    ("np.cos({0})", None),
    ("np.tanh({0})", None),
    ("np.exp(np.tanh({0}))", None),
    ("np.exp(-{0} ** 2)", None),
    ("np.log(1.0 + {0} ** 2)", None),
    ("np.log({0} * {0} + 0.5)", None),
    ("np.sqrt({0} ** 2 + 0.5)", None),
    ("np.arctan({0})", None),
    ("np.square({0})", None),
    ("np.sinh(np.sin({0}))", None),
    ("np.cosh(np.tanh({0}))", None),
    ("np.log1p({0} ** 2)", None),
    ("np.expm1(np.sin({0}))", None),
    ("np.reciprocal(1.5 + np.sin({0}))", None),
    ("({0}) ** 2", None),
    ("({0}) ** 3", None),
    ("(-{0})", None),
    ("(0.5 * {0})", None),
    ("np.abs({0})", "_k_abs({0})"),
    ("np.clip({0}, -0.5, 0.8)", "_k_clip({0}, -0.5, 0.8)"),
    ("np.clip({0}, -1.0, None)", "_k_clip({0}, -1.0, None)"),
]

BINARY = [
    ("({0} + {1})", None),
    ("({0} - {1})", None),
    ("({0} * {1})", None),
    ("({0} / (1.0 + {1} ** 2))", None),
    ("({0} / (2.0 + np.cos({1})))", None),
    ("np.add({0}, {1})", None),
    ("np.multiply({0}, {1})", None),
    ("np.subtract({0}, {1})", None),
    ("np.hypot({0}, 1.0 + {1} ** 2)", None),
    ("np.arctan2({0}, 2.0 + np.sin({1}))", None),
    ("np.logaddexp({0}, {1})", None),
    ("((1.0 + {0} ** 2) ** np.tanh({1}))", None),
    ("np.power(1.5 + np.sin({0}), 0.5 + 0.1 * {1})", None),
    ("np.maximum({0}, {1})", "_k_pair('maximum', {0}, {1})"),
    ("np.minimum({0}, {1})", "_k_pair('minimum', {0}, {1})"),
]

COMPARISONS = [">", "<", ">=", "<="]


@dataclass
class E:
    """An expression rendered twice: `c` (clean) and `p` (probe); `fresh` if it is a new array."""

    c: str
    p: str
    fresh: bool = True
    view_of: frozenset = frozenset()     # for a view leaf (`A[0]`, `v[1:3]`): what it views


def lit(text, fresh=True):
    return E(text, text, fresh)


def fmt(template, *parts, probe=None, fresh=True):
    """Fill `template` with the clean texts and `probe` (or template) with the probe texts."""
    return E(template.format(*[x.c for x in parts]),
             (probe or template).format(*[x.p for x in parts]), fresh)


@dataclass
class Var:
    name: str
    shape: tuple
    kind: str            # "param", "fresh" (a new array owned here) or "view" (may alias)
    roots: frozenset     # names of the arrays this value may share memory with


@dataclass
class Scope:
    """What names a block can read: arrays/scalars, containers, loop indices, ints."""

    vars: dict = field(default_factory=dict)
    tuples: dict = field(default_factory=dict)     # name -> list of shapes
    dicts: dict = field(default_factory=dict)      # name -> {key: shape}
    indices: dict = field(default_factory=dict)    # int loop variable -> exclusive bound
    ints: dict = field(default_factory=dict)       # int parameter -> value
    croots: dict = field(default_factory=dict)     # container name -> roots of its elements
    in_loop: bool = False                          # `break` and `continue` allowed here
    in_helper: bool = False
    returns: tuple = ()                            # shapes returned by this function
    looping: bool = False                          # inside a loop body, at any depth
    frozen: frozenset = frozenset()                # names that must not be rebound here

    def child(self, **changes):
        s = Scope(dict(self.vars), dict(self.tuples), dict(self.dicts), dict(self.indices),
                  dict(self.ints), dict(self.croots), self.in_loop, self.in_helper, self.returns,
                  self.looping, self.frozen)
        for k, v in changes.items():
            setattr(s, k, v)
        return s


@dataclass
class Helper:
    name: str
    params: list         # (name, shape)
    defaults: dict       # name -> constant text for trailing parameters with defaults
    returns: tuple       # tuple of shapes; len 1 means a single value


@dataclass
class Program:
    seed: int
    source: str
    probe_source: str
    entry: str
    params: list         # (name, spec): spec is ("float",), ("array", shape), ("int", v),
    #                      ("tuple", [spec, ...]) or ("dict", {key: spec})
    wrt: object          # what is passed to s2s_ad.grad(wrt=...)
    wrt_names: tuple
    features: set

    def make_args(self, rng):
        return [_make(spec, rng) for _, spec in self.params]


def _make(spec, rng):
    kind = spec[0]
    if kind == "float":
        return float(rng.normal() * 0.8)
    if kind == "array":
        return rng.normal(size=spec[1]) * 0.8
    if kind == "int":
        return spec[1]
    if kind == "tuple":
        return tuple(_make(s, rng) for s in spec[1])
    if kind == "list":
        return [_make(s, rng) for s in spec[1]]
    if kind == "dict":
        return {k: _make(s, rng) for k, s in spec[1].items()}
    raise ValueError(spec)


class Mechanisms:
    """Generators of the opt-in mechanisms (OPT_IN_FEATURES), mixed into `Generator`: each
    expression form keeps the shape it is asked for, so it combines with every other form."""

    def mechanism_expr(self, feature, shape, scope, d):
        self.note(feature)
        return getattr(self, f"expr_{feature}")(shape, scope, d)

    def complex_constant(self):
        """A constant with a nonzero imaginary part, written as Python writes it."""
        imag = self.r.choice([-1, 1]) * self.r.uniform(0.3, 1.2)
        return f"({self.r.uniform(-1.0, 1.0):.2f}{imag:+.2f}j)"

    def view_of(self, e, scope):
        """`e` is read through a view (`.T`, a reshape): writes into its base come later."""
        if e.c in scope.vars:
            self.viewed |= scope.vars[e.c].roots

    # --- np.r_ / np.c_: active values in the index of an object that is not an array ----------
    def expr_index_active(self, shape, scope, d):
        r = self.r
        if len(shape) == 2:
            R, C = shape
            if C > 2 and self.chance(0.5):
                parts = [self.expr((R, C - 1), scope, d), self.expr((R,), scope, d)]
                r.shuffle(parts)
            else:
                parts = [self.expr((R,), scope, d) for _ in range(C)]
            return fmt("np.c_[" + ", ".join("{%d}" % j for j in range(len(parts))) + "]", *parts)
        if len(shape) == 1:
            k = shape[0]
            cuts = sorted(r.sample(range(1, k), r.randint(1, min(2, k - 1)))) if k > 1 else []
            sizes = [b - a for a, b in zip([0] + cuts, cuts + [k])]
            parts = [self.expr(() if n == 1 else (n,), scope, d) for n in sizes]
            return fmt("np.r_[" + ", ".join("{%d}" % j for j in range(len(parts))) + "]", *parts)
        n = r.choice([self.N, self.M])
        return fmt(f"{{0}}[{r.randrange(n)}]", self.expr_index_active((n,), scope, d))

    # --- other calling conventions of the same primitives -------------------------------------
    def expr_call_conventions(self, shape, scope, d):
        if shape == ():
            return self.convention_scalar(scope, d)
        if len(shape) == 1:
            return self.convention_vector(shape[0], scope, d)
        return self.convention_matrix(shape, scope, d)

    def convention_scalar(self, scope, d):
        r = self.r
        n = r.choice([self.N, self.M])
        a = self.atom(self.expr((n,), scope, d))
        choice = r.randrange(6)
        if choice == 0:
            b = self.expr((n,), scope, d)
            form = r.choice(["np.einsum('i,i->', {0}, {1})", "np.einsum('i,i', {0}, {1})",
                             "np.einsum({0}, [0], {1}, [0], [])", "np.einsum({0}, [0], {1}, [0])"])
            return fmt(form, a, b)
        if choice == 1:
            return fmt("{0}.std()", a, probe="_k_std({0})")
        if choice == 2:
            return fmt("np.linalg.norm({0}, 2)", a, probe="_k_norm({0})")
        if choice == 3:
            m = self.atom(self.expr((n, self.M), scope, d))
            return fmt(r.choice(["np.einsum('ij->', {0})", "np.einsum({0}, [0, 1], [])",
                                 "np.einsum('ij', {0}).sum()"]), m)
        return fmt(r.choice(["{0}.var()", "{0}.mean()", "np.sum({0}, None)", "{0}.sum(0)",
                             "np.mean({0}, 0)"]), a)

    def convention_vector(self, k, scope, d):
        r = self.r
        other = r.choice([self.N, self.M])
        choice = r.randrange(4)
        if choice == 0:
            axis = r.randrange(2)
            e = self.atom(self.expr((other, k) if axis == 0 else (k, other), scope, d))
            forms = [(f"np.sum({{0}}, {axis})", None), (f"{{0}}.sum({axis})", None),
                     (f"{{0}}.mean({axis})", None), (f"np.mean({{0}}, {axis})", None),
                     (f"np.var({{0}}, {axis})", None), (f"{{0}}.var(axis={axis})", None),
                     (f"{{0}}.std({axis})", f"_k_std({{0}}, {axis})"),
                     (f"{{0}}.max({axis})", f"_k_red('max', {{0}}, {axis})"),
                     (f"{{0}}.min(axis={axis})", f"_k_red('min', {{0}}, {axis})")]
            form, probe = r.choice(forms)
            return fmt(form, e, probe=probe)
        if choice == 1:
            m, v = self.expr((k, other), scope, d), self.expr((other,), scope, d)
            form = r.choice(["np.einsum('ij,j->i', {0}, {1})", "np.einsum('ij,j', {0}, {1})",
                             "np.einsum({0}, [0, 1], {1}, [1], [0])"])
            return fmt(form, m, v)
        if choice == 2:
            v, m = self.expr((other,), scope, d), self.expr((other, k), scope, d)
            form = r.choice(["np.einsum('j,ji->i', {0}, {1})",
                             "np.einsum({0}, [1], {1}, [1, 0], [0])"])
            return fmt(form, v, m)
        pairs = [(a, k // a) for a in (2, 3) if k % a == 0 and k // a > 1]
        if not pairs:
            return fmt(f"np.reshape({{0}}, {k})", self.atom(self.expr((k,), scope, d)))
        e = self.atom(self.expr(r.choice(pairs), scope, d))
        self.view_of(e, scope)
        form = r.choice([f"{{0}}.reshape(({k},))", f"np.reshape({{0}}, {k})",
                         f"{{0}}.reshape([-1])", f"np.reshape({{0}}, [{k}])"])
        return fmt(form, e, fresh=False)

    def convention_matrix(self, shape, scope, d):
        r = self.r
        R, C = shape
        choice = r.randrange(3)
        if choice == 0:
            e = self.atom(self.expr((C, R), scope, d))
            self.view_of(e, scope)
            form = r.choice(["{0}.transpose(1, 0)", "{0}.transpose((1, 0))",
                             "np.transpose({0}, (1, 0))", "np.transpose({0}, axes=[1, 0])",
                             "np.swapaxes({0}, 0, 1)", "np.moveaxis({0}, 1, 0)",
                             "np.einsum('ij->ji', {0})", "np.einsum({0}, [0, 1], [1, 0])"])
            return fmt(form, e, fresh=False)
        if choice == 1:
            e = self.atom(self.expr(r.choice([(C, R), (R * C,)]), scope, d))
            self.view_of(e, scope)
            form = r.choice([f"{{0}}.reshape(({R}, {C}))", f"{{0}}.reshape([{R}, {C}])",
                             f"{{0}}.reshape({R}, -1)", f"{{0}}.reshape(-1, {C})",
                             f"np.reshape({{0}}, [{R}, {C}])", f"np.reshape({{0}}, ({R}, -1))"])
            return fmt(form, e, fresh=False)
        if self.chance(0.5):
            k = r.choice([self.N, self.M])
            a, b = self.expr((R, k), scope, d), self.expr((k, C), scope, d)
            form = r.choice(["np.einsum('ij,jk->ik', {0}, {1})", "np.einsum('ij,jk', {0}, {1})",
                             "np.einsum({0}, [0, 1], {1}, [1, 2], [0, 2])"])
            return fmt(form, a, b)
        a, b = self.expr((R,), scope, d), self.expr((C,), scope, d)
        form = r.choice(["np.einsum('i,j->ij', {0}, {1})", "np.einsum({0}, [0], {1}, [1], [0, 1])"])
        return fmt(form, a, b)

    # --- degenerate sizes: one element, a length-1 axis, ddof, x ** 0 at 0, norm at 0 ---------
    def expr_degenerate_sizes(self, shape, scope, d):
        """The forms whose value is constant (the std of one element, norm(0 * x)) are smooth:
        the probe writes them as plain NumPy, not as a kink."""
        if shape == ():
            return self.degenerate_scalar(scope, d)
        if len(shape) == 1:
            return self.degenerate_vector(shape[0], scope, d)
        R, C = shape
        if self.chance(0.5):
            e = self.atom(self.expr(shape, scope, d))
            return fmt(self.r.choice(["np.std({0}[None], axis=0)", "np.mean({0}[None], axis=0)",
                                      "np.power(0.0 * {0}, 0)", "(0.0 * {0}) ** 0"]), e)
        return fmt("({0} + {1})", self.expr(shape, scope, d), self.degenerate_vector(C, scope, d))

    def degenerate_scalar(self, scope, d):
        r = self.r
        n = r.choice([self.N, self.M])
        e = self.atom(self.expr((n,), scope, d))
        a = r.randrange(n)
        if self.chance(0.15):
            return fmt("np.std({0}, ddof=1)", e, probe="_k_std({0}, None, 1)")
        form = r.choice([f"np.std({{0}}[{a}:{a + 1}])", f"np.var({{0}}[{a}:{a + 1}])",
                         f"np.mean({{0}}[{a}:{a + 1}])", "np.sum(np.std({0}[:, None], axis=1))",
                         "np.sum(np.var({0}[None, :], axis=0))",
                         "np.sum(np.mean({0}.reshape(1, -1), axis=0))",
                         "np.sum(np.std({0}.reshape(-1, 1), axis=1, keepdims=True))",
                         "np.var({0}, ddof=1)", "np.sum(np.power(0.0 * {0}, 0))",
                         "np.sum((0.0 * {0}) ** 0)", "np.sum(np.power({0} * 0.0, 0.0))",
                         "np.linalg.norm(0.0 * {0})", "np.linalg.norm({0} - {0})"])
        return fmt(form, e)

    def degenerate_vector(self, k, scope, d):
        r = self.r
        if self.chance(0.3):
            other = r.choice([self.N, self.M])
            m = self.expr((other, k), scope, d)
            if self.chance(0.5):
                return fmt("np.std({0}, axis=0, ddof=1)", m, probe="_k_std({0}, 0, 1)")
            return fmt(r.choice(["np.var({0}, axis=0, ddof=1)", "np.linalg.norm(0.0 * {0}, axis=0)"]),
                       m)
        e = self.atom(self.expr((k,), scope, d))
        form = r.choice(["np.std({0}[None, :], axis=0)", f"np.var({{0}}.reshape(1, {k}), axis=0)",
                         "np.mean({0}[:, None], axis=1)", "np.std({0}[:, None], axis=-1)",
                         "np.power(0.0 * {0}, 0)", "(0.0 * {0}) ** 0"])
        return fmt(form, e)

    # --- complex constants ---------------------------------------------------------------------
    def expr_complex_active(self, shape, scope, d):
        """A real value computed through complex intermediates from a value of the program."""
        e = self.atom(self.expr(shape, scope, d))
        c = self.complex_constant()
        form = self.r.choice([f"np.real({{0}} * {c})", f"np.imag({{0}} * {c})",
                              f"({{0}} * {c}).real", "np.real(np.exp(1j * {0}))",
                              f"np.abs({{0}} + {c})", f"np.real(np.conj({{0}} * {c}) * {{0}})"])
        return fmt(form, e, fresh=not form.endswith(".real"))

    def expr_complex_inactive(self, shape, scope, d):
        """A value of the program combined with a real number computed from complex constants."""
        e = self.expr(shape, scope, d)
        c1, c2 = self.complex_constant(), self.complex_constant()
        forms = [f"({{0}} * np.real({c1} * {c2}))", f"({{0}} * abs({c1}))",
                 f"({{0}} + np.imag(np.exp(1j * {self.r.uniform(0.1, 1.5):.2f})))",
                 f"({{0}} * np.abs(np.linspace(0.5, 1.5, 3) + {c1}).sum())"]
        if shape:
            forms.append(f"({{0}} * np.real(np.exp(1j * np.linspace(0.1, 0.9, {shape[-1]}))))")
        return fmt(self.r.choice(forms), e)

    def stmt_complex(self, indent, scope, depth, active=None):
        """A complex intermediate held in a name: `z = v * c` (active) or `z = c1 * c2`
        (inactive), then a real value read from it. `z` itself stays out of `scope`: no other
        statement compares or reduces it."""
        r = self.r
        if active is None:
            active = r.choice([a for f, a in (("complex_active", True),
                                              ("complex_inactive", False)) if self.allowed(f)])
        shape = self.shape()
        z, y = self.fresh_name("zc"), self.fresh_name("y")
        if active:
            self.note("complex_active")
            self.emit(indent, fmt(f"{z} = {{0}} * {self.complex_constant()}",
                                  self.atom(self.expr(shape, scope, 2))))
            read = r.choice([f"np.real({z} * np.conj({z}))", f"np.real({z}) + np.imag({z})",
                             f"np.abs({z} + {self.complex_constant()})", f"{z}.real * 2.0"])
            self.emit(indent, f"{y} = {read}")
        else:
            self.note("complex_inactive")
            forms = [f"{z} = {self.complex_constant()} * {self.complex_constant()}"]
            if shape:           # (a length-1 array would turn a scalar into an array)
                forms.append(f"{z} = np.exp(1j * np.linspace(0.1, 0.9, {shape[-1]}))")
            self.emit(indent, r.choice(forms))
            self.emit(indent, fmt(f"{y} = {{0}} * np.real({z}) + np.imag({z} * np.conj({z}))",
                                  self.atom(self.expr(shape, scope, 2))))
        scope.vars[y] = Var(y, shape, "fresh", frozenset([y]))

    def stmt_featured(self, feature, indent, scope, depth):
        """`q = <an expression of the opt-in form `feature`>`."""
        shape = self.shape()
        self.assign(indent, scope, self.fresh_name("q"), shape,
                    self.mechanism_expr(feature, shape, scope, 2))

    # --- factories: a closure returned by a function, capturing an active value ---------------
    def make_factory(self):
        """Emit `def make<k>(c)` returning a closure over `c` (or over a value computed from
        it); remember (name, shape of c, shape of the closure's argument and result)."""
        r = self.r
        name = f"make{len(self.factories)}"
        vshape = self.shape()
        cshape = r.choice([(), vshape])
        captured = "c"
        self.emit(0, f"def {name}(c):")
        if self.chance(0.4):
            captured = "s"
            self.emit(1, r.choice(["s = np.tanh(c)", "s = 0.5 * c + 0.25", "s = c * c"]))
        body = r.choice(["v * {c}", "np.sin(v + {c})", "np.tanh(v) * {c} + {c} ** 2",
                         "v / (1.0 + {c} ** 2)"]).format(c=captured)
        if self.chance(0.3):
            self.emit(1, f"return lambda v: {body}")
        else:
            self.emit(1, "def apply(v):")
            self.emit(2, f"return {body}")
            self.emit(1, "return apply")
        self.emit(0, "")
        self.emit(0, "")
        self.factories.append((name, cshape, vshape))

    def stmt_factory(self, indent, scope, depth):
        r = self.r
        name, cshape, vshape = r.choice(self.factories)
        g, y = self.fresh_name("g"), self.fresh_name("y")
        captured = self.expr(cshape, scope, 2)
        self.note("factory_closure")
        if self.chance(0.3):
            self.emit(indent, fmt(f"{y} = {name}({{0}})({{1}})", captured,
                                  self.expr(vshape, scope, 2)))
        else:
            self.emit(indent, fmt(f"{g} = {name}({{0}})", captured))
            if self.chance(0.3):
                self.emit(indent, fmt(f"{y} = {g}({{0}}) + {g}({{1}})",
                                      self.expr(vshape, scope, 2), self.expr(vshape, scope, 2)))
            else:
                self.emit(indent, fmt(f"{y} = {g}({{0}})", self.expr(vshape, scope, 2)))
        scope.vars[y] = Var(y, vshape, "fresh", frozenset([y]))

    # --- functools.wraps decorators that change the result ------------------------------------
    def make_decorator(self):
        """Emit a decorator `deco<k>` whose wrapper changes what the function returns."""
        name = f"deco{len(self.decorators)}"
        change = self.r.choice(["1.5 * out", "out + 0.25", "np.tanh(out)", "out * out"])
        self.emit(0, f"def {name}(fn):")
        self.emit(1, "@functools.wraps(fn)")
        self.emit(1, "def wrapper(*args, **kwargs):")
        self.emit(2, "out = fn(*args, **kwargs)")
        self.emit(2, f"return {change}")
        self.emit(1, "return wrapper")
        self.emit(0, "")
        self.emit(0, "")
        self.decorators.append(name)

    def decorator_for(self, returns, always=False):
        """A decorator for a function returning `returns` (one value only), or None."""
        if not self.allowed("wraps_decorator") or len(returns) != 1:
            return None
        if not always and not self.chance(0.5):
            return None
        if not self.decorators or self.chance(0.3):
            self.make_decorator()
        self.note("wraps_decorator")
        return self.r.choice(self.decorators)

    # --- one container passed to two helpers ---------------------------------------------------
    def make_container_helpers(self):
        """Emit `pair0(t)` and `pair1(t)`, both reading a container `t` of the same structure;
        remember (spec, shape returned, names)."""
        r = self.r
        kind = r.choice(["tuple", "list", "dict"])
        if kind == "dict":
            spec = ("dict", {k: self.param_spec(False) for k in r.sample(["w", "b", "scale"], 2)})
        else:
            spec = (kind, [self.param_spec(False), self.param_spec(False)])
        returns = (self.shape(),)
        names = ["pair0", "pair1"]
        for name in names:
            self.function(name, [("t", spec)], returns, True, r.randint(1, 3))
        self.shared = (spec, returns[0], names)

    def container_literal(self, spec, scope):
        """A new list/tuple/dict of expressions shaped like `spec`: (text E, element roots)."""
        shape = lambda s: s[1] if s[0] == "array" else ()        # noqa: E731
        if spec[0] == "dict":
            keys = list(spec[1])
            es = [self.expr(shape(spec[1][k]), scope, 1) for k in keys]
            text = "{{" + ", ".join(f"{k!r}: {{{j}}}" for j, k in enumerate(keys)) + "}}"
        else:
            es = [self.expr(shape(s), scope, 1) for s in spec[1]]
            text = ("[{0}, {1}]" if spec[0] == "list" else "({0}, {1})")
        roots = frozenset().union(*[self.roots_of(e, scope) or frozenset() for e in es])
        return fmt(text, *es), roots

    def stmt_shared_container(self, indent, scope, depth):
        r = self.r
        spec, rshape, (first, second) = self.shared
        self.note("shared_container")
        if ("xc" in scope.tuples or "xc" in scope.dicts) and self.chance(0.5):
            t, roots = "xc", frozenset(["xc"])
        else:
            t = self.fresh_name("t")
            literal, roots = self.container_literal(spec, scope)
            self.emit(indent, fmt(f"{t} = {{0}}", literal))
            entries = {k: (s[1] if s[0] == "array" else ()) for k, s in spec[1].items()} \
                if spec[0] == "dict" else [s[1] if s[0] == "array" else () for s in spec[1]]
            (scope.dicts if spec[0] == "dict" else scope.tuples)[t] = entries
            scope.croots[t] = roots
        c = self.fresh_name("c")
        if self.chance(0.5):
            self.emit(indent, f"{c} = {first}({t}) + {second}({t})")
            scope.vars[c] = Var(c, rshape, "fresh", frozenset([c]))
            return
        other = self.fresh_name("c")
        self.emit(indent, f"{c} = {first}({t})")
        self.emit(indent, f"{other} = {second}({t})")
        # a helper may return an entry of the container itself
        for name in (c, other):
            scope.vars[name] = Var(name, rshape, "view" if rshape else "fresh",
                                   roots | {name, t})

    # --- where the statement forms go -----------------------------------------------------------
    # --- a loop that rebinds its own target ---------------------------------------------------
    def stmt_loop_target_rebind(self, indent, scope, depth):
        r = self.r
        inner = scope.child(in_loop=True, looping=True)
        matrices = [v for v in scope.vars.values() if len(v.shape) == 2]
        if matrices and r.random() < 0.5:
            m = r.choice(matrices)
            row = self.fresh_name("row")
            self.emit(indent, f"for {row} in {m.name}:")
            self.iterating(inner, m.name)
            self.emit(indent + 1, fmt(f"{row} = " + r.choice(["{0} * {1}", "{0}[::-1]",
                                                              "np.sin({0})"]),
                                      lit(row), self.const()))
            inner.vars[row] = Var(row, m.shape[1:], "view", m.roots | {row})
        else:
            i, bound = self.fresh_name("i"), r.randint(2, 4)
            self.emit(indent, f"for {i} in range({bound}):")
            self.emit(indent + 1, r.choice([f"{i} = ({i} + {r.randint(1, bound - 1)}) % {bound}",
                                            f"{i} = {bound - 1} - {i}"]))
            inner.indices[i] = bound
        self.note("loop_target_rebind")
        self.block(indent + 1, inner, depth + 1, r.randint(1, 3))
        self.merge(scope, inner)

    # --- a name bound in a returning branch, and again after it ---------------------------------
    def stmt_early_return_rebind(self, indent, scope, depth):
        shape = self.shape()
        name = self.fresh_name("t")
        self.emit(indent, fmt("if {0}:", self.condition(scope)))
        inner = scope.child()
        self.assign(indent + 1, inner, name, shape, self.expr(shape, inner, 2))
        total = "np.sum({1})" if shape else "{1}"
        self.emit(indent + 1, fmt("return {0} + " + total, self.result(inner), lit(name)))
        self.assign(indent, scope, name, shape, self.expr(shape, scope, 2))
        self.note("early_return_rebind")

    def mechanism_statements(self, scope):
        """Statement kinds of the enabled mechanisms (added to the random choice)."""
        kinds = []
        kinds += ["loop_target_rebind"] * self.allowed("loop_target_rebind")
        if not scope.in_helper:
            kinds += ["early_return_rebind"] * self.allowed("early_return_rebind")
        if self.allowed("complex_active") or self.allowed("complex_inactive"):
            kinds.append("complex")
        if not scope.in_helper:
            kinds += ["factory"] * self.allowed("factory_closure")
            kinds += ["shared_container"] * self.allowed("shared_container")
        return kinds

    def mechanism_definitions(self):
        """Module-level functions the enabled mechanisms call: factories, container helpers."""
        if self.allowed("factory_closure"):
            for _ in range(self.r.randint(1, 2)):
                self.make_factory()
        if self.allowed("shared_container"):
            self.make_container_helpers()

    def forced_statements(self):
        """One statement of each enabled mechanism for f's top-level block, so that every
        program of a run with `--<mechanism>` has it at least once."""
        out = []
        for feature in EXPRESSION_MECHANISMS:
            if not self.allowed(feature):
                continue
            if feature.startswith("complex"):
                out.append(functools.partial(self.stmt_complex,
                                             active=feature == "complex_active"))
            else:
                out.append(functools.partial(self.stmt_featured, feature))
        if self.allowed("factory_closure"):
            out.append(self.stmt_factory)
        if self.allowed("shared_container"):
            out.append(self.stmt_shared_container)
        if self.allowed("loop_target_rebind"):
            out.append(self.stmt_loop_target_rebind)
        if self.allowed("early_return_rebind"):
            out.append(self.stmt_early_return_rebind)
        return out


class Generator(Mechanisms):
    def __init__(self, seed, enable=frozenset()):
        self.r = random.Random(seed)
        self.seed = seed
        self.enable = set(enable)
        self.features = set()
        self.N = self.r.choice([2, 3, 4])
        self.M = self.r.choice([2, 3])
        self.counter = 0
        self.viewed = set()          # roots of arrays read through a view so far
        self.helpers = []
        self.lines = []
        self.budget = 0
        self.rare = {f for f in sorted(RARE_FEATURES) if self.chance(0.25)}
        self.factories = []          # (name, shape captured, shape of argument and result)
        self.decorators = []         # names of the decorators defined so far
        self.shared = None           # (container spec, shape returned, the two helpers' names)

    # --- names and shapes ---------------------------------------------------------------------
    def fresh_name(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    def shape(self, allow_scalar=True):
        N, M = self.N, self.M
        choices = [(N,), (M,), (M, N), (N,), (N, M)]
        if allow_scalar:
            choices += [(), ()]
        return self.r.choice(choices)

    def chance(self, p):
        return self.r.random() < p

    def const(self, lo=-1.5, hi=1.5):
        return lit(f"{self.r.uniform(lo, hi):.3f}")

    def note(self, feature):
        self.features.add(feature)

    def allowed(self, feature):
        if feature in KNOWN_BUG_FEATURES or feature in OPT_IN_FEATURES:
            return feature in self.enable
        return feature not in RARE_FEATURES or feature in self.rare or feature in self.enable

    # --- leaves -------------------------------------------------------------------------------
    def leaves(self, shape, scope):
        """Candidate leaf expressions of exactly `shape`: names, elements, slices, rows."""
        out = []
        r = self.r
        for v in scope.vars.values():
            if v.shape == shape:
                out.append(lit(v.name, fresh=(shape == ())))
            vs = v.shape
            if len(vs) == 1:
                L = vs[0]
                if shape == ():
                    out.append(lit(f"{v.name}[{r.randrange(L)}]"))
                    out.append(lit(f"{v.name}[-1]"))
                    for i, bound in scope.indices.items():
                        if bound <= L:
                            out.append(lit(f"{v.name}[{i}]"))
                elif len(shape) == 1:
                    k = shape[0]
                    if k == L:
                        out.append(lit(f"{v.name}[::-1]", fresh=False))
                        perm = list(range(L))
                        r.shuffle(perm)
                        out.append(lit(f"{v.name}[{perm}]", fresh=False))
                    elif k < L:
                        a = r.randrange(L - k + 1)
                        out.append(lit(f"{v.name}[{a}:{a + k}]", fresh=False))
            elif len(vs) == 2:
                R, C = vs
                if shape == ():
                    out.append(lit(f"{v.name}[{r.randrange(R)}, {r.randrange(C)}]"))
                    for i, bound in scope.indices.items():
                        if bound <= R:
                            out.append(lit(f"{v.name}[{i}, {r.randrange(C)}]"))
                elif shape == (C,):
                    out.append(lit(f"{v.name}[{r.randrange(R)}]", fresh=False))
                    out.append(lit(f"{v.name}[-1, :]", fresh=False))
                    for i, bound in scope.indices.items():
                        if bound <= R:
                            out.append(lit(f"{v.name}[{i}]", fresh=False))
                elif shape == (R,):
                    out.append(lit(f"{v.name}[:, {r.randrange(C)}]", fresh=False))
                elif shape == (R, C):
                    out.append(lit(f"{v.name}[::-1]", fresh=False))
                    out.append(lit(f"{v.name}[:, ::-1]", fresh=False))
                elif len(shape) == 1 and shape[0] < C:
                    out.append(lit(f"{v.name}[{r.randrange(R)}, :{shape[0]}]", fresh=False))
        for t, shapes in scope.tuples.items():
            for j, s in enumerate(shapes):
                if s == shape:
                    out.append(lit(f"{t}[{j}]", fresh=(shape == ())))
        if not scope.looping or self.allowed("dict_read_in_loop"):
            for d, entries in scope.dicts.items():
                for key, s in entries.items():
                    if s == shape:
                        out.append(lit(f"{d}[{key!r}]", fresh=(shape == ())))
                        if scope.looping:
                            self.note("dict_read_in_loop")
        return out

    def leaf(self, shape, scope):
        options = self.leaves(shape, scope)
        # prefer plain names: they make data flow between statements
        names = [o for o in options if o.c.isidentifier()]
        if names and self.chance(0.5):
            return self.r.choice(names)
        if options:
            choice = self.r.choice(options)
            if not choice.fresh and not choice.c.isidentifier():
                base = re.match(r"\w+", choice.c).group(0)
                v = scope.vars.get(base)
                self.viewed |= v.roots if v is not None else {base}
            return choice
        return self.fallback(shape, scope)

    def fallback(self, shape, scope):
        """An expression of `shape` built from any variable (every shape reduces to a scalar)."""
        pool = list(scope.vars.values())
        if shape == ():
            if not pool:
                return self.const()
            v = self.r.choice(pool)
            return lit(f"np.sum({v.name})") if v.shape else lit(v.name)
        s = self.fallback((), scope)
        size = 1
        for n in shape:
            size *= n
        spread = f"np.linspace(0.5, 1.5, {size})"
        if len(shape) > 1:
            spread += f".reshape{shape}"
        return fmt(f"({spread} * {{0}})", s)

    # --- expressions --------------------------------------------------------------------------
    def expr(self, shape, scope, depth=2):
        if depth <= 0 or self.chance(0.2):
            return self.leaf(shape, scope)
        kinds = ["unary", "binary", "binary", "reduce", "leaf", "broadcast"]
        if len(shape) == 1:
            kinds += ["matmul", "reshape", "reduce"]
        if len(shape) == 2:
            kinds += ["matmul", "transpose", "outer", "reshape"]
        if shape == ():
            kinds += ["dot", "reduce", "reduce"]
        if self.helpers:
            kinds.append("call")
        if self.chance(0.15):
            kinds.append("ternary")
        if shape and self.chance(0.15):      # (a 0-d np.where result would be mutable)
            kinds.append("where")
        kinds += [m for m in EXPRESSION_MECHANISMS if self.allowed(m)]
        kind = self.r.choice(kinds)
        d = depth - 1
        r = self.r
        if kind == "leaf":
            return self.leaf(shape, scope)
        if kind in EXPRESSION_MECHANISMS:
            return self.mechanism_expr(kind, shape, scope, d)
        if kind == "unary":
            clean, probe = r.choice(UNARY)
            return fmt(clean, self.expr(shape, scope, d), probe=probe)
        if kind == "binary":
            clean, probe = r.choice(BINARY)
            a = self.expr(shape, scope, d)
            b = self.expr(self.broadcast_shape(shape), scope, d)
            for _ in range(3):
                if b.c != a.c:
                    break
                b = self.expr(self.broadcast_shape(shape), scope, d)     # no x - x, max(x, x)
            if self.chance(0.5) and "/" not in clean and "**" not in clean and \
                    "hypot" not in clean and "arctan2" not in clean and "power" not in clean:
                a, b = b, a
            return fmt(clean, a, b, probe=probe)
        if kind == "broadcast":
            return self.broadcast_expr(shape, scope, d)
        if kind == "reduce":
            return self.reduce_to(shape, scope, d)
        if kind == "dot":
            n = r.choice([self.N, self.M])
            a, b = self.expr((n,), scope, d), self.expr((n,), scope, d)
            form = r.choice(["np.dot({0}, {1})", "({0} @ {1})", "{0}.dot({1})"])
            if form.startswith("{0}."):
                a = self.atom(a)
            return fmt(form, a, b)
        if kind == "matmul":
            return self.matmul_to(shape, scope, d)
        if kind == "transpose":
            e = self.expr(shape[::-1], scope, d)
            if e.c in scope.vars:
                self.viewed |= scope.vars[e.c].roots
            form = r.choice(["{0}.T", "np.transpose({0})", "{0}.transpose()"])
            return fmt(form, self.atom(e), fresh=False)
        if kind == "outer":
            a, b = self.expr((shape[0],), scope, d), self.expr((shape[1],), scope, d)
            form = r.choice(["np.outer({0}, {1})", "({0}[:, None] * {1})",
                             "({0}[:, None] * {1}[None, :])"])
            return fmt(form, self.atom(a), self.atom(b))
        if kind == "reshape":
            return self.reshape_to(shape, scope, d)
        if kind == "call":
            return self.call_expr(shape, scope, d)
        if kind == "where":
            test = self.expr(self.broadcast_shape(shape), scope, d)
            op = r.choice(COMPARISONS)
            c = self.const(-1.0, 1.0)
            self.note("where")
            return fmt(f"np.where({{0}} {op} {{1}}, {{2}}, {{3}})", test, c,
                       self.expr(shape, scope, d), self.expr(self.broadcast_shape(shape), scope, d),
                       probe=f"_k_where({{0}}, '{op}', {{1}}, {{2}}, {{3}})")
        if kind == "ternary":
            return fmt("({0} if {1} else {2})", self.expr(shape, scope, d), self.condition(scope),
                       self.expr(shape, scope, d), fresh=False)
        raise AssertionError(kind)

    def atom(self, e):
        """`e` safe to follow with `.attr` or `[...]`."""
        if e.c.replace("_", "").isalnum():
            return e
        return E(f"({e.c})", f"({e.p})", e.fresh)

    def broadcast_shape(self, shape):
        """A shape that broadcasts against `shape` (the result keeps `shape`)."""
        options = [shape, shape, ()]
        if len(shape) == 2:
            options += [(shape[1],)]
        return self.r.choice(options)

    def broadcast_expr(self, shape, scope, d):
        r = self.r
        if len(shape) == 2:
            R, C = shape
            choice = r.randrange(4)
            if choice == 0:
                col = self.expr((R,), scope, d)
                return fmt("({0} * {1}[:, None])", self.expr(shape, scope, d), self.atom(col))
            if choice == 1:
                red = self.keepdims_reduce((R, C), 1, scope, d)
                return fmt("({0} - {1})", self.expr(shape, scope, d), red)
            if choice == 2:
                red = self.keepdims_reduce((R, C), 0, scope, d)
                return fmt("({0} / (1.0 + {1} ** 2))", self.expr(shape, scope, d), red)
            row = self.expr((C,), scope, d)
            return fmt("({0} + {1})", row, self.expr(shape, scope, d))
        return fmt("({0} * {1})", self.expr(shape, scope, d), self.expr((), scope, d))

    def keepdims_reduce(self, shape, axis, scope, d):
        e = self.expr(shape, scope, d)
        name = self.r.choice(["sum", "mean", "max"])
        if name == "max":
            return fmt(f"np.max({{0}}, axis={axis}, keepdims=True)", e,
                       probe=f"_k_red('max', {{0}}, {axis}, True)")
        return fmt(f"np.{name}({{0}}, axis={axis}, keepdims=True)", e)

    def reduce_to(self, shape, scope, d):
        r = self.r
        N, M = self.N, self.M
        if shape == ():
            src = r.choice([(N,), (M,), (M, N), (N, M)])
            e = self.expr(src, scope, d)
            name = r.choice(["sum", "sum", "mean", "max", "min", "prod", "var", "std", "norm",
                             "msum", "mmean", "mmax"])
            if name == "prod":
                return fmt("np.prod(1.0 + 0.2 * np.tanh({0}))", e)
            if name in ("max", "min"):
                return fmt(f"np.{name}({{0}})", e, probe=f"_k_red('{name}', {{0}})")
            if name == "mmax":
                return fmt("{0}.max()", self.atom(e), probe="_k_red('max', {0})")
            if name == "std":
                return fmt("np.std({0})", e, probe="_k_std({0})")
            if name == "norm":
                return fmt("np.linalg.norm({0})", e, probe="_k_norm({0})")
            if name in ("msum", "mmean"):
                return fmt(f"{{0}}.{name[1:]}()", self.atom(e))
            return fmt(f"np.{name}({{0}})", e)
        if len(shape) == 1:
            k = shape[0]
            other = r.choice([N, M])
            axis = r.randrange(2)
            src = (other, k) if axis == 0 else (k, other)
            e = self.expr(src, scope, d)
            name = r.choice(["sum", "mean", "max", "min", "var", "msum"])
            if name in ("max", "min"):
                return fmt(f"np.{name}({{0}}, axis={axis})", e,
                           probe=f"_k_red('{name}', {{0}}, {axis})")
            if name == "msum":
                return fmt(f"{{0}}.sum(axis={axis})", self.atom(e))
            return fmt(f"np.{name}({{0}}, axis={axis})", e)
        # 2-D: reduce a keepdims result and broadcast back
        return fmt("({0} * {1})", self.expr(shape, scope, d),
                   self.keepdims_reduce(shape, r.randrange(2), scope, d))

    def matmul_to(self, shape, scope, d):
        r = self.r
        k = r.choice([self.N, self.M])
        form = r.choice(["({0} @ {1})", "np.dot({0}, {1})", "np.matmul({0}, {1})"])
        if len(shape) == 1:
            if self.chance(0.5):
                return fmt(form, self.expr((shape[0], k), scope, d), self.expr((k,), scope, d))
            return fmt(form, self.expr((k,), scope, d), self.expr((k, shape[0]), scope, d))
        return fmt(form, self.expr((shape[0], k), scope, d), self.expr((k, shape[1]), scope, d))

    def reshape_to(self, shape, scope, d):
        r = self.r
        if len(shape) == 1:
            k = shape[0]
            pairs = [(a, k // a) for a in (2, 3) if k % a == 0 and k // a > 1]
            if not pairs:
                return self.expr(shape, scope, d)
            src = r.choice(pairs)
            e = self.atom(self.expr(src, scope, d))
            if e.c in scope.vars:
                self.viewed |= scope.vars[e.c].roots
            form = r.choice(["{0}.reshape(-1)", "np.reshape({0}, (%d,))" % k, "{0}.ravel()",
                             "np.ravel({0})", "{0}.reshape(%d)" % k])
            return fmt(form, e, fresh=False)
        R, C = shape
        src = r.choice([(C, R), (R * C,)])
        e = self.atom(self.expr(src, scope, d))
        if e.c in scope.vars:
            self.viewed |= scope.vars[e.c].roots
        form = r.choice(["{0}.reshape(%d, %d)" % (R, C), "np.reshape({0}, (%d, %d))" % (R, C),
                         "{0}.reshape((%d, -1))" % R])
        return fmt(form, e, fresh=False)

    def call_expr(self, shape, scope, d):
        helpers = [h for h in self.helpers if len(h.returns) == 1 and h.returns[0] == shape]
        if not helpers:
            return self.expr(shape, scope, d)
        return self.call(self.r.choice(helpers), scope, d)

    def call(self, helper, scope, d=1):
        args = []
        parts = []
        use_keywords = self.chance(0.3)
        for j, (name, shape) in enumerate(helper.params):
            if name in helper.defaults and self.chance(0.5):
                continue            # use the default
            e = self.expr(shape, scope, min(d, 1))
            if use_keywords and j > 0:
                parts.append(f"{name}={{{len(args)}}}")
            else:
                parts.append(f"{{{len(args)}}}")
            args.append(e)
            if use_keywords and j > 0:
                self.note("keyword_call")
        return fmt(f"{helper.name}({', '.join(parts)})", *args)

    def condition(self, scope, depth=0):
        """A data-dependent boolean (instrumented in the probe)."""
        r = self.r
        if depth < 1 and self.chance(0.15):
            op = r.choice(["and", "or"])
            self.note("bool_op")
            return fmt(f"({{0}} {op} {{1}})", self.condition(scope, depth + 1),
                       self.condition(scope, depth + 1))
        if depth < 1 and self.chance(0.07):
            self.note("not")
            return fmt("(not {0})", self.condition(scope, depth + 1))
        lhs = self.expr((), scope, 1)
        op = r.choice(COMPARISONS)
        rhs = self.expr((), scope, 0) if self.chance(0.2) else self.const(-1.0, 1.0)
        if rhs.c == lhs.c:
            rhs = self.const(-1.0, 1.0)
        return fmt(f"{{0}} {op} {{1}}", lhs, rhs, probe=f"_k_cmp({{0}}, '{op}', {{1}})")

    # --- statements ---------------------------------------------------------------------------
    def emit(self, indent, line):
        if isinstance(line, str):
            line = lit(line)
        self.lines.append((indent, line))

    def may_inplace(self, var, scope):
        """Is an in-place write into `var` safe (no other live name shares its memory)?"""
        if var.kind == "view" or (var.kind == "param" and scope.in_helper):
            return False
        others = [v for v in scope.vars.values() if v.name != var.name and v.roots & var.roots]
        containers = [c for c, roots in scope.croots.items() if roots & var.roots]
        return not others and not containers

    def inplace_candidates(self, scope, with_shape=True):
        out = []
        for v in scope.vars.values():
            if not v.shape:
                continue
            if v.roots & self.viewed and not self.allowed("write_after_view_read"):
                continue
            if self.may_inplace(v, scope):
                out.append(v)
            elif self.allowed("alias_inplace") and v.kind == "view":
                out.append(v)
        return out

    def roots_of(self, e, scope):
        if e.fresh:
            return None
        roots = set()
        for v in scope.vars.values():
            if _mentions(e.c, v.name):
                roots |= v.roots
        for t in list(scope.tuples) + list(scope.dicts):
            if _mentions(e.c, t):
                roots.add(t)
        return frozenset(roots)

    def assign(self, indent, scope, target, shape, e):
        """`target = e`, updating what `scope` knows about `target`."""
        old = scope.vars.get(target)
        roots = self.roots_of(e, scope) if shape else None     # scalars are never shared
        if old is not None and old.kind != "view" and roots is not None:
            e = fmt(self.r.choice(["np.copy({0})", "{0}.copy()", "np.array({0})"]), self.atom(e))
            roots = None
        self.emit(indent, fmt(f"{target} = {{0}}", e))
        if old is None:
            if roots is None:
                scope.vars[target] = Var(target, shape, "fresh", frozenset([target]))
            else:
                scope.vars[target] = Var(target, shape, "view", roots | {target})
        elif old.kind == "view" and roots is not None:
            scope.vars[target] = Var(target, shape, "view", old.roots | roots)

    def statement(self, indent, scope, depth):
        r = self.r
        kinds = ["assign"] * 4 + ["reassign"] * 3 + ["aug"] * 2 + ["alloc", "setitem", "setitem",
                                                                    "tuple"]
        if depth < 3:
            kinds += ["if"] * 2 + ["for"] * 2 + ["while", "grow"]
        if self.helpers:
            kinds += ["call"] * 2
        if scope.in_loop:
            kinds += ["jump"]
        if depth > 0:
            kinds += ["return"]
        if not scope.in_helper:
            kinds += ["dict"]
        kinds += self.mechanism_statements(scope)
        kind = r.choice(kinds)
        getattr(self, f"stmt_{kind}")(indent, scope, depth)

    def block(self, indent, scope, depth, size, forced=()):
        """`size` random statements; each of `forced` (statement makers) at a random place."""
        start = len(self.lines)
        places = [self.r.randrange(size) for _ in forced]
        for k in range(size):
            for make, place in zip(forced, places):
                if place == k:
                    make(indent, scope, depth)
            self.statement(indent, scope, depth)
            if self.lines and self.lines[-1][1].c.startswith(("return", "break", "continue")) and \
                    self.lines[-1][0] == indent:
                break
        if len(self.lines) == start:
            self.emit(indent, "pass")

    def stmt_assign(self, indent, scope, depth):
        shape = self.shape()
        name = self.fresh_name(self.r.choice(["y", "z", "u", "h", "s" if not shape else "r"]))
        self.assign(indent, scope, name, shape, self.expr(shape, scope, self.r.choice([1, 2, 3])))

    def stmt_reassign(self, indent, scope, depth):
        pool = [v for v in scope.vars.values() if v.name not in scope.frozen]
        if not pool:
            return self.stmt_assign(indent, scope, depth)
        v = self.r.choice(pool)
        e = self.expr(v.shape, scope, 2)
        for _ in range(3):
            if e.c != v.name or self.allowed("self_assign"):
                break
            e = self.expr(v.shape, scope, 2)
        if e.c == v.name:
            if not self.allowed("self_assign"):
                return self.stmt_assign(indent, scope, depth)
            self.note("self_assign")
        if scope.in_loop and self.chance(0.6):
            # keep loop-carried values bounded
            e = fmt(self.r.choice(["np.tanh({0})", "0.5 * {1} + 0.5 * np.sin({0})",
                                   "{1} * 0.9 + 0.1 * {0}"]), e, lit(v.name))
        if v.kind == "param":
            # rebinding a parameter name: it becomes a local owned here
            self.emit(indent, fmt(f"{v.name} = {{0}}", e if e.fresh else fmt("np.copy({0})", e)))
            # s2s_ad refuses in-place writes into a rebound parameter: only now and then
            fresh = depth == 0 and self.chance(0.2)
            scope.vars[v.name] = Var(v.name, v.shape, "fresh" if fresh else "view",
                                     frozenset([v.name]) | (v.roots if depth else frozenset()))
            return
        self.assign(indent, scope, v.name, v.shape, e)

    def stmt_aug(self, indent, scope, depth):
        r = self.r
        scalars = [v for v in scope.vars.values() if v.shape == ()]
        arrays = self.inplace_candidates(scope)
        pool = scalars + arrays
        if not pool:
            return self.stmt_assign(indent, scope, depth)
        v = r.choice(pool)
        if v.shape and not self.may_inplace(v, scope):
            self.note("alias_inplace")
        if v.shape and v.roots & self.viewed:
            self.note("write_after_view_read")
        op = r.choice(["+=", "-=", "*=", "/="])
        e = self.expr(self.broadcast_shape(v.shape) if v.shape else (),
                      self.without(scope, v) if v.shape else scope, 2)
        if op == "*=":
            e = fmt("(0.5 + 0.5 * np.tanh({0}))", e)
        elif op == "/=":
            e = fmt("(1.0 + {0} ** 2)", e)
        self.note("augassign")
        self.emit(indent, fmt(f"{v.name} {op} {{0}}", e))

    def without(self, scope, var):
        """Mostly, a scope in which the right-hand side of an in-place update of `var` cannot
        read `var` itself: s2s_ad refuses most such updates (`w[1] *= f(w[0])`, a possible
        view read before an in-place write), and refusals teach the fuzzer nothing."""
        if self.chance(0.2):
            return scope
        inner = scope.child()
        inner.vars = {n: v for n, v in scope.vars.items() if n != var.name}
        return inner

    def stmt_alloc(self, indent, scope, depth):
        r = self.r
        shape = self.shape(allow_scalar=False)
        name = self.fresh_name("w")
        dims = shape[0] if len(shape) == 1 else shape
        same = [v for v in scope.vars.values() if v.shape == shape]
        forms = [f"np.zeros({dims})", f"np.ones({dims})"]
        if same:
            v = r.choice(same)
            forms += [f"np.zeros_like({v.name})", f"{v.name}.copy()", f"np.copy({v.name})",
                      f"np.array({v.name})", f"np.ones_like({v.name})"]
        self.emit(indent, f"{name} = {r.choice(forms)}")
        scope.vars[name] = Var(name, shape, "fresh", frozenset([name]))
        self.note("alloc")
        # follow with a write so the array is not just zeros
        self.stmt_setitem(indent, scope, depth, target=scope.vars[name])

    def write_target(self, v, scope):
        """(subscript text, shape of the written part) for a write into `v`."""
        r = self.r
        if len(v.shape) == 1:
            L = v.shape[0]
            options = [(f"[{r.randrange(L)}]", ()), ("[-1]", ())]
            options += [(f"[{i}]", ()) for i, b in scope.indices.items() if b <= L]
            if L > 1:
                a = r.randrange(1, L)
                options += [(f"[:{a}]", (a,)), (f"[{a - 1}:{L}]", (L - a + 1,))]
                if self.allowed("slice_from"):
                    options += [(f"[{a}:]", (L - a,))]
            return r.choice(options)
        R, C = v.shape
        options = [(f"[{r.randrange(R)}]", (C,)), (f"[:, {r.randrange(C)}]", (R,)),
                   (f"[{r.randrange(R)}, {r.randrange(C)}]", ()),
                   (f"[{r.randrange(R)}, :]", (C,))]
        options += [(f"[{i}]", (C,)) for i, b in scope.indices.items() if b <= R]
        options += [(f"[{i}, {r.randrange(C)}]", ()) for i, b in scope.indices.items() if b <= R]
        return r.choice(options)

    def stmt_setitem(self, indent, scope, depth, target=None):
        r = self.r
        pool = [target] if target else self.inplace_candidates(scope)
        if not pool:
            return self.stmt_alloc(indent, scope, depth) if depth < 3 and not target else \
                self.stmt_assign(indent, scope, depth)
        v = r.choice(pool)
        if not self.may_inplace(v, scope):
            self.note("alias_inplace")
        if v.roots & self.viewed:
            self.note("write_after_view_read")
        if v.kind == "param":
            self.note("write_argument")
        index, shape = self.write_target(v, scope)
        op = r.choice(["=", "=", "+=", "-=", "*="])
        value_shape = shape if (not shape or self.chance(0.7)) else ()
        rhs_scope = self.without(scope, v)
        e = self.expr(value_shape, rhs_scope, 2)
        for _ in range(3):
            if e.c != v.name or self.allowed("setitem_self"):
                break
            e = self.expr(value_shape, rhs_scope, 2)
        if e.c == v.name:
            if self.allowed("setitem_self"):
                self.note("setitem_self")
            else:
                e = fmt("np.sin({0})", e)
        if op == "*=":
            e = fmt("(0.5 + 0.5 * np.tanh({0}))", e)
        self.note("setitem" if op == "=" else "setitem_aug")
        self.emit(indent, fmt(f"{v.name}{index} {op} {{0}}", e))

    def stmt_tuple(self, indent, scope, depth):
        r = self.r
        choice = r.randrange(4)
        if choice == 0 and len([v for v in scope.vars.values()]) >= 2:
            # swap two names of the same shape
            by_shape = {}
            for v in scope.vars.values():
                if v.kind != "param" and v.name not in scope.frozen:
                    by_shape.setdefault(v.shape, []).append(v)
            pairs = [vs for vs in by_shape.values() if len(vs) >= 2]
            if pairs:
                a, b = r.sample(r.choice(pairs), 2)
                self.note("tuple_swap")
                self.emit(indent, f"{a.name}, {b.name} = {b.name}, {a.name}")
                # conservatively, both may now alias what either did
                kind = "view" if "view" in (a.kind, b.kind) else "fresh"
                roots = a.roots | b.roots
                scope.vars[a.name] = Var(a.name, a.shape, kind, roots)
                scope.vars[b.name] = Var(b.name, b.shape, kind, roots)
                return
        if choice == 1:
            # build a tuple local and read it back
            shapes = [self.shape(), self.shape()]
            name = self.fresh_name("t")
            es = [self.expr(s, scope, 1) for s in shapes]
            self.note("tuple_pack")
            self.emit(indent, fmt(f"{name} = ({{0}}, {{1}})", *es))
            scope.tuples[name] = shapes
            scope.croots[name] = frozenset().union(*[self.roots_of(e, scope) or frozenset()
                                                     for e in es])
            return
        if scope.tuples and choice == 2:
            t = r.choice(list(scope.tuples))
            shapes = scope.tuples[t]
            names = [self.fresh_name("e") for _ in shapes]
            self.note("tuple_unpack")
            self.emit(indent, f"{', '.join(names)} = {t}")
            for n, s in zip(names, shapes):
                scope.vars[n] = Var(n, s, "view" if s else "fresh",
                                    frozenset([n, t]) if s else frozenset([n]))
            return
        # multiple assignment from expressions
        shapes = [self.shape(), self.shape()]
        names = [self.fresh_name("m") for _ in shapes]
        es = [self.expr(s, scope, 1) for s in shapes]
        self.note("tuple_assign")
        self.emit(indent, fmt(f"{names[0]}, {names[1]} = {{0}}, {{1}}", *es))
        for n, s, e in zip(names, shapes, es):
            roots = self.roots_of(e, scope)
            # s2s_ad refuses in-place writes into names bound by tuple assignment; write into
            # them only now and then
            fresh = roots is None and (not s or self.chance(0.2))
            scope.vars[n] = Var(n, s, "fresh" if fresh else "view",
                                frozenset([n]) | (roots or frozenset()))

    def stmt_dict(self, indent, scope, depth):
        shapes = {k: self.shape() for k in self.r.sample(["a", "b", "c", "w"], 2)}
        name = self.fresh_name("dd")
        es = [self.expr(s, scope, 1) for s in shapes.values()]
        parts = ", ".join(f"{k!r}: {{{j}}}" for j, k in enumerate(shapes))
        self.note("dict_local")
        self.emit(indent, fmt(f"{name} = {{{{{parts}}}}}", *es))
        scope.dicts[name] = shapes
        scope.croots[name] = frozenset().union(*[self.roots_of(e, scope) or frozenset()
                                                 for e in es])

    def stmt_grow(self, indent, scope, depth):
        """A list that grows in a loop, each entry made from the last (`hs[-1]`, the RNN
        hidden-state list), then read back by position or stacked."""
        r = self.r
        shape = self.shape()
        hs, i, target = self.fresh_name("hs"), self.fresh_name("i"), self.fresh_name("g")
        first = self.expr(shape, scope, 1)
        self.emit(indent, fmt(f"{hs} = [{{0}}]", first))
        self.emit(indent, f"for {i} in range({r.randint(1, 3)}):")
        step = r.choice([f"np.tanh(0.5 * {hs}[-1] + {{0}})",
                         f"0.9 * np.sin({hs}[-1]) + 0.1 * {{0}}",
                         f"{hs}[-1] * 0.5 + {hs}[0] * np.tanh({{0}}) * 0.25"])
        self.emit(indent + 1, fmt(f"{hs}.append({step})",
                                  self.expr(self.broadcast_shape(shape), scope, 1)))
        read = r.choice([f"{hs}[-1]", f"{hs}[-2]", f"{hs}[len({hs}) // 2]",
                         f"np.stack({hs}).sum(axis=0)"])
        self.emit(indent, f"{target} = {read}")
        # `hs[0]` may be the first expression itself (a parameter, a view)
        roots = self.roots_of(first, scope) or frozenset()
        scope.vars[target] = Var(target, shape, "view" if shape else "fresh", roots | {target})
        self.note("list_grow")

    def stmt_call(self, indent, scope, depth):
        helper = self.r.choice(self.helpers)
        call = self.call(helper, scope)
        self.note("call")
        if len(helper.returns) == 1:
            name = self.fresh_name("c")
            self.emit(indent, fmt(f"{name} = {{0}}", call))
            # a helper may return one of its arguments: treat the result as a possible alias
            roots = frozenset().union(*[v.roots for v in scope.vars.values()
                                        if _mentions(call.c, v.name)] or [frozenset()])
            scope.vars[name] = Var(name, helper.returns[0], "view" if helper.returns[0] else
                                   "fresh", roots | {name})
            return
        names = [self.fresh_name("c") for _ in helper.returns]
        self.note("tuple_return")
        self.emit(indent, fmt(f"{', '.join(names)} = {{0}}", call))
        roots = frozenset().union(*[v.roots for v in scope.vars.values()
                                    if _mentions(call.c, v.name)] or [frozenset()])
        for n, s in zip(names, helper.returns):
            scope.vars[n] = Var(n, s, "view" if s else "fresh", roots | {n})

    def stmt_if(self, indent, scope, depth):
        r = self.r
        n_elif = r.choice([0, 0, 0, 1, 2])
        has_else = n_elif > 0 or self.chance(0.6)
        # sometimes a new name defined on every branch, used after the `if`
        join = None
        if has_else and self.chance(0.4):
            join = (self.fresh_name("j"), self.shape())
            self.note("join_name")
        self.note("elif" if n_elif else ("if_else" if has_else else "if"))
        branches = ["if"] + ["elif"] * n_elif + (["else"] if has_else else [])
        for branch in branches:
            if branch == "else":
                self.emit(indent, "else:")
            else:
                self.emit(indent, fmt(f"{branch} {{0}}:", self.condition(scope)))
            inner = scope.child()
            self.block(indent + 1, inner, depth + 1, r.randint(1, 3))
            if join:
                self.emit(indent + 1, fmt(f"{join[0]} = {{0}}", self.expr(join[1], inner, 2)))
            self.merge(scope, inner)
        if join:
            scope.vars[join[0]] = Var(join[0], join[1], "view" if join[1] else "fresh",
                                      frozenset([join[0]]) | frozenset(
                                          n for v in scope.vars.values() for n in v.roots))

    def merge(self, scope, inner):
        """After a block: names the block rebound may alias more; its new names are dropped."""
        for name, v in list(scope.vars.items()):
            w = inner.vars.get(name)
            if w is not None and (w.roots != v.roots or w.kind != v.kind):
                kind = "view" if "view" in (v.kind, w.kind) else v.kind
                if v.kind == "param" and w.kind != "param":
                    kind = "view"
                scope.vars[name] = Var(name, v.shape, kind, v.roots | w.roots)

    def stmt_for(self, indent, scope, depth):
        r = self.r
        i = self.fresh_name("i")
        choice = r.randrange(7)
        inner = scope.child(in_loop=True, looping=True)
        bound = r.randint(1, 4)
        if choice == 0 and scope.ints:
            n = r.choice(list(scope.ints))
            self.emit(indent, f"for {i} in range({n}):")
            inner.indices[i] = scope.ints[n]
            self.note("for_range_param")
        elif choice == 1:
            self.emit(indent, f"for {i} in range(1, {bound}):")
            inner.indices[i] = bound
            self.note("for_range_start")
        elif choice == 2:
            self.emit(indent, f"for {i} in reversed(range({bound})):")
            inner.indices[i] = bound
            self.note("for_reversed")
        elif choice == 3:
            vectors = [v for v in scope.vars.values() if len(v.shape) >= 1]
            if vectors:
                v = r.choice(vectors)
                el = self.fresh_name("v")
                self.emit(indent, f"for {i}, {el} in enumerate({v.name}):")
                self.iterating(inner, v.name)
                inner.indices[i] = v.shape[0]
                inner.vars[el] = Var(el, v.shape[1:], "view" if len(v.shape) > 1 else "fresh",
                                     v.roots | {el})
                self.note("for_enumerate")
            else:
                self.emit(indent, f"for {i} in range({bound}):")
                inner.indices[i] = bound
        elif choice == 4:
            vectors = [v for v in scope.vars.values() if len(v.shape) >= 1]
            if vectors:
                v = r.choice(vectors)
                same = [w for w in vectors if w.shape[0] == v.shape[0]]
                w = r.choice(same)
                a, b = self.fresh_name("p"), self.fresh_name("q")
                self.emit(indent, f"for {a}, {b} in zip({v.name}, {w.name}):")
                self.iterating(inner, v.name, w.name)
                inner.vars[a] = Var(a, v.shape[1:], "view" if len(v.shape) > 1 else "fresh",
                                    v.roots | {a})
                inner.vars[b] = Var(b, w.shape[1:], "view" if len(w.shape) > 1 else "fresh",
                                    w.roots | {b})
                self.note("for_zip")
            else:
                self.emit(indent, f"for {i} in range({bound}):")
                inner.indices[i] = bound
        elif choice == 5:
            mats = [v for v in scope.vars.values() if len(v.shape) == 2]
            if mats:
                v = r.choice(mats)
                row = self.fresh_name("row")
                self.emit(indent, f"for {row} in {v.name}:")
                self.iterating(inner, v.name)
                inner.vars[row] = Var(row, v.shape[1:], "view", v.roots | {row})
                self.note("for_rows")
            else:
                self.emit(indent, f"for {i} in range({bound}):")
                inner.indices[i] = bound
        else:
            self.emit(indent, f"for {i} in range({bound}):")
            inner.indices[i] = bound
            self.note("for_range")
        self.block(indent + 1, inner, depth + 1, r.randint(1, 3))
        self.merge(scope, inner)

    def iterating(self, inner, *names):
        """The loop iterates over `names`: rebinding them in the body is a known bug."""
        if self.allowed("loop_rebind"):
            self.note("loop_rebind")
        else:
            inner.frozen = inner.frozen | set(names)

    def stmt_while(self, indent, scope, depth):
        r = self.r
        k = self.fresh_name("k")
        bound = r.randint(1, 4)
        self.emit(indent, f"{k} = 0")
        inner = scope.child(in_loop=True, looping=True)
        form = r.randrange(3)
        if form == 0:
            self.emit(indent, fmt(f"while {k} < {bound} and {{0}}:", self.condition(scope)))
            self.note("while_data")
        elif form == 1:
            self.emit(indent, f"while {k} < {bound}:")
            self.note("while_counter")
        else:
            self.emit(indent, "while True:")
            self.emit(indent + 1, f"if {k} >= {bound}:")
            self.emit(indent + 2, "break")
            self.note("while_true")
        if self.chance(0.4):
            # increment first, so a `continue` below cannot loop forever
            self.emit(indent + 1, f"{k} = {k} + 1")
            self.block(indent + 1, inner, depth + 1, r.randint(1, 3))
        else:
            inner.indices[k] = bound
            inner.in_loop = False        # no `continue` before the increment
            self.block(indent + 1, inner, depth + 1, r.randint(1, 3))
            self.emit(indent + 1, f"{k} += 1")
        self.merge(scope, inner)

    def stmt_jump(self, indent, scope, depth):
        jump = self.r.choice(["break", "continue"])
        self.emit(indent, fmt("if {0}:", self.condition(scope)))
        self.emit(indent + 1, jump)
        self.note(jump)

    def stmt_return(self, indent, scope, depth):
        self.emit(indent, fmt("if {0}:", self.condition(scope)))
        self.emit(indent + 1, fmt("return {0}", self.result(scope)))
        self.note("early_return")

    def result(self, scope):
        """What the function returns: a scalar for `f`, the declared shapes for helpers."""
        if not scope.returns:
            return self.final_scalar(scope)
        es = [self.expr(s, scope, 2) for s in scope.returns]
        if len(es) == 1:
            return es[0]
        return fmt(", ".join("{%d}" % j for j in range(len(es))), *es)

    def final_scalar(self, scope):
        """A scalar that most live values contribute to."""
        r = self.r
        pool = [v for v in scope.vars.values()]
        r.shuffle(pool)
        terms = []
        for v in pool[:4]:
            form = r.choice(["np.sum({0})", "np.sum({0} ** 2)", "np.sum(np.sin({0}))",
                             "0.5 * np.sum({0})"]) if v.shape else r.choice(["{0}", "{0} ** 2"])
            terms.append(fmt(form, lit(v.name)))
        for t in list(scope.tuples)[:1]:
            terms.append(fmt("np.sum({0})", lit(f"{t}[0]")))
        for d, entries in list(scope.dicts.items())[:1]:
            if scope.looping and not self.allowed("dict_read_in_loop"):
                break
            terms.append(fmt("np.sum({0})", lit(f"{d}[{next(iter(entries))!r}]")))
        if self.chance(0.5):
            terms.append(self.expr((), scope, 2))
        if not terms:
            terms.append(self.expr((), scope, 2))
        return fmt(" + ".join("{%d}" % j for j in range(len(terms))), *terms)

    # --- functions ----------------------------------------------------------------------------
    def function(self, name, params, returns, in_helper, size, defaults=None, decorator=None,
                 forced=()):
        """Emit `def name(...)` with a random body; params: (name, spec)."""
        scope = Scope(in_helper=in_helper, returns=returns)
        self.viewed = set()
        texts = []
        for pname, spec in params:
            text = pname
            if defaults and pname in defaults:
                text += f"={defaults[pname]}"
            texts.append(text)
            kind = spec[0]
            if kind == "float":
                scope.vars[pname] = Var(pname, (), "param", frozenset([pname]))
            elif kind == "array":
                scope.vars[pname] = Var(pname, spec[1], "param", frozenset([pname]))
            elif kind == "int":
                scope.ints[pname] = spec[1]
            elif kind in ("tuple", "list"):
                scope.tuples[pname] = [s[1] if s[0] == "array" else () for s in spec[1]]
            elif kind == "dict":
                scope.dicts[pname] = {k: (s[1] if s[0] == "array" else ())
                                      for k, s in spec[1].items()}
        if decorator:
            self.emit(0, f"@{decorator}")
        self.emit(0, f"def {name}({', '.join(texts)}):")
        # read containers into names now and then
        for t in list(scope.tuples):
            if self.chance(0.5):
                names = [self.fresh_name("e") for _ in scope.tuples[t]]
                self.emit(1, f"{', '.join(names)} = {t}")
                self.note("tuple_param_unpack")
                for n, s in zip(names, scope.tuples[t]):
                    scope.vars[n] = Var(n, s, "view" if s else "fresh", frozenset([n, t]))
        self.block(1, scope, 0, size, forced)
        if not (self.lines[-1][0] == 1 and self.lines[-1][1].c.startswith("return")):
            self.emit(1, fmt("return {0}", self.result(scope)))
        self.emit(0, "")
        self.emit(0, "")

    def param_spec(self, allow_containers=True):
        r = self.r
        kinds = ["float", "array", "array", "array"]
        if allow_containers:
            kinds += ["tuple", "dict"]
        kind = r.choice(kinds)
        if kind == "float":
            return ("float",)
        if kind == "array":
            return ("array", self.shape(allow_scalar=False))
        if kind == "tuple":
            return ("tuple", [self.param_spec(False), self.param_spec(False)])
        keys = r.sample(["w", "b", "scale", "W"], 2)
        return ("dict", {k: self.param_spec(False) for k in keys})

    def program(self):
        r = self.r
        out_lines = ["import numpy as np", "", ""]
        probe_header = ["import numpy as np", "", ""]
        # helpers
        for k in range(r.choice([0, 0, 1, 1, 2, 3])):
            name = f"helper{k}"
            nparams = r.randint(1, 3)
            params = [(f"a{j}", ("array", self.shape(False)) if self.chance(0.7) else ("float",))
                      for j in range(nparams)]
            defaults = {}
            if self.chance(0.3):
                last = params[-1][0]
                params[-1] = (last, ("float",))
                defaults[last] = f"{r.uniform(0.2, 1.5):.2f}"
                self.note("default_argument")
            returns = (self.shape(),) if self.chance(0.7) else (self.shape(), self.shape())
            self.function(name, params, returns, True, r.randint(1, 4), defaults,
                          self.decorator_for(returns))
            self.helpers.append(Helper(name, [(n, s[1] if s[0] == "array" else ())
                                              for n, s in params], defaults, returns))
            self.note("helper")
        self.mechanism_definitions()
        # entry point
        nparams = r.randint(1, 4)
        params = [(f"x{j}", self.param_spec()) for j in range(nparams)]
        if self.chance(0.2):
            params.append(("n", ("int", r.randint(0, 3))))
            self.note("int_param")
        if self.shared and self.chance(0.5):
            params.append(("xc", self.shared[0]))        # the container both helpers read
        self.function("f", params, (), False, r.randint(3, 9),
                      decorator=self.decorator_for(((),), always=not self.decorators),
                      forced=self.forced_statements())
        if self.decorators:
            out_lines.insert(1, "import functools")
            probe_header.insert(1, "import functools")
        clean = "\n".join(out_lines + ["    " * i + e.c if e.c else "" for i, e in self.lines])
        probe = "\n".join(probe_header + ["    " * i + e.p if e.p else "" for i, e in self.lines])
        # wrt: a non-empty subset of the differentiable parameters
        diff = [(j, n) for j, (n, spec) in enumerate(params) if spec[0] != "int"]
        chosen = r.sample(diff, r.randint(1, len(diff)))
        chosen.sort()
        as_names = self.chance(0.5)
        items = [n if as_names else j for j, n in chosen]
        wrt = items[0] if len(items) == 1 and (self.chance(0.6) or not self.allowed("wrt_1tuple")) \
            else tuple(items)
        if isinstance(wrt, tuple) and len(wrt) == 1:
            self.note("wrt_1tuple")
        return Program(self.seed, clean + "\n", probe + "\n", "f", params, wrt,
                       tuple(n for _, n in chosen), set(self.features))


def _mentions(text, name):
    return re.search(rf"\b{re.escape(name)}\b", text) is not None


def generate(seed, enable=frozenset()):
    """The program for `seed` (features in KNOWN_BUG_FEATURES only when in `enable`)."""
    return Generator(seed, enable).program()


if __name__ == "__main__":      # python tests/fuzz/generator.py SEED: print one program
    import sys
    p = generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0,
                 ALL_FEATURES if "--all" in sys.argv else frozenset())
    print(p.source)
    print("# wrt =", repr(p.wrt), " params =", p.params)
    print("# features:", sorted(p.features))
