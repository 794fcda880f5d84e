"""The template of each mode, derived from a rule declared once for both (`rules.elementwise`,
`linear`, `bilinear`, `transposes`): a rewrite of the declared template's tree, made once per
template and mode, into the very template a hand-written rule of that mode would be.
"""
import copy
import functools
import operator
import types

import gast

from .errors import RuleError
from .runtime import unbroadcast
from .runtime import broadcast_like

# the names the derived elementwise templates call, whether or not the table imports them
ELEMENTWISE_HELPERS = {"unbroadcast": unbroadcast, "broadcast_like": broadcast_like}

# operators whose derived call is spelled as the operator: `d[x] @ y`, not `operator.matmul(...)`
_OPERATORS = {operator.mul: gast.Mult, operator.matmul: gast.MatMult}


def elementwise(template, mode, broadcasting):
    """The template of `mode` ("adjoint" or "tangent") from an `elementwise` declaration:
    `def f(g, y, x): return E` for one input, or one `d[input] = E` line per input."""
    @functools.cache
    def derive(node):
        g, result = (a.id for a in node.args.args[:2])
        partials = _partials(template, node, g)
        several = len(partials) > 1
        if mode == "adjoint":
            body = [_assign(_d_of(name, gast.Store()), _adjoint_of(
                _replace_name(partial, g, _d_of(result)), name, several and broadcasting))
                for name, partial in partials]
        elif not several:
            (name, partial), = partials
            body = [_assign(_d_of(result, gast.Store()), _replace_name(partial, g, _d_of(name)))]
        else:
            others = [a.id for a in node.args.args[2:] + node.args.kwonlyargs] + [
                a.id for a in (node.args.vararg, node.args.kwarg) if a is not None]
            terms = [_elementwise_term(partial, g, name, result, others, broadcasting)
                     for name, partial in partials]
            body = [_assign(_d_of(result, gast.Store()), _signed_sum(terms))]
        return _function_like(node, body, skip=1)
    return derive


def _partials(template, node, g):
    """[(input, E)]: what the incoming derivative `g` becomes for each input."""
    statements = [s for s in node.body if not _is_docstring(s)]
    if len(statements) == 1 and isinstance(statements[0], gast.Return):
        return [(node.args.args[2].id, statements[0].value)]
    partials = []
    for statement in statements:
        target = statement.targets[0] if isinstance(statement, gast.Assign) else None
        if not (_is_d(target) and isinstance(target.slice, gast.Name)):
            raise _refusal(template, "an elementwise rule is `return E` (one input) or "
                           "`d[input] = E` lines, E in terms of the incoming `g`")
        partials.append((target.slice.id, statement.value))
    return partials


def _adjoint_of(partial, name, broadcasting):
    """`unbroadcast(E, x)`: an input that broadcasting stretched gets the sum over the stretch;
    `-unbroadcast(E, x)` for `-E`, which negates the sum, not every entry summed."""
    if not broadcasting:
        return partial
    if isinstance(partial, gast.UnaryOp) and isinstance(partial.op, gast.USub):
        return gast.UnaryOp(op=gast.USub(), operand=_adjoint_of(partial.operand, name, True))
    return _call(_name("unbroadcast"), [partial, _name(name)])


def _elementwise_term(partial, g, name, result, others, broadcasting):
    """(sign, the tangent's term for input `name`). A term that reads neither the result nor
    every other parameter may be smaller than the result (`x + y` with a scalar x): it is
    broadcast to the result's shape, which forward mode drops when every term survives."""
    sign, partial = _signed(partial)
    term = _replace_name(partial, g, _d_of(name))
    read = {n.id for n in gast.walk(partial) if isinstance(n, gast.Name)}
    if broadcasting and result not in read and not set(others) - {name} <= read:
        term = _call(_name("broadcast_like"), [term, _name(result)])
    return sign, term


def _signed(expression):
    """(-1, E) for `-E` and for a product or quotient led by a negation (`-g * y / x`), whose
    value is the same with the sign taken out; else (1, expression)."""
    if isinstance(expression, gast.UnaryOp) and isinstance(expression.op, gast.USub):
        return -1, expression.operand
    if isinstance(expression, gast.BinOp) and isinstance(expression.op, (gast.Mult, gast.Div)):
        sign, left = _signed(expression.left)
        if sign < 0:
            return -1, gast.BinOp(left=left, op=expression.op, right=expression.right)
    return 1, expression


def _signed_sum(terms):
    """`a - b + c` from [(1, a), (-1, b), (1, c)]."""
    (sign, total), *rest = terms
    if sign < 0:
        total = gast.UnaryOp(op=gast.USub(), operand=total)
    for sign, term in rest:
        total = gast.BinOp(left=total, op=gast.Add() if sign > 0 else gast.Sub(), right=term)
    return total


def multilinear_tangent(template, primal, helpers, inputs, keywords=False):
    """The tangent of a function linear in each input its adjoint template writes (`inputs` of
    them): `d[y] = f(d[x], b) + f(a, d[b])`, the function called once per input with that
    input's tangent in its place."""
    @functools.cache
    def derive(node):
        linear = _written_inputs(node)
        if len(linear) != inputs:
            raise _refusal(template, f"the rule declares a function linear in {inputs} "
                           f"input(s), but its template writes d[...] of {len(linear)}")
        spell = spelling(template, primal, helpers)
        terms = [(1, spell(*_arguments(node, {name: _d_of(name)}, keywords))) for name in linear]
        result = node.args.args[0].id
        return _function_like(node, [_assign(_d_of(result, gast.Store()), _signed_sum(terms))])
    return derive


def transposed_adjoint(template, primal, partner, helpers):
    """The adjoint of `partner`, from the adjoint template `d[g] = partner(d[y], ...)` of its
    transpose `primal`: `d[g] = primal(d[y], ...)` (each is linear, and the other's transpose)."""
    @functools.cache
    def derive(node):
        result = node.args.args[0].id
        (name,) = _written_inputs(node)
        given = [s.value for s in node.body if isinstance(s, gast.Assign)]
        expected = spelling(template, partner, helpers)(*_arguments(node, {name: _d_of(result)}))
        if len(given) != 1 or gast.dump(given[0]) != gast.dump(expected):
            raise _refusal(template, "a pair of transposes is declared by the adjoint of the "
                           "first: the second called with d[result] in place of the first's "
                           "first argument and the rest as they are")
        applied = spelling(template, primal, helpers)(*_arguments(node, {name: _d_of(result)}))
        return _function_like(node, [_assign(_d_of(name, gast.Store()), applied)])
    return derive


def _written_inputs(node):
    """The parameters whose d[...] the adjoint template assigns, in the order of the parameters."""
    written = {s.targets[0].slice.id for s in node.body
               if isinstance(s, gast.Assign) and _is_d(s.targets[0])}
    return [a.id for a in node.args.args[1:] if a.id in written]


def _arguments(node, replaced, keywords=False):
    """(positional, keyword) arguments passing the template's parameters after the result on
    as they are named, `replaced[name]` in place of those named there; keyword-only parameters
    and **options are what the rule accepts without reading, so they are not passed on."""
    def value(name):
        return copy.deepcopy(replaced[name]) if name in replaced else _name(name)
    names = [a.id for a in node.args.args[1:]]
    positional = [value(names[0])] + ([] if keywords else [value(n) for n in names[1:]])
    named = [gast.keyword(arg=n, value=value(n)) for n in names[1:]] if keywords else []
    if node.args.vararg is not None:
        positional.append(gast.Starred(value=value(node.args.vararg.id), ctx=gast.Load()))
    return positional, named


def spelling(template, primal, helpers):
    """How the derived template calls `primal`: `(args, keywords) -> expression`, by the name the
    rule's table knows it under (`np.sum`), as its operator (`a @ b`), or for a helper of this
    package by its own name, as generated code calls them (`unreduce`, bound in `helpers`)."""
    if primal in _OPERATORS:
        op = _OPERATORS[primal]
        return lambda args, keywords: gast.BinOp(left=args[0], op=op(), right=args[1])
    function = _name_in(template, primal, helpers)
    return lambda args, keywords: _call(copy.deepcopy(function), args, keywords)


def can_call(template, primal):
    """Can a template derived from `template` call `primal` by a name its table knows?"""
    try:
        return primal in _OPERATORS or _name_in(template, primal, {}) is not None
    except RuleError:
        return False


def _name_in(template, primal, helpers):
    name = getattr(primal, "__name__", None)
    namespace = template.__globals__
    for known, value in namespace.items():
        if value is primal and not known.startswith("_"):
            return _name(known)
    if name and (getattr(primal, "__module__", None) or "").startswith(f"{__package__}."):
        helpers[name] = primal
        return _name(name)
    for alias, value in namespace.items():
        if isinstance(value, types.ModuleType) and name and getattr(value, name, None) is primal:
            return gast.Attribute(value=_name(alias), attr=name, ctx=gast.Load())
    raise _refusal(template, f"the table declaring a rule for {name or primal} does not import "
                   f"it, so the derived rule cannot call it", hint=f"import {name or primal} there")


def _function_like(node, body, skip=0):
    """A template with `node`'s parameters (less the first `skip`) and `body`."""
    args = copy.copy(node.args)
    args.args = node.args.args[skip:]
    derived = gast.FunctionDef(name=node.name, args=args, body=body, decorator_list=[],
                               returns=None, type_comment=None, type_params=[])
    return gast.fix_missing_locations(gast.copy_location(derived, node))


def _is_docstring(statement):
    return isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Constant)


def _is_d(node):
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
        and node.value.id == "d"


def _refusal(template, message, hint=None):
    """A declaration that does not fit its kind, pointing at its template."""
    code = template.__code__
    return RuleError(message, filename=code.co_filename, lineno=code.co_firstlineno, hint=hint)


def _assign(target, value):
    return gast.Assign(targets=[target], value=value, type_comment=None)


def _call(function, args, keywords=()):
    return gast.Call(func=function, args=list(args), keywords=list(keywords))


def _name(name, ctx=None):
    return gast.Name(id=name, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _d_of(name, ctx=None):
    """`d[name]` as a tree."""
    return gast.Subscript(value=_name("d"), slice=_name(name), ctx=ctx or gast.Load())


def _replace_name(tree, name, replacement):
    """A copy of `tree` with every read of `name` replaced by a copy of `replacement`."""
    class Replace(gast.NodeTransformer):
        def visit_Name(self, node):
            return copy.deepcopy(replacement) if node.id == name else node
    return Replace().visit(copy.deepcopy(tree))
