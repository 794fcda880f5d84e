"""The runtime's own definitions, statement by statement: where a helper that generated code
calls is defined, and its source, which `--standalone` modules copy in."""
import ast
import importlib
import inspect
import pkgutil

from .. import definitions, runtime

_modules = []


def runtime_modules():
    """The modules of the package s2s_ad.runtime, whose helpers generated code calls, and
    s2s_ad.definitions (NumPy functions written in Python, which derivatives call too), each
    after the modules it imports from: copies keep this order, so a module-level statement that
    reads another module's definition comes after it."""
    if not _modules:
        package = [importlib.import_module(f"{runtime.__name__}.{info.name}")
                   for info in pkgutil.iter_modules(runtime.__path__)] + [definitions]
        _modules.extend(_imported_first(package))
    return list(_modules)


def _imported_first(modules):
    by_name = {m.__name__: m for m in modules}
    ordered = []

    def place(module):
        if module in ordered:
            return
        for name in sorted(_imports_from(module, by_name)):
            place(by_name[name])
        ordered.append(module)

    for module in modules:
        place(module)
    return ordered


def _imports_from(module, names):
    """The names among `names` of the modules whose definitions `module` imports."""
    found = set()
    for value in vars(module).values():
        owner = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__", None)
        if owner in names and owner != module.__name__:
            found.add(owner)
    return found


def import_home(module, attr):
    """The module a written module imports the runtime definition `module.attr` from: the
    package s2s_ad.runtime where it offers it, so that a written module does not depend on
    which of the package's modules defines a helper."""
    if getattr(runtime, attr, None) is vars(module).get(attr):
        return runtime.__name__
    return module.__name__


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
