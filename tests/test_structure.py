"""The package's layering, read from its source with `ast` (imports inside functions count):
no import cycle among s2s_ad's modules, and the modules generated code calls when it runs
import nothing from the transformer (run-time dispatch gets it by registration)."""
import ast
from pathlib import Path

import pytest

import s2s_ad

PACKAGE = Path(s2s_ad.__file__).resolve().parent
CHECKOUT = Path(__file__).resolve().parent.parent      # the repository: pyproject.toml, s2s_ad/
# what generated derivatives call (the package s2s_ad.runtime, every module of it, and the
# dispatch), and what those may import: themselves and the errors
RUNTIME_PACKAGE = "s2s_ad.runtime"
RUNTIME_BESIDES = {"s2s_ad.dispatch"}
SHARED_WITH_RUNTIME = {"s2s_ad.errors"}


def _module_name(path, root=PACKAGE.parent):
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path, name, known):
    """The s2s_ad modules `path` (module `name`) imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name in known}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parent + ([node.module] if node.module else []))
            for alias in node.names:
                target = f"{base}.{alias.name}"
                found.add(target if target in known else base)
    return {m for m in found if m in known and m != name}


def _graph():
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: _imports(path, name, set(paths)) for name, path in paths.items()}


def _cycle(graph):
    """One import cycle as a list of modules, or None."""
    state = {}

    def visit(module, stack):
        state[module] = "open"
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                found = visit(target, stack + [target])
                if found:
                    return found
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module, [module])
            if found:
                return found
    return None


def test_no_import_cycle_among_the_package_modules():
    assert _cycle(_graph()) is None, " -> ".join(_cycle(_graph()))


def _run_time_modules(graph):
    return {m for m in graph if m == RUNTIME_PACKAGE or m.startswith(RUNTIME_PACKAGE + ".")} \
        | RUNTIME_BESIDES


def test_run_time_modules_import_nothing_from_the_transformer():
    graph = _graph()
    runtime = _run_time_modules(graph)
    assert {"s2s_ad.runtime", "s2s_ad.runtime.arrays", "s2s_ad.runtime.checks"} <= runtime
    allowed = runtime | SHARED_WITH_RUNTIME | {"s2s_ad"}
    reached = {m: graph[m] - allowed for m in runtime}
    assert not any(reached.values()), reached


def test_the_checks_see_a_cycle_and_a_layering_breach():
    """The two tests above can fail: a made-up graph with both faults is caught."""
    graph = {"s2s_ad.a": {"s2s_ad.b"}, "s2s_ad.b": {"s2s_ad.a"}}
    assert _cycle(graph) == ["s2s_ad.a", "s2s_ad.b", "s2s_ad.a"]
    assert "s2s_ad.pipeline" in _graph()["s2s_ad.engine"]


def test_every_package_ships_in_the_wheel():
    """pyproject.toml lists the packages by hand: a new folder left out would install a wheel
    that cannot import; the checkout's folders are compared, not the installed ones."""
    import tomllib                                    # Python 3.11 and later, as required
    config = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    folders = {_module_name(p, CHECKOUT) for p in (CHECKOUT / "s2s_ad").rglob("__init__.py")}
    assert folders | {"s2s_ad.templates"} == listed
