"""The functions a function calls as `module.name(...)`, `module` one of the user's: such a
name may be rebound after the derivative is made (`layers.act = np.sin`), and the derivative
is then made again (pipeline.Generated.module_attributes, checked by cache.inlined_current),
so the call is read anew. A library's module (NumPy's, the standard library's) is not
followed: its functions are not rebound between calls."""
import sys
import types

import gast

_LIBRARIES = frozenset({"numpy", "scipy", "cupy", "cupyx", "dask", "s2s_ad", "autograd", "jax",
                        "torch"})


def module_attributes_called(node, resolve):
    """(module's namespace, name, value now) for each `module.name(...)` or
    `package.module.name(...)` the function `node` calls; `resolve(name)` gives what a free
    name refers to (LookupError if nothing)."""
    found = {}
    for call in (n for n in gast.walk(node) if isinstance(n, gast.Call)):
        module = _module_of(call.func, resolve)
        if module is not None and not _library(module):
            namespace = vars(module)
            attr = call.func.attr
            found[(id(namespace), attr)] = (namespace, attr, namespace.get(attr))
    return tuple(found.values())


def _module_of(func, resolve):
    """The module whose attribute `func` (an Attribute of Names) names, or None."""
    if not isinstance(func, gast.Attribute):
        return None
    if isinstance(func.value, gast.Name):
        try:
            owner = resolve(func.value.id)
        except LookupError:
            return None
    else:
        parent = _module_of(func.value, resolve)
        owner = getattr(parent, func.value.attr, None) if parent is not None else None
    return owner if isinstance(owner, types.ModuleType) else None


def _library(module):
    top = (module.__name__ or "").partition(".")[0]
    return top in sys.stdlib_module_names or top in _LIBRARIES
