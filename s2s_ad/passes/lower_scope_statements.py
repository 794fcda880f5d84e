"""LowerScopeStatements: statements that only bind or unbind names, with nothing to
differentiate, leave the body.

- `import m`, `import m as n`, `from m import a as b` inside the function bind their names as
  module globals would (the derivative code reads them from its globals), where the function
  binds those names nowhere else (no other import, assignment, or nested function reading them);
- `global G` where the function only reads G: a read of the module's G, as without it;
- `del a, b` of local names: the names are not read again in a program that runs, and the
  derivative keeps what its backward pass needs anyway.

Anything else of these kinds stays, for RefuseUnsupported to refuse with its message.
"""
import importlib

import gast

from ..analysis.activity import assigned_names
from ..traversal import rewrite_blocks, walk


class LowerScopeStatements:
    """`run(body)` returns (body, {name: object the generated code needs bound})."""

    def __init__(self, parsed):
        self.parsed = parsed

    def run(self, body):
        assigned = _bound_elsewhere(body) | _imported_twice(body) | _read_by_nested_functions(body)
        bound = {}
        body = rewrite_blocks(body, lambda s: [] if self._lowered(s, assigned, bound) else [s])
        return body, bound

    def _lowered(self, statement, assigned, bound):
        """Does `statement` leave the body (its names bound into `bound`)?"""
        if isinstance(statement, gast.Delete):
            return all(isinstance(t, gast.Name) for t in statement.targets)
        if isinstance(statement, gast.Global):
            return not set(statement.names) & assigned
        if isinstance(statement, (gast.Import, gast.ImportFrom)):
            imported = self._imported(statement)
            if imported is None or set(imported) & assigned:
                return False
            bound.update(imported)
            self.parsed.namespace.update(imported)
            return True
        return False

    @staticmethod
    def _imported(statement):
        """{name: object} the import binds, or None where it cannot be imported here."""
        try:
            if isinstance(statement, gast.Import):
                modules = {alias: importlib.import_module(alias.name) for alias in statement.names}
                return {alias.asname or alias.name.split(".")[0]: module if alias.asname else
                        importlib.import_module(alias.name.split(".")[0])
                        for alias, module in modules.items()}
            if statement.level or any(alias.name == "*" for alias in statement.names):
                return None
            module = importlib.import_module(statement.module)
            return {alias.asname or alias.name: _attribute_or_submodule(module, alias.name)
                    for alias in statement.names}
        except (ImportError, AttributeError):
            return None


def _attribute_or_submodule(module, name):
    if hasattr(module, name):
        return getattr(module, name)
    return importlib.import_module(f"{module.__name__}.{name}")


def _import_names(statement):
    return [alias.asname or alias.name.split(".")[0] for alias in statement.names]


def _imported_twice(body):
    """Names two import statements bind: which one holds depends on the path taken."""
    seen, twice = set(), set()
    for node in walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(node, (gast.Import, gast.ImportFrom)):
            for name in _import_names(node):
                (twice if name in seen else seen).add(name)
    return twice


def _read_by_nested_functions(body):
    """Names nested functions and lambdas read: compiled on their own, they read the module's
    globals, where an import inside this function does not put its names."""
    return {n.id for node in walk(gast.Module(body=body, type_ignores=[]))
            if isinstance(node, (gast.FunctionDef, gast.Lambda))
            for n in walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def _bound_elsewhere(body):
    """The names the function binds by assignment, loops, defs or `del` (what an import or a
    `global` must not share)."""
    names = set(assigned_names(body))
    for node in walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(node, gast.FunctionDef):
            names.add(node.name)
        elif isinstance(node, gast.Delete):
            names |= {t.id for t in node.targets if isinstance(t, gast.Name)}
    return names
