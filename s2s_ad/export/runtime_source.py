"""The runtime's own definitions, statement by statement: where a helper that generated code
calls is defined, and its source, which `--standalone` modules copy in."""
import ast
import inspect

from .. import runtime, runtime_forward


def runtime_modules():
    """The modules of helpers generated code calls: s2s_ad.runtime, s2s_ad.runtime_forward."""
    return [runtime, runtime_forward]


_definitions = {}


def definitions_of(module):
    """{name: source of the top-level statement of `module` that defines it (not imports)}."""
    if module.__name__ not in _definitions:
        _definitions[module.__name__] = _read_definitions(inspect.getsource(module))
    return _definitions[module.__name__]


def _read_definitions(text):
    lines = text.splitlines(True)
    found = {}
    for node in ast.parse(text).body:
        names = _defined_names(node)
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        for name in names:
            if name != "__all__":
                found[name] = "".join(lines[start - 1:node.end_lineno])
    return found


def _defined_names(statement):
    """The names a top-level def, class or assignment defines (none for other statements)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, (ast.Assign, ast.AnnAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return [t.id for t in targets if isinstance(t, ast.Name)]
    return []


def runtime_home(name, obj):
    """(module, name) of the runtime module that defines `obj` (not imports it), or None."""
    modules = runtime_modules()
    for module in modules:
        if name in definitions_of(module) and vars(module).get(name) is obj:
            return module, name
    for module in modules:
        for attr in definitions_of(module):
            if vars(module).get(attr) is obj:
                return module, attr
    return None


def definition_position(module, name):
    """Where the definition of `name` stands among `module`'s definitions (copies keep order)."""
    return list(definitions_of(module)).index(name)
