"""RefuseUnsupported: reject constructs the transformer cannot differentiate, with a clear error."""
import gast

from ..traversal import nodes_of, preorder

_REFUSED = {
    gast.Yield: ("generators (`yield`) cannot be differentiated", "return a value instead of yielding"),
    gast.YieldFrom: ("generators (`yield from`) cannot be differentiated", "return a value instead"),
    gast.Await: ("`await` cannot be differentiated", "write a plain synchronous function"),
    gast.Try: ("`try` blocks are not supported", "move the try/except outside the differentiated function"),
    gast.Raise: ("`raise` is not supported inside a differentiated function",
                 "check inputs before calling the derivative"),
    gast.Global: ("`global` declarations are not supported", "pass the value as an argument and return the new value"),
    gast.Nonlocal: ("`nonlocal` declarations are not supported", "pass the value as an argument and return the new value"),
    gast.Delete: ("`del` is not supported", "let the name go out of scope, or rebind it"),
    gast.Match: ("`match` statements are not supported", "write the cases as if/elif"),
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


# builtins whose argument is code (or scope) as data: invisible to a source transformation
_CODE_FROM_TEXT = {"eval", "exec", "compile", "globals", "locals", "vars"}
_BUILTIN = object()


class RefuseUnsupported:
    """Raise a TransformError at the first construct the transformer does not handle."""

    def __init__(self, parsed, allowed_with=()):
        self.parsed = parsed
        self.allowed_with = allowed_with     # predicates: is this `with` item supported?

    def check(self):
        node = self.parsed.node
        args = node.args
        if args.vararg is not None or args.kwarg is not None:
            culprit = args.vararg or args.kwarg
            raise self.parsed.error(culprit, "functions with *args or **kwargs cannot be "
                                    "differentiated directly",
                                    hint="name each parameter, or differentiate a wrapper with named parameters")
        checks = {gast.FunctionDef: self.check_def, gast.Lambda: self.check_lambda,
                  gast.With: self.check_with, gast.Call: self.check_call}
        for inner in preorder(node.body, prune=(gast.Assert,)):    # asserts are dropped
            message, hint = _REFUSED.get(type(inner), ("", ""))
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

    def check_def(self, node):
        raise self.parsed.error(node, "a nested `def` is supported only when it is defined at the "
                                "top of the function and only called (not stored or passed on)",
                                hint="call it directly, or define the helper at module level")

    def check_lambda(self, node):
        raise self.parsed.error(node, "a lambda is supported inside a differentiated function only "
                                "when bound to a name and called (`sq = lambda v: v * v`)",
                                hint="bind it to a name and call it, or define the helper with `def`")

    def check_with(self, node):
        for item in node.items:
            if not any(allowed(item) for allowed in self.allowed_with):
                raise self.parsed.error(node, "`with` blocks are not supported (except s2s_ad.no_grad())",
                                        hint="move the context manager outside the differentiated function")

    def check_call(self, node):
        func = node.func
        if isinstance(func, gast.Name) and func.id in _CODE_FROM_TEXT \
                and self.parsed.namespace.get(func.id, _BUILTIN) is _BUILTIN:
            raise self.parsed.error(node, f"`{func.id}(...)` runs code the transformer cannot "
                                    f"read, so its gradient would be silently wrong",
                                    hint="write the expression out in the function")
