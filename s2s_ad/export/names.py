"""Names in a written module: the free names of generated code, fresh names that clash with
nothing, and how a value can be spelled there (an import, or a literal)."""
import builtins
import keyword
import math
import os
import re
import symtable
import sys


def free_names(source):
    """Names that `source` (module-level code, usually one `def`) reads but does not define."""
    table = symtable.symtable(source, "<generated>", "exec")
    defined = {s.get_name() for s in table.get_symbols()
               if s.is_assigned() or s.is_imported() or s.is_namespace()}
    found = []

    def visit(t, top):
        for symbol in t.get_symbols():
            name = symbol.get_name()
            if not symbol.is_referenced() or name in defined or name in found:
                continue
            if top or symbol.is_global():
                found.append(name)
        for child in t.get_children():
            visit(child, False)

    visit(table, True)
    return found


def is_builtin(name):
    return hasattr(builtins, name)


def fresh_name(base, taken):
    """`base`, or `base2`, `base3`, ...: the first that is not in `taken` (which then holds it)."""
    name = base
    n = 2
    while name in taken or keyword.iskeyword(name) or is_builtin(name):
        name = f"{base}{n}"
        n += 1
    taken.add(name)
    return name


def rename_def(source, old, new):
    text, count = re.subn(rf"^def {re.escape(old)}\(", f"def {new}(", source, count=1,
                          flags=re.M)
    if count != 1:
        raise ValueError(f"generated source does not define {old}")
    return text


# --- where a value can be imported from ------------------------------------------------------

def _top_level_dir(module):
    """The directory a module's top-level package is found in, or None for builtins."""
    top = sys.modules.get(module.__name__.partition(".")[0], module)
    origin = getattr(top, "__file__", None)
    if not origin:
        return None
    origin = os.path.realpath(origin)
    if os.path.basename(origin) == "__init__.py":
        origin = os.path.dirname(origin)
    return os.path.dirname(origin)


def portable_module(module, local_dirs):
    """Can `import module.__name__` be written at the top of the generated file?"""
    name = getattr(module, "__name__", None)
    if not name or sys.modules.get(name) is not module or name == "__main__":
        return False
    if name.startswith("_s2s_ad_"):
        return False
    where = _top_level_dir(module)
    return where is None or where not in local_dirs


def module_of(namespace):
    """The module whose globals are `namespace`, or None."""
    name = namespace.get("__name__")
    module = sys.modules.get(name)
    if module is not None and vars(module) is namespace:
        return module
    for module in list(sys.modules.values()):
        if getattr(module, "__dict__", None) is namespace:
            return module
    return None


def import_path(obj, local_dirs):
    """(module name, attribute) such that `from module import attribute` gives `obj`, or None."""
    names = []
    for attr in ("__qualname__", "__name__"):
        value = getattr(obj, attr, None)
        if isinstance(value, str) and value.isidentifier() and value not in names:
            names.append(value)
    if not names:
        return None
    for module_name in _candidate_modules(obj):
        module = sys.modules.get(module_name)
        if module is None or not portable_module(module, local_dirs):
            continue
        for attr in names:
            if getattr(module, attr, None) is obj:
                return module_name, attr
    return None


def _candidate_modules(obj):
    """The modules `obj` may be imported from, the best spelling first."""
    candidates = []
    owner = getattr(obj, "__module__", None)
    if isinstance(owner, str) and owner:
        parts = owner.split(".")
        # prefer the shortest public spelling: scipy.special over scipy.special._basic
        for n in range(1, len(parts) + 1):
            if not any(p.startswith("_") for p in parts[:n]) or n == len(parts):
                candidates.append(".".join(parts[:n]))
    return candidates + ["numpy", "math", "cmath", "operator"]


def literal(value):
    """Source text that evaluates to an equal value of the same type, or None."""
    if value is None or type(value) in (bool, str, bytes):
        return repr(value)
    if type(value) in (int, float, complex):
        parts = (value.real, value.imag) if isinstance(value, complex) else (value,)
        if not all(math.isfinite(p) for p in parts):
            return None
        return repr(value)
    if type(value) is tuple:
        parts = [literal(v) for v in value]
        if any(p is None for p in parts):
            return None
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return None
