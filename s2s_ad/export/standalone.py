"""`--standalone`: the runtime helpers a written module calls are copied into it, with the
helpers they call in turn, so that it runs without s2s_ad installed."""
import inspect

from .bindings import Binding
from .names import free_names, import_path
from .runtime_source import definition_position, definitions_of, runtime_home, runtime_modules

_MISSING = object()


def copy_runtime(binder):
    """Fill `binder.inline` with the source of every runtime definition bound 'inline', and
    bind the names those definitions read."""
    modules = {m.__name__: m for m in runtime_modules()}
    order = {name: i for i, name in enumerate(modules)}
    pending = [(b.module, b.attr) for b in list(binder.top.values()) if b.kind == "inline"]
    while pending:
        module_name, attr = pending.pop()
        if (module_name, attr) in binder.inline:
            continue
        module = modules[module_name]
        source = definitions_of(module)[attr]
        position = (order[module_name], definition_position(module, attr))
        binder.inline[(module_name, attr)] = (position, source)
        binder.bind(attr, Binding("inline", vars(module).get(attr), module=module_name,
                                  attr=attr, why=f"the copied helper {attr}"))
        for name in free_names(source):
            value = vars(module).get(name, _MISSING)
            if value is _MISSING:
                continue        # a builtin
            binder.bind(name, _needed_by_copy(binder, attr, name, value, pending))


def _needed_by_copy(binder, helper, name, value, pending):
    """The binding of a global `name` that the copied `helper` reads; a runtime definition it
    reads is queued on `pending` to be copied too."""
    home = runtime_home(name, value)
    if home is not None:
        pending.append((home[0].__name__, home[1]))
        return Binding("inline" if home[1] == name else "alias", value,
                       module=home[0].__name__, attr=home[1], why=f"the copied helper {home[1]}")
    if inspect.ismodule(value):
        return Binding("import", value, module=value.__name__, why=f"the module {value.__name__}")
    found = import_path(value, set())
    if found is None:
        raise binder.error(f"the copied helper {helper} needs {name!r}, which cannot be "
                           f"imported")
    return Binding("from", value, module=found[0], attr=found[1], why=f"{found[0]}.{found[1]}")
