"""RefuseUnsupported: reject constructs the transformer cannot differentiate, with a clear error."""
import gast

from .. import rules
from ..analysis import call_results
from ..analysis.aliasing import VIEW_ATTRIBUTES, MayAlias, is_module_source, module_name
from ..analysis.call_results import is_callable_instance, is_outer_array, is_user_function
from ..analysis.primitives import classify, is_random_draw, static_value
from ..errors import TransformError
from ..frontend.source_text import segment, span_of
from ..traversal import loads, nodes_of, preorder, root_name, stores, walk, walk_statements
from .lower_comprehensions import functional_call
from .refuse_helper_state import refuse_state_kept_by

_REFUSED = {
    gast.Yield: ("generators (`yield`) cannot be differentiated", "return a value instead of yielding"),
    gast.YieldFrom: ("generators (`yield from`) cannot be differentiated", "return a value instead"),
    gast.Await: ("`await` cannot be differentiated", "write a plain synchronous function"),
    gast.Try: ("`try` blocks with `except` are not supported: which statements run depends on "
               "where an exception is raised", "move the try/except outside the differentiated "
               "function, or test the condition with `if` (a `try`/`finally` is supported)"),
    gast.Global: ("`global` declarations are not supported", "pass the value as an argument and return the new value"),
    gast.Nonlocal: ("`nonlocal` declarations are not supported", "pass the value as an argument and return the new value"),
    gast.Delete: ("`del` of an entry or attribute is not supported", "build the container without the entry, or rebind the name"),
    gast.Match: ("`match` with sequence, mapping or class patterns is not supported",
                 "write the cases as if/elif (`match` over values, `case 1 | 2:`, is supported)"),
    gast.NamedExpr: ("assignment expressions (`:=`) are not supported", "assign the value on its own line first"),
    gast.ClassDef: ("class definitions inside a differentiated function are not supported",
                    "define the class at module level"),
    gast.Import: ("imports inside a differentiated function are not supported", "import at module level"),
    gast.ImportFrom: ("imports inside a differentiated function are not supported", "import at module level"),
    gast.AsyncFunctionDef: ("async functions cannot be differentiated", "write a plain `def`"),
    gast.AsyncFor: ("`async for` cannot be differentiated", "write a plain `for`"),
    gast.AsyncWith: ("`async with` cannot be differentiated", "write plain code"),
    gast.Assert: (None, None),
}

_JUMP_IN_TRY = ("`return`, `break` or `continue` inside `try`/`finally` is not supported: "
                "`finally` then runs after the value is computed",
                "compute the value inside the try/finally and return it after the block")


# builtins whose argument is code (or scope) as data: invisible to a source transformation
_CODE_FROM_TEXT = {"eval", "exec", "compile", "globals", "locals", "vars"}
_BUILTIN = object()


class RefuseUnsupported:
    """Raise a TransformError at the first construct the transformer does not handle."""

    def __init__(self, parsed, allowed_with=()):
        self.parsed = parsed
        self.allowed_with = allowed_with     # predicates: is this `with` item supported?
        self.checked = set()                 # code objects of callees already looked at
        self.applied = set()                 # ids of lambdas map/reduce apply (lowered later)

    def check(self):
        node = self.parsed.node
        args = node.args
        if args.vararg is not None or args.kwarg is not None:
            wrapper = variadic_wrapper_error(self.parsed)
            if wrapper is not None:
                raise wrapper
            culprit = args.vararg or args.kwarg
            raise self.parsed.error(culprit, "functions with *args or **kwargs cannot be "
                                    "differentiated directly",
                                    hint="name each parameter, or differentiate a wrapper with named parameters")
        checks = {gast.FunctionDef: self.check_def, gast.Lambda: self.check_lambda,
                  gast.With: self.check_with, gast.Call: self.check_call}
        self.refuse_writes_into_outer_objects(node)
        for inner in preorder(node.body, prune=(gast.Assert,)):    # asserts are dropped
            message, hint = _REFUSED.get(type(inner), ("", ""))
            if isinstance(inner, gast.Try) and not inner.handlers:
                message, hint = _JUMP_IN_TRY      # any other try/finally was lowered
            if message:
                raise self.parsed.error(inner, message, hint=hint)
            check = checks.get(type(inner))
            if check is not None:
                check(inner)
        self.refuse_endless_recursion(node)

    def refuse_endless_recursion(self, node):
        """A function that calls itself with no branch to stop it never returns."""
        branches = (gast.If, gast.IfExp, gast.While, gast.For, gast.BoolOp, gast.Try, gast.Match)
        if nodes_of(node, branches):
            return
        for call in nodes_of(node, [gast.Call]):
            if isinstance(call.func, gast.Name) \
                    and call.func.id == node.name \
                    and self.parsed.namespace.get(node.name) is self.parsed.fn:
                raise self.parsed.error(call, f"`{node.name}` calls itself on every path, so it "
                                        f"never returns", hint="add a base case (`if depth == 0: "
                                        "return ...`) before the recursive call")

    def refuse_writes_into_outer_objects(self, node):
        """`G[:] = x` or `cfg.buf[0] = a`, where `G` and `cfg` are not local names: the write
        changes an object of the module (or of an enclosing function) that the functions `f`
        calls read as a constant, and that the backward pass, re-running them, sees in the
        state it is left in: the gradient would silently lose what flows through it."""
        local = set(a.id for a in walk(node.args) if isinstance(a, gast.Name)) | stores(node.body)
        for statement in walk_statements(node.body):
            targets = statement.targets if isinstance(statement, gast.Assign) else \
                [statement.target] if isinstance(statement, (gast.AugAssign, gast.AnnAssign)) else []
            for target in targets:
                for written in _written_objects(target):
                    root = root_name(written)
                    if root is not None and root.id not in local:
                        self._refuse_outer_write(written, root.id, self._text(written.value))
        self._refuse_writes_through_aliases(node, local)
        self._refuse_outer_writes_in_callees(node, local)

    def _text(self, node):
        """The user's text for `node` (`CFG["buf"]`, as written)."""
        span = span_of(node)
        text = segment(self.parsed, span) if span else None
        return text.strip() if text else self.parsed.describe_expression(node)

    def _refuse_writes_through_aliases(self, node, local):
        """`b = BUF` (or `BUF.reshape(3)`, `BUF.view()`, `getbuf()`), then `b[:] = x` or
        `b += x`: the same write into the module's array, through a local name that may be it."""
        analysis = MayAlias(local, call_results.hook(self.parsed, local),
                            call_results.module_arrays(self.parsed, local))
        for statement, name, aliases in analysis.run(node.body).updates:
            outer = sorted(module_name(a) for a in aliases if is_module_source(a))
            if not outer:
                continue
            targets = statement.targets if isinstance(statement, gast.Assign) else [statement.target]
            written = next((w for t in targets for w in _written_objects(t)
                            if name is None or root_name(w) is not None and root_name(w).id == name),
                           targets[0])
            root = root_name(written)
            self._refuse_outer_write(written, outer[0], outer[0],
                                     through=self._text(written.value) if isinstance(
                                         written, gast.Subscript) else root.id if root else name)

    def _refuse_outer_writes_in_callees(self, node, local):
        """The same for the user's functions called here, whatever their arguments: a helper
        `fill(x)` whose result is dropped is not differentiated, so nothing else looks at it."""
        from ..frontend import parse_function
        for call in nodes_of(node.body, [gast.Call]):
            try:
                callee = static_value(call.func, self.parsed, local)
            except LookupError:
                continue
            code = getattr(callee, "__code__", None)
            if not is_user_function(callee) or code in self.checked:
                continue
            self.checked.add(code)
            try:
                parsed = parse_function(callee)
            except TransformError:
                continue                  # refused where it is differentiated, if it is
            inner = RefuseUnsupported(parsed)
            inner.checked = self.checked
            try:
                inner.refuse_writes_into_outer_objects(parsed.node)
            except TransformError as exc:
                raise exc.called_from(f"{self.parsed.where(call)} (in {self.parsed.name})") from None

    def _refuse_outer_write(self, written, name, array, through=None):
        """`array`: the user's text for the array written (`CFG["buf"]`), rooted at `name`;
        `through`: the local name that may be that array (`b = BUF`, then `b[:] = x`)."""
        scope = "a variable of an enclosing function" if name in self.parsed.closure \
            else "a module-level variable"
        what = f"`{through}`, which may be `{name}`" if through else f"`{name}`"
        raise self.parsed.error(
            written, f"cannot differentiate a write into {what}, {scope}: s2s_ad reads such "
            f"a value as a constant (here and in the functions called), so the gradient "
            f"through what is written would be lost",
            hint=f"write into a local array instead (`buf = np.copy({array})`, then `buf[...] = "
                 f"...`) and pass it to the functions that read it; a helper returns the new "
                 f"value rather than writing it")

    def check_def(self, node):
        raise self.parsed.error(node, "a nested `def` is supported only when it is defined at the "
                                "top of the function and only called (not stored or passed on)",
                                hint="call it directly, or define the helper at module level "
                                     "with what it reads from here as parameters (`def "
                                     f"{node.name}(w, x)`) and pass them (`ad.grad({node.name})"
                                     "(w0, x)` is differentiated through `x` too)")

    def check_lambda(self, node):
        if id(node) in self.applied:
            return
        raise self.parsed.error(node, "a lambda is supported inside a differentiated function only "
                                "when bound to a name and called (`sq = lambda v: v * v`)",
                                hint="bind it to a name and call it, or define the helper with `def`")

    def check_with(self, node):
        for item in node.items:
            if not any(allowed(item) for allowed in self.allowed_with):
                raise self.parsed.error(item.context_expr, "`with` blocks are supported only for "
                                        "s2s_ad.no_grad() and context managers that change no "
                                        "value (np.errstate with \"ignore\" or \"warn\", "
                                        "warnings.catch_warnings())",
                                        hint="move the context manager outside the "
                                             "differentiated function")

    def check_call(self, node):
        if functional_call(node, self.parsed.namespace) is not None:
            self.applied.add(id(node.args[0]))
        func = node.func
        if isinstance(func, gast.Name) and func.id in _CODE_FROM_TEXT \
                and self.parsed.namespace.get(func.id, _BUILTIN) is _BUILTIN:
            raise self.parsed.error(node, f"`{func.id}(...)` runs code the transformer cannot "
                                    f"read, so its gradient would be silently wrong",
                                    hint="write the expression out in the function")


def variadic_wrapper_error(parsed):
    """The refusal of a decorator's `def wrapper(*args, **kwargs)` (it has `__wrapped__`), at
    the wrapper's line; None for any other function. The wrapper is user code that may change
    the value, so it is not skipped for the function it wraps."""
    wrapped = getattr(parsed.fn, "__wrapped__", None)
    args = parsed.node.args
    if wrapped is None or (args.vararg is None and args.kwarg is None):
        return None
    name = getattr(wrapped, "__name__", "the wrapped function")
    return parsed.error(
        args.vararg or args.kwarg,
        f"cannot differentiate `{name}` through its decorator: the wrapper "
        f"`{parsed.node.name}` that the decorator returns takes *args or **kwargs",
        hint=f"give the wrapper the parameters of `{name}` (`def {parsed.node.name}(x): ...`), "
             f"or, if the decorator does not change the value (timing, logging), "
             f"differentiate `{name}.__wrapped__`")


def _written_objects(target):
    """The subscript targets in an assignment target (`a[i], b.c[j] = ...`): writes into the
    contents of an object. (Setting an attribute, `wrapper.calls = n`, is left alone: a
    decorator's bookkeeping does it, and it writes into no array.)"""
    if isinstance(target, (gast.Tuple, gast.List)):
        return [w for element in target.elts for w in _written_objects(element)]
    if isinstance(target, gast.Starred):
        return _written_objects(target.value)
    return [target] if isinstance(target, gast.Subscript) else []


# --- calls that write into an argument -----------------------------------------------------------
# A call whose result is dropped, that has no rule and is not a known constant (`print`), may
# only be there for what it does to its arguments (`np.copyto(y, x)`, `np.put`, `y.sort()`,
# `np.random.shuffle(y)`). Neither mode can follow that change, so it is refused where the call
# reads a value that depends on the inputs. Two kinds are refused wherever they appear, a result
# assigned or not: an `out=` argument, and `ufunc.at`.

_AT_OPERATORS = {"add": "+", "subtract": "-", "multiply": "*", "divide": "/", "true_divide": "/"}


def refuse_writes_into_arguments(parsed, body, local_names, varied,
                                 handled=lambda statement: False, useful=frozenset()):
    """Raise at the first call in the normal-form `body` that writes into one of its arguments
    and reads a name in `varied`. `handled(statement)` says which expression statements the
    mode differentiates itself (`xs.append(v)`); `useful` holds the names that reach the
    result (the return, which `body` lacks, reads them)."""
    read = loads(body) | set(useful)
    for statement in walk_statements(body):
        own = [statement.test] if isinstance(statement, (gast.If, gast.While)) else \
            [statement.iter] if isinstance(statement, gast.For) else \
            [getattr(statement, "value", None)]
        for part in own:
            if part is None:
                continue
            for call in nodes_of(part, [gast.Call]):
                if not any(isinstance(n, gast.Name) and n.id in varied for n in walk(call)):
                    continue
                _refuse_varied_callee(parsed, call, statement, varied)
                primitive = classify(call, parsed, local_names)
                key = primitive.key
                if is_user_function(key) or is_callable_instance(key):
                    # differentiated from its source, argument writes included; or, its
                    # result dropped, followed in what it writes into its arguments only
                    if _result_dropped(statement, call, read):
                        refuse_state_kept_by(parsed, call, local_names)
                    continue
                where = call if getattr(call, "lineno", None) else statement
                out = _out_argument(call, key)
                if out is not None:
                    _refuse_out(parsed, where, call, out)
                if _is_ufunc_at(key):
                    _refuse_ufunc_at(parsed, where, call, key)
                if _result_dropped(statement, call, read) \
                        and not handled(statement) and not _keeps_its_arguments(key):
                    _refuse_statement_call(parsed, where, call, local_names,
                                           isinstance(statement, gast.Assign))
                if is_random_draw(key):
                    raise parsed.error(
                        where, f"cannot differentiate the random draw `{_callee(parsed, call)}(...)`: its "
                        f"arguments depend on what you differentiate, and s2s_ad treats random "
                        f"draws as constants", hint="draw from fixed parameters and transform "
                        "the sample (`mu + sigma * rng.standard_normal(shape)`; "
                        "`x[rng.permutation(len(x))]` to shuffle)")


def _refuse_varied_callee(parsed, call, statement, varied):
    """`f = make_scaler(a); f(x)`: the function called is a closure whose cells hold values
    that depend on the inputs. Its derivative would treat those cells as constants (a
    silently missing gradient), so the call is refused."""
    func = call.func
    if not (isinstance(func, gast.Name) and func.id in varied):
        return
    raise parsed.error(
        call if getattr(call, "lineno", None) else statement,
        f"cannot differentiate the call of `{parsed.describe(func.id)}`: it is a function "
        f"built from values "
        f"that depend on what you differentiate (a closure returned by a factory, or a "
        f"lambda or nested def of a caller that reads them), and the derivative would treat "
        f"the values it captured as constants",
        hint=f"pass those values to the function as arguments (`def scaler(x, a): ...`, "
             f"called as `scaler(x, a)`), or define it inside this function and call it "
             f"directly")


def _result_dropped(statement, call, read):
    """Is `call` the whole of `statement`, its result never read: a statement of its own, or
    bound to names read nowhere (`_ = np.copyto(y, x)`, which dead-store removal would drop
    with the write it makes)?"""
    if getattr(statement, "value", None) is not call:
        return False
    return isinstance(statement, gast.Expr) or isinstance(statement, gast.Assign) and \
        not stores(statement.targets) & read and \
        all(isinstance(n, gast.Name) for t in statement.targets for n in walk(t) if hasattr(n, "ctx"))


def _keeps_its_arguments(key):
    """A callable that has a rule (a pure function) or is registered as a constant."""
    return key is not None and (rules.adjoint_rule(key) is not None
                                or rules.tangent_rule(key) is not None
                                or rules.is_non_differentiable(key))


def _out_argument(call, key):
    """The expression a call writes its result into: `out=...`, or a ufunc's extra positional
    arguments (`np.multiply(a, b, y)`); None if there is none."""
    for keyword in call.keywords:
        if keyword.arg == "out" and not (isinstance(keyword.value, gast.Constant)
                                         and keyword.value.value is None):
            return keyword.value
    nin = getattr(key, "nin", None)
    if isinstance(nin, int) and type(key).__name__ == "ufunc" and len(call.args) > nin:
        return call.args[nin]
    return None


def _is_ufunc_at(key):
    return getattr(key, "__name__", None) == "at" and \
        type(getattr(key, "__self__", None)).__name__ == "ufunc"


def _callee(parsed, call):
    return parsed.describe_expression(call.func)


def _as_written(parsed, call):
    """The arguments of `call` as the user wrote them (normal form has put some into
    temporaries): (positional texts, {keyword: text}); or None where the source is not there."""
    import ast
    span = span_of(call)
    text = segment(parsed, span) if span else None
    if text is None:
        return None
    written = ast.parse(text, mode="eval").body
    if not isinstance(written, ast.Call) or len(written.args) != len(call.args):
        return None
    return ([ast.unparse(a) for a in written.args],
            {k.arg: ast.unparse(k.value) for k in written.keywords if k.arg is not None})


def _arguments(parsed, call):
    """(positional texts, {keyword: text}) of `call`, as written where that can be read."""
    return _as_written(parsed, call) or (
        [parsed.describe_expression(a) for a in call.args],
        {k.arg: parsed.describe_expression(k.value) for k in call.keywords if k.arg is not None})


def _refuse_out(parsed, where, call, out):
    args, keywords = _arguments(parsed, call)
    position = next((i for i, a in enumerate(call.args) if a is out), None)
    target = keywords.get("out") if position is None else args[position]
    kept = [a for i, a in enumerate(args) if i != position] + \
        [f"{k}={v}" for k, v in keywords.items() if k != "out"]
    callee = _callee(parsed, call)
    written = _written_without_out(parsed, call)
    if written is not None:
        target, without, callee = written
    else:
        without = f"{callee}({', '.join(kept)})"
    raise parsed.error(
        where, f"`{callee}(..., out={target})` writes its result into `{target}` in "
        f"place; the derivative would not see that write",
        hint=f"assign the result instead of passing out=: `{target} = {without}`")


def _written_without_out(parsed, call):
    """(the out array, the call without it, the callee) as the user wrote them, the out array passed by
    keyword or by position (passes/name_out_arguments.py); None where the source is not there."""
    import ast
    span = span_of(call)
    text = segment(parsed, span) if span else None
    written = ast.parse(text, mode="eval").body if text else None
    if not isinstance(written, ast.Call):
        return None
    out = next((k.value for k in written.keywords if k.arg == "out"), None)
    position = parsed.out_positions.get((call.lineno, call.col_offset))
    if out is None and position is not None and len(written.args) > position:
        outs, written.args = written.args[position:], written.args[:position]
        out = outs[0] if len(outs) == 1 else ast.Tuple(elts=outs, ctx=ast.Load())
    if out is None:
        return None
    if isinstance(out, ast.Tuple) and len(out.elts) == 1:
        out = out.elts[0]              # `out=(c,)` of a ufunc of one result: `c = ...`
    written.keywords = [k for k in written.keywords if k.arg != "out"]
    callee = ast.unparse(written.func)
    where = next((k.value for k in written.keywords if k.arg == "where"), None)
    if where is not None:
        # without out=, the entries `where` leaves out are uninitialized: keep `out`'s there
        written.keywords = [k for k in written.keywords if k.arg != "where"]
        return ast.unparse(out), f"np.where({ast.unparse(where)}, {ast.unparse(written)}, " \
                                 f"{ast.unparse(out)})", callee
    return ast.unparse(out), ast.unparse(written), callee


def _refuse_ufunc_at(parsed, where, call, key):
    args = _arguments(parsed, call)[0]
    target = args[0] if args else "y"
    index = args[1] if len(args) > 1 and args[1].isidentifier() else "idx"
    value = args[2] if len(args) > 2 else None
    if value is not None and not value.isidentifier():
        try:
            float(value)                         # a number: the same for every index
        except ValueError:
            value = "v"
    item = value if value is None or not value.isidentifier() else f"{value}[k]"
    name = key.__self__.__name__
    op = _AT_OPERATORS.get(name)
    if value is None:
        update = f"{target}[{index}[k]] = np.{name}({target}[{index}[k]])"
    elif op:
        update = f"{target}[{index}[k]] {op}= {item}"
    else:
        update = f"{target}[{index}[k]] = np.{name}({target}[{index}[k]], {item})"
    unique = f"; with unique indices, `{target}[{index}] {op}= {value}` is enough" \
        if op and value else ""
    raise parsed.error(
        where, f"`{_callee(parsed, call)}(...)` writes into `{target}` in place (a repeated index "
        f"applies again); the derivative would not see that write",
        hint=f"write into `{target}` itself, one index at a time (repeated indices then apply "
             f"again, as with .at): `for k in range(len({index})): {update}`{unique}")


def _refuse_statement_call(parsed, where, call, local_names, assigned=False):
    func = call.func
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
            and func.value.id in local_names:
        written = func.value.id                        # `y.sort()`
    elif call.args and isinstance(call.args[0], gast.Name) and call.args[0].id in local_names:
        written = call.args[0].id                      # `np.copyto(y, x)`
    elif call.args and isinstance(call.args[0], gast.Name) and _is_outer_array(parsed, call.args[0]):
        name = call.args[0].id                         # `np.copyto(G, x)`, G module-level
        raise parsed.error(
            where, f"cannot differentiate `{_callee(parsed, call)}(...)` into `{name}`, a module-level "
            f"variable: s2s_ad reads such a value as a constant, so the gradient through what "
            f"is written would be lost",
            hint=f"write into a local array instead (`buf = np.copy({name})`, then "
                 f"`buf[...] = ...`) and pass it to the functions that read it")
    else:
        written = None
    if written in parsed.temporaries:       # `y.T.sort()`: an expression, not a name to assign
        what = f"`{parsed.describe(written)}`"
        hint = ("compute the new value with a function that returns it and assign that to a "
                "name: s2s_ad follows assignments, not changes made inside a call")
    elif written:
        what = f"`{written}`"
        hint = (f"compute the new value and assign it (`{written} = ...`, or `{written}[...] = "
                f"...`): s2s_ad follows assignments, not changes made inside a call")
    else:
        what, hint = "its arguments", "assign its result to a name instead"
    raise parsed.error(
        where, f"cannot differentiate through `{_callee(parsed, call)}(...)` "
        f"{'whose result is never read' if assigned else 'used as a statement'}: it may change "
        f"{what} in place, which the derivative would not see", hint=hint)


def _is_outer_array(parsed, name):
    """Does the free name `name` hold an array (or a list or dict) of the module?"""
    return is_outer_array(parsed.namespace.get(name.id))


def write_through_view(parsed, variable, definition, shared=None):
    """(message, hint) for an in-place write into `variable`, which the assignment `definition`
    (its own, or that of a value it copies) bound to something that may share memory with
    another array: `shared`, where the caller followed copies to a name the user wrote.
    Every name is the user's: a temporary of normal form (`y.flat[0] = v` writes into
    `_flat = y.flat`) is named by the expression it holds."""
    line = parsed.location(definition)[0]
    bound = parsed.describe_expression(definition.value)
    if variable not in parsed.temporaries:
        if shared is None and isinstance(definition.value, gast.Name):
            shared = parsed.describe(definition.value.id)      # `v = y`: v may be y
        other = f"`{shared}`" if shared and shared != variable else "another array"
        # `a, b = pair(y)` binds `a = _pair[0]`: the copy goes after that line
        unpacked = isinstance(definition.value, gast.Subscript) and isinstance(
            definition.value.value, gast.Name) and definition.value.value.id in parsed.temporaries
        own = isinstance(definition.targets[0], gast.Name) and \
            definition.targets[0].id == variable and not unpacked
        copy = f"`{variable} = {bound}.copy()` at line {line}" if own else \
            f"`{variable} = {variable}.copy()` before the write"
        return (f"cannot differentiate an in-place write into `{variable}`, which may share "
                f"memory with {other} (it was bound at line {line})",
                f"make it a copy first ({copy}), or write into the original array")
    view = parsed.describe(variable)
    base = next((n.id for n in walk(definition.value) if isinstance(n, gast.Name)), None)
    base = parsed.describe(base) if base else None
    if isinstance(definition.value, gast.Attribute) and \
            definition.value.attr not in VIEW_ATTRIBUTES:
        # a field of an object (`r.a[0] = v`): the object cannot be indexed; a copy can
        return (f"cannot differentiate an in-place write into `{view}`, a field of `{base}` "
                f"that may be an array held elsewhere too (the one `{base}` was made of)",
                f"write into a copy (`a = {view}.copy()`, then `a[...] = ...`) and read `a` "
                f"from there on")
    message = (f"cannot differentiate an in-place write into `{view}`, which may share memory "
               f"with {f'`{base}`' if base else 'another array'}")
    value = definition.value
    if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name) and base \
            and not isinstance(value.slice, (gast.Slice, gast.Tuple)):
        # `e["a"][0] = v`: an entry of a list or dict (or a row): take it out, put it back
        return (message, f"take the entry out as a copy, write into that and put it back "
                         f"(`entry = {view}.copy()`, `entry[...] = ...`, `{view} = entry`)")
    return (message, f"write into {f'`{base}`' if base else 'the array'} itself with an index "
                     f"(`{base or 'y'}[...] = ...`), or into a copy (`{view}.copy()`)")
