"""InlineHelpers: a call of a small helper of yours replaced by the helper's own statements.

`h = dense(h, W, b)` with `def dense(x, W, b): return act(x @ W + b)` and
`def act(z): return np.tanh(z)` becomes `_z = h @ W + b` and `h = np.tanh(_z)`. The
derivative then needs no call into a derivative of `dense` (its dispatch, its seed and
gradient conversions, a closure for its backward pass), and the caller's shape facts reach
the helper's operations, as they would in code written in one function.

A helper is inlined where that cannot change what runs: a plain function of the caller's
module (no closure, no decorator, no rule of its own, no `*args`), whose body is a few simple
statements ending in its one `return`; called by its global name, with arguments Python binds
to its parameters (literal defaults), at a point where the call runs exactly once whenever the
statement does and nothing that may raise or change anything runs before it in that
statement (reading names and attributes does not), and with no name local to the caller
(an assignment's, a nested def's, an import's) among those it reads. Its names are renamed
so that they cannot meet the caller's; a parameter given a name or a constant that the
helper never rebinds reads it directly; its arguments are bound in the order the call
evaluates them. The parameters are bound at the call's line; the helper's own statements keep
the helper's lines. The inlined helpers are recorded (`parsed.inlined`):
a derivative made with one is stale once its name is bound to another function (cache.py).
"""
import builtins
import copy
import inspect
import threading
import types

import gast

from .. import build, rules
from ..analysis.call_results import is_user_function
from ..errors import TransformError
from ..frontend.parse import parse_function
from ..traversal import rewrite_blocks, walk
from .inline_factories import _Rename, _argument, _bound, _free

MOST_STATEMENTS = 8           # a longer helper stays a call: its code is not copied per call
MOST_INLINED = 64             # calls inlined into one function
# statements a helper may hold before its return: straight-line assignments to its names
_SIMPLE = (gast.Assign, gast.AnnAssign)
# methods that change what they are called on: a helper calling one stays a call (the caller's
# checks of writes into what it passes name the helper's line)
_CHANGING = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update",
                       "setdefault", "popitem", "sort", "reverse", "fill", "put", "resize",
                       "itemset", "setflags", "add", "discard", "at", "partition"})
# nodes that make a helper's code more than straight-line expressions of its own names
_NOT_SIMPLE = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
               gast.Yield, gast.YieldFrom, gast.Await, gast.NamedExpr, gast.Global,
               gast.Nonlocal, gast.FunctionDef, gast.ClassDef, gast.Return)
# expressions evaluated some times only, or in a scope of their own
_CONDITIONAL = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
                gast.IfExp, gast.BoolOp)
# what evaluating cannot raise nor change: a name, a constant, a module's attribute
_HARMLESS = (gast.Name, gast.Constant, gast.Attribute)
_BLOCKED = object()
_DONE = threading.local()               # calls inlined by this thread so far


def inlined_so_far():
    """How many calls this thread has inlined: a transform that fails after inlining one is
    made again without (pipeline.py)."""
    return getattr(_DONE, "count", 0)


class InlineHelpers:

    def __init__(self, parsed, namer, local_names):
        self.parsed = parsed
        self.namer = namer
        code = getattr(parsed.fn, "__code__", None)
        # every name Python makes local, a nested def's or an import's too
        self.local_names = set(local_names) | (
            set(code.co_varnames) | set(code.co_cellvars) if code is not None else set())
        self.expanding = [code]
        self.count = 0
        self.returned = set()            # ids of the nodes of the expressions inlined so far

    def run(self, body):
        return rewrite_blocks(body, self._rewritten)

    def _rewritten(self, statement):
        """`statement` after the statements of the helpers it calls first, inlined."""
        if not isinstance(statement, (gast.Assign, gast.AugAssign, gast.Return, gast.Expr,
                                      gast.If)):
            return [statement]
        out = []
        while self.count < MOST_INLINED:
            found = self._first_inlinable(statement)
            if found is None:
                break
            call, name, helper = found
            prefix, value = self._expanded(call, helper, statement)
            self.count += 1
            _DONE.count = inlined_so_far() + 1
            self.parsed.inlined.append((name, helper))
            self.expanding.append(helper.__code__)
            try:
                out += self.run(prefix)
            finally:
                self.expanding.pop()
            _replace(statement, call, value)
            self.returned.update(id(n) for n in walk(value))
        return out + [statement]

    def _first_inlinable(self, statement):
        """(call, name, helper) for the first call of a helper to inline that `statement`
        makes, where nothing that may raise or change anything runs before it (what an
        earlier inlined helper returns ran there before too)."""
        ran = []                                  # what may raise, evaluated so far
        for node in _evaluated_in_order(statement):
            if node is _BLOCKED:
                return None
            if isinstance(node, gast.Call):
                helper = self._helper(node)
                if helper is not None:
                    own = {id(n) for n in walk(node)}       # its arguments run just before it
                    return (node, node.func.id, helper) if all(id(n) in own for n in ran) \
                        else None
            if isinstance(node, gast.expr) and not isinstance(node, _HARMLESS) and \
                    id(node) not in self.returned:
                ran.append(node)
        return None

    def _helper(self, call):
        func = call.func
        if not isinstance(func, gast.Name) or func.id in self.local_names or \
                func.id in self.parsed.closure:
            return None
        helper = self.parsed.namespace.get(func.id)
        globals_ = getattr(self.parsed.fn, "__globals__", None)
        if globals_ is None or globals_.get(func.id) is not helper or \
                not _inlinable(helper, globals_) or helper.__code__ in self.expanding:
            return None
        if any(isinstance(a, gast.Starred) for a in call.args) or \
                any(k.arg is None for k in call.keywords):
            return None
        parts = _parts(helper)
        # the globals it reads would be the caller's own names where they are inlined; its
        # lines are told in the caller's file
        if parts is None or parts[3] & (self.local_names | set(self.parsed.closure)) or \
                parts[0].filename != self.parsed.filename:
            return None
        try:
            inspect.signature(helper).bind(*call.args, **{k.arg: k.value for k in call.keywords})
        except TypeError:
            return None                       # Python's own error, from the call as it is
        return helper

    def _expanded(self, call, helper, statement):
        """(the statements binding the helper's parameters and its body, renamed; the
        expression it returns, renamed)."""
        helper_parsed, body, returned, _ = _parts(helper)
        body, returned = copy.deepcopy(body), copy.deepcopy(returned)
        signature = inspect.signature(helper)
        bound = signature.bind(*call.args, **{k.arg: k.value for k in call.keywords})
        rebound = _bound(body)
        own = set(signature.parameters) | rebound
        renamed = {n: self.namer.fresh(n) for n in sorted(own)}
        prefix = []
        # the arguments in the order the call evaluates them (keywords as written), then
        # the defaults
        written = [id(a) for a in call.args] + [id(k.value) for k in call.keywords]
        order = sorted(signature.parameters, key=lambda p: written.index(
            id(bound.arguments[p])) if p in bound.arguments else len(written))
        for param in order:
            argument = _argument(bound, param, helper)
            if param not in rebound and isinstance(argument, (gast.Name, gast.Constant)):
                renamed[param] = argument     # read directly
            else:
                prefix.append(build.assign(renamed[param], argument))
        for node in prefix:
            for part in walk(node):
                if isinstance(part, (gast.stmt, gast.expr)):
                    gast.copy_location(part, statement)
        # the helper's own code keeps the helper's lines: what refers to it names them
        _relocate(body + [returned], helper_parsed, self.parsed)
        rename = _Substitute(renamed)
        prefix += [rename.visit(s) for s in body]
        return prefix, rename.visit(returned)


def _relocate(nodes, helper, caller):
    """Give the helper's nodes the positions that name, in the caller's terms (its first line
    and indent), the helper's own lines of the same file."""
    lines = helper.first_line - caller.first_line
    columns = helper.indent - caller.indent
    for node in nodes:
        for part in walk(node):
            if getattr(part, "lineno", None) is not None:
                part.lineno += lines
                part.col_offset = (part.col_offset or 0) + columns
            if getattr(part, "end_lineno", None) is not None:
                part.end_lineno += lines
                part.end_col_offset = (part.end_col_offset or 0) + columns


def _inlinable(helper, globals_):
    """A plain function of the caller's module with no closure, decorator, rule or mark."""
    if type(helper) is not types.FunctionType or not is_user_function(helper) or \
            helper.__globals__ is not globals_ or helper.__closure__ or \
            hasattr(helper, "__wrapped__") or getattr(helper, "__s2s_checkpoint__", False):
        return False
    code = helper.__code__
    if code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS | inspect.CO_GENERATOR |
                        inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        return False
    if rules.adjoint_rule(helper) is not None or rules.tangent_rule(helper) is not None or \
            rules.is_non_differentiable(helper):
        return False
    defaults = inspect.signature(helper).parameters.values()
    return all(p.default is p.empty or type(p.default) in (int, float, bool, str, type(None))
               for p in defaults)


_PARTS = {}


def _parts(helper):
    """(the parsed helper, the statements before its return, the expression it returns, the
    global names it reads), or None where it is no such helper; read once per code object."""
    code = helper.__code__
    if code not in _PARTS:
        _PARTS[code] = _read_parts(helper)
    return _PARTS[code]


def _read_parts(helper):
    try:
        parsed = parse_function(helper)
    except TransformError:
        return None
    body = parsed.node.body
    if body and isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]                       # the docstring
    if not body or len(body) > MOST_STATEMENTS or not isinstance(body[-1], gast.Return) or \
            body[-1].value is None or parsed.node.decorator_list:
        return None
    if not all(isinstance(s, _SIMPLE) for s in body[:-1]):
        return None
    if any(isinstance(n, _NOT_SIMPLE) for s in body[:-1] for n in walk(s)) or \
            any(isinstance(n, _NOT_SIMPLE) for n in walk(body[-1].value)) or _writes(body):
        return None
    free = _free(body) - _bound(body) - set(inspect.signature(helper).parameters)
    if any(name not in helper.__globals__ and not hasattr(builtins, name) for name in free):
        return None                           # a name Python would not find: leave it a call
    return parsed, body[:-1], body[-1].value, frozenset(free)


def _writes(body):
    """Does `body` write into a value rather than bind names: a store into an entry or an
    attribute, a method that changes its object, an `out=` array?"""
    for node in (n for s in body for n in walk(s)):
        if isinstance(node, (gast.Subscript, gast.Attribute, gast.Starred)) and \
                not isinstance(node.ctx, gast.Load):
            return True
        if isinstance(node, gast.Call) and (
                isinstance(node.func, gast.Attribute) and node.func.attr in _CHANGING or
                any(k.arg == "out" for k in node.keywords)):
            return True
    return False


def _resolve(func, namespace):
    if isinstance(func, gast.Name):
        return namespace[func.id] if func.id in namespace else getattr(builtins, func.id)
    if isinstance(func, gast.Attribute):
        return getattr(_resolve(func.value, namespace), func.attr)
    raise TypeError("not a dotted name")


def _evaluated_in_order(node):
    """The nodes `node`'s evaluation completes, in that order; _BLOCKED where it reaches an
    expression evaluated some times only (a branch of `a if c else b`, a comprehension) that
    does more than read names."""
    if isinstance(node, _CONDITIONAL) or \
            (isinstance(node, gast.Compare) and len(node.comparators) > 1):
        if any(isinstance(n, gast.expr) and not isinstance(n, _HARMLESS) for n in walk(node)
               if n is not node):
            yield _BLOCKED
        return
    for child in _children_in_order(node):
        yield from _evaluated_in_order(child)
    yield node


def _children_in_order(node):
    if isinstance(node, gast.Assign):
        return [node.value] + node.targets
    if isinstance(node, gast.If):
        return [node.test]                    # the branches run after the call, or not at all
    if isinstance(node, gast.Dict):
        return [part for pair in zip(node.keys, node.values) for part in pair if part is not None]
    return list(gast.iter_child_nodes(node))


class _Substitute(_Rename):
    """_Rename where a name may also be replaced by an expression (a caller's name or a
    constant given for a parameter)."""

    def visit_Name(self, node):
        new = self.renamed.get(node.id)
        if isinstance(new, gast.AST):
            return copy.deepcopy(new)
        return super().visit_Name(node)


def _replace(statement, old, new):
    """`old`, a node of `statement`, replaced by `new` in place."""
    for node in walk(statement):
        for field, value in gast.iter_fields(node):
            if value is old:
                setattr(node, field, new)
                return
            if isinstance(value, list):
                for k, item in enumerate(value):
                    if item is old:
                        value[k] = new
                        return
    raise AssertionError("the call is not in the statement")
