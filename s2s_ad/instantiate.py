"""Fill a rule's template with the names and expressions of one call site."""
import inspect

import gast
import numpy as np

from . import rules
from .build import clone
from .traversal import identifiers, walk


def _is_d(node):
    """Is `node` the template syntax `d[...]`?"""
    return (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)
            and node.value.id == "d")


def _d_param(node):
    """The template parameter `d[x]` refers to: 'x', or ('operands', k) for `d[operands[k]]`."""
    inner = node.slice
    if isinstance(inner, gast.Name):
        return inner.id
    if isinstance(inner, gast.Subscript) and isinstance(inner.value, gast.Name):
        return inner.value.id
    raise ValueError("d[...] must name a template parameter")


def literal(value):
    """A gast expression for a default value."""
    if isinstance(value, tuple):
        return gast.Tuple(elts=[literal(v) for v in value], ctx=gast.Load())
    return gast.Constant(value=value, kind=None)


class BindingError(TypeError):
    """The call site's arguments do not fit the rule's parameters; `hint` (where set) says what
    to write instead."""

    def __init__(self, message, hint=None):
        super().__init__(message)
        self.hint = hint


_IGNORED_ARGUMENT_HINTS = {
    "dtype": "leave out dtype and cast instead: write .astype(...) on the input or the result",
    "out": "leave out out= and assign the result to a name instead",
    "where": "leave out where= and select the entries first (np.where(mask, x, 0) for a sum)",
    "initial": "leave out initial= and combine the start value with the result yourself "
               "(np.maximum(result, initial), result + initial)",
    "return_sign": "leave out return_sign=True: with weights b >= 0 the sum is positive; "
                   "otherwise take the sign with np.sign(np.sum(b * np.exp(a), ...)) apart",
}


def _ignored_argument(name, how):
    return BindingError(
        f"`{name}` would be ignored ({how}: the rule does not read it)",
        hint=_IGNORED_ARGUMENT_HINTS.get(
            name, f"leave out `{name}`, or wrap the value in s2s_ad.stop_gradient(...) if it "
                  f"should be a constant"))


def _is_default(arg, parameter):
    """Is the argument expression the parameter's default (or None, which NumPy reads as the
    default for the parameters a reduction's rule leaves out)?"""
    if not isinstance(arg, gast.Constant):
        return False
    default = parameter.default
    if default is parameter.empty:
        return False
    return arg.value is None and (default is None or default is np._NoValue) or \
        arg.value == default


BINDING_HINT = ("leave out the argument the rule does not read (cast the result with "
                ".astype(...) instead of dtype=), name the arguments instead of unpacking "
                "*args/**kwargs, or wrap the value in s2s_ad.stop_gradient(...) if it should "
                "be a constant")


def call_signature(rule):
    """The template's signature without its first parameter (the result), and whether all its
    parameters are plain positional ones; worked out once per rule."""
    known = getattr(rule, "_call_signature", None)
    if known is None:
        parameters = list(rule.signature.parameters.values())[1:]
        plain = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in parameters)
        known = rule._call_signature = (inspect.Signature(parameters), plain)
    return known


# Array methods that take their arguments in the order of the NumPy function of the same name
# (x.sum(axis, dtype, out, keepdims, initial, where) as np.sum(x, axis, dtype, ...)). Their own
# signatures cannot be read in some NumPy versions, and in others end in **kwargs, which hides
# keepdims, initial and where: they are bound to the function's signature instead.
_METHODS_AS_FUNCTIONS = frozenset([
    "sum", "mean", "prod", "max", "min", "var", "std", "any", "all", "cumsum", "cumprod",
    "argmax", "argmin", "trace"])


def _method_callable(name):
    """What to read an array method's parameters from: the function of the same name where the
    two take the same arguments in the same order (its first parameter stands for `self`)."""
    if name in _METHODS_AS_FUNCTIONS and callable(getattr(np, name, None)):
        return getattr(np, name)
    return getattr(np.ndarray, name, None)


def _primal_parameters(rule):
    """The parameters of the callable a rule is for (an array method's with `self`), or None
    where Python cannot tell them; worked out once per rule."""
    known = getattr(rule, "_primal_parameters", False)
    if known is False:
        primal = rule.key
        if isinstance(primal, rules.method):
            primal = _method_callable(primal.name)
        try:
            known = list(inspect.signature(primal).parameters.values())
        except (TypeError, ValueError):
            known = None
        rule._primal_parameters = known
    return known


def _as_the_primal_reads_them(rule, args, keywords):
    """The call's arguments, with each positional one that the template would read as another
    of the primal's parameters passed by the name the primal reads it under: `np.sum(x, 0, None,
    None, True)` gives keepdims=True to a template `(x, axis=None, keepdims=False)`, not None.
    An argument the template does not read at all is refused, unless it is the default."""
    primal = _primal_parameters(rule)
    if primal is None:
        return args, keywords
    positional = [p for p in primal if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    template = list(call_signature(rule)[0].parameters.values())
    names = {p.name for p in primal}
    kept, keywords, by_name = [], dict(keywords), False
    for i, arg in enumerate(args):
        if i >= len(positional):
            kept.append(arg)             # into the primal's *args, or NumPy raises
            continue
        theirs = positional[i]
        ours = template[i] if i < len(template) else None
        misread = ours is None or ours.kind is ours.VAR_KEYWORD or \
            (ours.name in names and ours.name != theirs.name)
        if not (by_name or misread) or ours is not None and ours.kind is ours.VAR_POSITIONAL:
            kept.append(arg)
            continue
        by_name = True
        if any(p.name == theirs.name and p.kind is not p.POSITIONAL_ONLY for p in template):
            keywords[theirs.name] = arg
        elif not _is_default(arg, theirs):
            # counted as the user wrote the call: x.sum(0, t) has t as argument 2 of the
            # call, not 3 (the array before the dot is not one)
            raise _ignored_argument(
                theirs.name, f"argument {i if isinstance(rule.key, rules.method) else i + 1}")
    # a keyword the primal takes but the template does not read: dropped where it is the
    # default, refused where it would change the value
    template_names = {p.name for p in template if p.kind is not p.POSITIONAL_ONLY}
    reads_any_keyword = any(p.kind is p.VAR_KEYWORD for p in template)
    primal_by_name = {p.name: p for p in primal if p.kind is not p.POSITIONAL_ONLY}
    for name in list(keywords):
        if name in template_names or reads_any_keyword or name not in primal_by_name:
            continue
        if not _is_default(keywords[name], primal_by_name[name]):
            raise _ignored_argument(name, "by keyword")
        del keywords[name]
    return kept, keywords


def bind(rule, args, keywords):
    """Map template parameters (after the result) to the call's argument expressions."""
    if any(isinstance(a, gast.Starred) for a in args) or None in keywords:
        raise BindingError("a rule cannot see which parameters `*args`/`**kwargs` fill")
    args, keywords = _as_the_primal_reads_them(rule, args, keywords)
    signature, plain = call_signature(rule)
    parameters = signature.parameters.values()
    if plain and not keywords and len(args) <= len(parameters):
        # the common case, without the cost of Signature.bind: positional arguments, defaults
        bindings = dict(zip(signature.parameters, args))
        missing = list(parameters)[len(args):]
        if all(p.default is not p.empty for p in missing):
            bindings.update((p.name, literal(p.default)) for p in missing)
            return bindings
    placeholder = [object() for _ in args]
    keyword_placeholders = {k: object() for k in keywords}
    lookup = {id(p): a for p, a in zip(placeholder, args)}
    lookup.update({id(keyword_placeholders[k]): v for k, v in keywords.items()})
    try:
        bound = signature.bind(*placeholder, **keyword_placeholders)
    except TypeError as exc:
        raise BindingError(str(exc)) from None
    bindings = {}
    for p in parameters:
        if p.name in bound.arguments:
            value = bound.arguments[p.name]
            if p.kind is p.VAR_POSITIONAL:
                bindings[p.name] = [lookup[id(v)] for v in value]
            elif p.kind is p.VAR_KEYWORD:
                bindings[p.name] = {k: lookup[id(v)] for k, v in value.items()}
            else:
                bindings[p.name] = lookup[id(value)]
        elif p.kind is p.VAR_POSITIONAL:
            bindings[p.name] = []
        elif p.kind is p.VAR_KEYWORD:
            bindings[p.name] = {}
        else:
            bindings[p.name] = literal(p.default)
    return bindings


class Instance:
    """One filled-in template: local statements, and contributions `d[target] = expr`."""

    def __init__(self):
        self.steps = []          # ('local', statement) or ('contribute', atom, expression)
        self.globals = {}        # name in the generated code -> object


class _Substitute:
    """Copies a template tree with the call site's expressions in place of its parameters
    (the template itself is shared by every instance and never changes)."""

    def __init__(self, bindings, derivative_of, renames):
        self.bindings = bindings
        self.derivative_of = derivative_of
        self.renames = renames

    def copy(self, node):
        cls = node.__class__
        if cls is gast.Name:
            return self.name(node)
        if cls is list:
            return [self.copy(item) for item in node]
        if not isinstance(node, gast.AST) or not cls._fields:
            return node                  # a plain value, or a context or operator (shared)
        if cls is gast.Subscript:
            return self.subscript(node)
        new = cls.__new__(cls)
        fields = new.__dict__
        for field, value in node.__dict__.items():
            fields[field] = self.copy(value) if isinstance(value, (list, gast.AST)) else value
        if cls is gast.Call:
            # f(*elements) with `elements` bound to a tuple of expressions: f(a, b)
            new.args = [part for arg in new.args for part in (
                arg.value.elts if isinstance(arg, gast.Starred) and isinstance(arg.value, gast.Tuple)
                else [arg])]
        return new

    def subscript(self, node):
        if _is_d(node):
            return self.derivative_of(_d_param(node))
        group = node.value.id if isinstance(node.value, gast.Name) else None
        index = self.copy(node.slice)
        if isinstance(self.bindings.get(group), list) and isinstance(index, gast.Constant) \
                and isinstance(index.value, int):
            # elements[k] with k known: the k-th element itself, not `(a, b)[k]`
            return clone(self.bindings[group][index.value])
        return gast.Subscript(value=self.copy(node.value), slice=index, ctx=node.ctx)

    def name(self, node):
        if node.id in self.bindings:
            value = self.bindings[node.id]
            if isinstance(value, list):
                return gast.Tuple(elts=[clone(v) for v in value], ctx=gast.Load())
            return clone(value)
        return gast.Name(id=self.renames.get(node.id, node.id), ctx=node.ctx, annotation=None,
                         type_comment=None)


def _prepared(rule):
    """What every instance of `rule` shares, worked out once per rule: its plan (one step per
    statement, docstring dropped), the names the template assigns, and the globals it reads.

    A step is ("local", statement), ("contribute", value, param) for `d[param] = value`, or
    ("each", value, group, counter) for `d[group[counter]] = value`, one contribution per
    element of a `*group` parameter.
    """
    prepared = getattr(rule, "_prepared", None)
    if prepared is None:
        body = [s for s in rule.node.body
                if not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant))]
        for node in walk(gast.Module(body=body, type_ignores=[])):
            for attribute in node._attributes:      # template lines mean nothing in your code
                node.__dict__.pop(attribute, None)
        plan = []
        for statement in body:
            target = statement.targets[0] if isinstance(statement, gast.Assign) else None
            if target is None or not _is_d(target):
                plan.append(("local", statement, None, None))
            elif isinstance(target.slice, gast.Subscript):
                plan.append(("each", statement.value, target.slice.value.id, target.slice.slice.id))
            else:
                plan.append(("contribute", statement.value, _d_param(target), None))
        template_locals = {t.id for s in body for t in getattr(s, "targets", [])
                           if isinstance(t, gast.Name)}
        used = set().union(*(identifiers(s) for s in rule.node.body)) - set(rule.params) \
            - template_locals - {"d"}
        prepared = rule._prepared = (plan, sorted(template_locals),
                                     sorted(n for n in used if n in rule.globals))
    return prepared


def instantiate(rule, bindings, derivative_of, namer, global_name, wanted=lambda atom: True):
    """Expand `rule` at one call site.

    `derivative_of(param_name)` gives the expression that `d[param]` reads (the result's
    adjoint in reverse mode). `global_name(name, obj)` returns the name under which a global the
    template uses is visible in the generated code. Contributions to an atom that is not
    `wanted` (an inactive argument) are left out.
    """
    plan, template_locals, used = _prepared(rule)
    instance = Instance()
    renames = {name: namer.fresh("_" + name.strip("_")) for name in template_locals}
    for name in used:
        new = global_name(name, rule.globals[name])
        if new != name:
            renames[name] = new
        instance.globals[new] = rule.globals[name]
    substitute = _Substitute(bindings, derivative_of, renames)
    for kind, node, param, counter in plan:
        if kind == "local":
            instance.steps.append(("local", substitute.copy(node)))
        elif kind == "contribute":
            atom = bindings.get(param)
            if wanted(atom):
                instance.steps.append(("contribute", atom, substitute.copy(node)))
        else:
            for k, element in enumerate(bindings[param]):
                if wanted(element):
                    each = _Substitute({**bindings, counter: gast.Constant(value=k, kind=None)},
                                       derivative_of, renames)
                    instance.steps.append(("contribute", element, each.copy(node)))
    return instance
