"""Turn a generated derivative into the text of an importable Python module (what the CLI writes).

The module has, in order: a header (tool version, source file and its sha256, function, options,
and the command that regenerates it), its imports, the user's module and the globals of it the
derivative reads, the helpers (imported from `s2s_ad.runtime`, or copied in with `standalone`),
the generated `vjp_<f>` function (and those of the user functions it calls), and the entry point
`grad_<f>` / `jvp_<f>`, called exactly like the in-memory `s2s_ad.grad(f, wrt=...)` /
`s2s_ad.jvp(f, wrt=...)`.

Every free name of generated code is bound the way the in-memory derivative binds it: first from
`Generated.globals` (modules, runtime helpers, derivatives of callees, closure values), then from
the globals of the module the function was defined in, then from builtins. A name of the written
module denotes one object; when two generated functions need one name for two different objects,
the module cannot be written and the error says so. Globals of the user's module are bound when
the written module is imported (`SCALE = _model.SCALE`), where the in-memory derivative reads them
at each call: reassigning such a global later is seen by one and not the other.
"""
import ast
import builtins
import hashlib
import inspect
import keyword
import math
import os
import re
import sys
import symtable
import types
from dataclasses import dataclass

from . import runtime
from .errors import TransformError

class ModuleWriteError(TransformError):
    """The derivative is fine, but it cannot be written as a module that imports cleanly."""


@dataclass
class Target:
    """The user function a module is written for, and where it lives."""

    function: object            # the user function (decorators unwrapped)
    attr: str                   # its attribute path in the module: 'loss' or 'Model.loss'
    module: types.ModuleType    # the module object it was loaded from
    path: str                   # absolute path of the source file
    display_path: str           # the path as shown in the header (relative to the cwd)
    import_name: str = None     # dotted module name for `pkg.module:func` targets, else None

    @property
    def name(self):
        return self.attr.rsplit(".", 1)[-1]


@dataclass
class Options:
    mode: str = "reverse"       # 'reverse' (grad_<f>) or 'forward' (jvp_<f>)
    wrt: tuple = ()             # parameter names
    single: bool = True         # one wrt given as a name/index (not a list): grads is one value
    standalone: bool = False    # copy runtime helpers in instead of importing s2s_ad
    optimize: bool = True       # recorded only: there are no optimizer passes to switch off yet


def sha256_of(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def entry_name(target, options):
    """`grad_<f>` (reverse) or `jvp_<f>` (forward): the name the written module exposes."""
    return ("grad_" if options.mode == "reverse" else "jvp_") + target.name


def _version():
    from . import __version__
    return __version__


# --- free names ------------------------------------------------------------------------------

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


def _is_builtin(name):
    return hasattr(builtins, name)


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


def _portable_module(module, local_dirs):
    """Can `import module.__name__` be written at the top of the generated file?"""
    name = getattr(module, "__name__", None)
    if not name or sys.modules.get(name) is not module or name == "__main__":
        return False
    if name.startswith("_s2s_ad_"):
        return False
    where = _top_level_dir(module)
    return where is None or where not in local_dirs


def _import_path(obj, local_dirs):
    """(module name, attribute) such that `from module import attribute` gives `obj`, or None."""
    names = []
    for attr in ("__qualname__", "__name__"):
        value = getattr(obj, attr, None)
        if isinstance(value, str) and value.isidentifier() and value not in names:
            names.append(value)
    if not names:
        return None
    candidates = []
    owner = getattr(obj, "__module__", None)
    if isinstance(owner, str) and owner:
        parts = owner.split(".")
        # prefer the shortest public spelling: scipy.special over scipy.special._basic
        for n in range(1, len(parts) + 1):
            if not any(p.startswith("_") for p in parts[:n]) or n == len(parts):
                candidates.append(".".join(parts[:n]))
    candidates += ["numpy", "math", "cmath", "operator"]
    for module_name in candidates:
        module = sys.modules.get(module_name)
        if module is None or not _portable_module(module, local_dirs):
            continue
        for attr in names:
            if getattr(module, attr, None) is obj:
                return module_name, attr
    return None


def _literal(value):
    """Source text that evaluates to an equal value of the same type, or None."""
    if value is None or type(value) in (bool, str, bytes):
        return repr(value)
    if type(value) in (int, float, complex):
        parts = (value.real, value.imag) if isinstance(value, complex) else (value,)
        if not all(math.isfinite(p) for p in parts):
            return None
        return repr(value)
    if type(value) is tuple:
        parts = [_literal(v) for v in value]
        if any(p is None for p in parts):
            return None
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return None


# --- s2s_ad.runtime*, statement by statement (for --standalone) ------------------------------

def _runtime_modules():
    """The modules of helpers generated code calls: s2s_ad.runtime, s2s_ad.runtime_forward."""
    modules = [runtime]
    try:
        from . import runtime_forward
    except ImportError:
        pass
    else:
        modules.append(runtime_forward)
    return modules


_definitions = {}


def _definitions_of(module):
    """{name: source of the top-level statement of `module` that defines it (not imports)}."""
    if module.__name__ not in _definitions:
        text = inspect.getsource(module)
        lines = text.splitlines(True)
        found = {}
        for node in ast.parse(text).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
            else:
                continue
            start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            for name in names:
                if name != "__all__":
                    found[name] = "".join(lines[start - 1:node.end_lineno])
        _definitions[module.__name__] = found
    return _definitions[module.__name__]


def _runtime_home(name, obj):
    """(module, name) of the runtime module that defines `obj` (not imports it), or None."""
    modules = _runtime_modules()
    for module in modules:
        if name in _definitions_of(module) and vars(module).get(name) is obj:
            return module, name
    for module in modules:
        for attr in _definitions_of(module):
            if vars(module).get(attr) is obj:
                return module, attr
    return None


# --- derivatives of callees ------------------------------------------------------------------

def _generated_of(obj):
    """The `Generated` behind a generated derivative function (or a stand-in for one), or None."""
    found = getattr(obj, "__s2s_generated__", None)
    if found is not None:
        return found
    try:
        from . import cache
    except ImportError:
        return None
    table = getattr(cache, "_cache", {})
    if isinstance(obj, getattr(cache, "_Pending", ())):
        return table.get(obj.key)
    if not hasattr(obj, "__s2s_source__"):
        return None
    for generated in list(table.values()):
        if getattr(generated, "function", None) is obj:
            return generated
    return None


@dataclass
class _Unit:
    """One generated function to write, with the module its free names resolve in."""

    generated: object
    name: str                   # its def name in the written module
    module: types.ModuleType
    source: str = ""


@dataclass
class _Binding:
    kind: str        # import, from, runtime, inline, user, literal, builtin, generated
    obj: object
    module: str = ""
    attr: str = ""
    text: str = ""
    owner: object = None     # the module object a 'user' binding reads from
    unit: object = None
    why: str = ""            # who needs it, for error messages


_MISSING = object()


def _module_of(namespace):
    name = namespace.get("__name__")
    module = sys.modules.get(name)
    if module is not None and vars(module) is namespace:
        return module
    for module in list(sys.modules.values()):
        if getattr(module, "__dict__", None) is namespace:
            return module
    return None


class _Writer:
    def __init__(self, generated, target, options):
        self.target = target
        self.options = options
        self.local_dirs = {os.path.dirname(os.path.realpath(target.path))}
        self.top = {}            # name in the written module -> _Binding
        self.units = []
        self.inline = {}         # runtime name -> (line, source)

    def error(self, message, hint=""):
        code = getattr(self.target.function, "__code__", None)
        return ModuleWriteError(f"cannot write a module for {self.target.attr}: {message}",
                                filename=self.target.display_path,
                                lineno=code.co_firstlineno if code else 0, hint=hint)

    def bind(self, name, binding):
        known = self.top.get(name)
        if known is None:
            self.top[name] = binding
            return
        if known.obj is binding.obj:
            return
        if known.kind == "inline" and binding.kind == "inline" and known.attr == binding.attr:
            return
        raise self.error(
            f"the name {name!r} means two different things: {known.why or known.kind} and "
            f"{binding.why or binding.kind}",
            hint="rename one of them in your source, or write the module without --standalone"
            if self.options.standalone else "rename one of them in your source")

    # -- one generated function
    def add_unit(self, generated, name, module):
        for unit in self.units:
            if unit.generated is generated:
                return unit
        source = generated.source
        if generated.name != name:
            source = _rename_def(source, generated.name, name)
        unit = _Unit(generated, name, module, source)
        self.units.append(unit)
        self.bind(name, _Binding("generated", generated, unit=unit,
                                 why=f"the derivative {name}"))
        namespace = vars(module) if module is not None else {}
        for free in free_names(source):
            if free == name:
                continue
            if free in generated.globals:
                binding = self.classify(free, generated.globals[free], True, module)
            elif free in namespace:
                binding = self.classify(free, namespace[free], False, module)
            elif _is_builtin(free):
                binding = _Binding("builtin", getattr(builtins, free), why=f"the builtin {free}")
            else:
                raise self.error(f"its derivative {name} reads the global {free!r}, which "
                                 f"{getattr(module, '__name__', 'its module')} does not define")
            self.bind(free, binding)
        return unit

    def classify(self, name, obj, from_generated, module):
        where = f"{name} (used by the derivative of {self.target.attr})"
        namespace = vars(module) if module is not None else {}
        if inspect.ismodule(obj) and _portable_module(obj, self.local_dirs):
            return _Binding("import", obj, module=obj.__name__, why=f"the module {obj.__name__}")
        if from_generated:
            callee = _generated_of(obj)
            if callee is not None:
                callee_module = _module_of(callee.function.__globals__) \
                    if getattr(callee, "function", None) is not None else None
                unit = self.add_unit(callee, name, callee_module)
                return self.top[unit.name] if unit.name == name else _Binding(
                    "alias", callee, attr=unit.name, why=f"the derivative {unit.name}")
            home = _runtime_home(name, obj)
            if home is not None:
                module_name, attr = home[0].__name__, home[1]
                return _Binding("inline" if self.options.standalone else "runtime", obj,
                                module=module_name, attr=attr, why=f"{module_name}.{attr}")
        if namespace.get(name, _MISSING) is obj:
            return _Binding("user", obj, attr=name, owner=module,
                            why=f"{getattr(module, '__name__', '?')}.{name}")
        if not from_generated:
            return _Binding("user", obj, attr=name, owner=module, why=where)
        for key, value in namespace.items():
            if value is obj and key.isidentifier() and not key.startswith("__"):
                return _Binding("user", obj, attr=key, owner=module,
                                why=f"{getattr(module, '__name__', '?')}.{key}")
        found = _import_path(obj, self.local_dirs)
        if found is not None:
            if found[0].split(".")[0] == "s2s_ad" and self.options.standalone:
                raise self.error(
                    f"its derivative needs {found[0]}.{found[1]} at run time (a call it can "
                    f"only resolve when it runs, such as a function passed as an argument), so "
                    f"it cannot run without s2s_ad",
                    hint="write it without --standalone, or call the function directly")
            return _Binding("from", obj, module=found[0], attr=found[1],
                            why=f"{found[0]}.{found[1]}")
        text = _literal(obj)
        if text is not None:
            return _Binding("literal", obj, text=text, why=f"the constant {name} = {text}")
        raise self.error(
            f"its derivative uses {name!r}, a {type(obj).__name__} from a closure or a default "
            f"value, which a module cannot import",
            hint="make the value a global of the module, or pass it as a parameter")

    def module_binding(self, name, obj, where):
        if not getattr(obj, "__name__", "").startswith("_s2s_ad_") and \
                sys.modules.get(obj.__name__) is obj and obj.__name__ != "__main__":
            return _Binding("import", obj, module=obj.__name__, why=f"the module {obj.__name__}")
        raise self.error(f"{where} is a module that cannot be imported by name")

    # -- standalone: copy runtime definitions and what they use
    def inline_runtime(self):
        modules = {m.__name__: m for m in _runtime_modules()}
        order = {name: i for i, name in enumerate(modules)}
        pending = [(b.module, b.attr) for b in list(self.top.values()) if b.kind == "inline"]
        while pending:
            module_name, attr = pending.pop()
            if (module_name, attr) in self.inline:
                continue
            module = modules[module_name]
            source = _definitions_of(module)[attr]
            line = list(_definitions_of(module)).index(attr)
            self.inline[(module_name, attr)] = ((order[module_name], line), source)
            self.bind(attr, _Binding("inline", vars(module).get(attr), module=module_name,
                                     attr=attr, why=f"the copied helper {attr}"))
            namespace = vars(module)
            for name in free_names(source):
                value = namespace.get(name, _MISSING)
                if value is _MISSING:
                    continue        # a builtin
                home = _runtime_home(name, value)
                if home is not None:
                    binding = _Binding("inline", value, module=home[0].__name__, attr=home[1],
                                       why=f"the copied helper {home[1]}")
                    if home[1] != name:
                        binding.kind = "alias"
                    pending.append((home[0].__name__, home[1]))
                elif inspect.ismodule(value):
                    binding = _Binding("import", value, module=value.__name__,
                                       why=f"the module {value.__name__}")
                else:
                    found = _import_path(value, set())
                    if found is None:
                        raise self.error(f"the copied helper {attr} needs {name!r}, which "
                                         f"cannot be imported")
                    binding = _Binding("from", value, module=found[0], attr=found[1],
                                       why=f"{found[0]}.{found[1]}")
                self.bind(name, binding)


# --- text of the module ----------------------------------------------------------------------

def _fresh(base, taken):
    name = base
    n = 2
    while name in taken or keyword.iskeyword(name) or _is_builtin(name):
        name = f"{base}{n}"
        n += 1
    taken.add(name)
    return name


def _function_params(source, name):
    """(parameter names, {name: default source}) of the def `name` in `source`."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            args = node.args
            params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
            positional = args.posonlyargs + args.args
            defaults = {}
            for a, default in zip(positional[len(positional) - len(args.defaults):],
                                  args.defaults):
                defaults[a.arg] = ast.unparse(default)
            for a, default in zip(args.kwonlyargs, args.kw_defaults):
                if default is not None:
                    defaults[a.arg] = ast.unparse(default)
            return params, defaults
    raise ValueError(f"generated source does not define {name}")


def _rename_def(source, old, new):
    text, count = re.subn(rf"^def {re.escape(old)}\(", f"def {new}(", source, count=1,
                          flags=re.M)
    if count != 1:
        raise ValueError(f"generated source does not define {old}")
    return text


def _wrt_text(options):
    names = ", ".join(repr(n) for n in options.wrt)
    if options.single:
        return names
    return f"({names}{',' if len(options.wrt) == 1 else ''})"


def wrt_flag(options):
    """The `--wrt` value that reproduces `options` ('W,b'; 'x,' for a one-element tuple)."""
    return ",".join(options.wrt) + ("," if not options.single and len(options.wrt) == 1 else "")


def write_module(generated, target, options, *, command, source_base=None):
    """The text of a module exposing `grad_<f>` (or `jvp_<f>`) for `target`.

    `command` is the shell command recorded in the header. `source_base` is the directory the
    module will be written to: the user's file is then found relative to the module's own
    location; None (stdout) records the absolute path.
    """
    writer = _Writer(generated, target, options)
    entry = entry_name(target, options)
    inner = generated.name
    if options.mode == "forward" and inner == entry:
        inner = "_" + entry
    writer.top[entry] = _Binding("entry", object(), why=f"the entry point {entry}")
    writer.add_unit(generated, inner, target.module)

    check_name = None
    if options.mode == "reverse":
        check = getattr(runtime, "check_differentiable", None)
        if check is not None and "check_differentiable" not in writer.top:
            writer.bind("check_differentiable", writer.classify(
                "check_differentiable", check, True, None))
            check_name = "check_differentiable"
    if options.standalone:
        writer.inline_runtime()

    unit_names = set()
    for unit in writer.units:
        unit_names |= set(free_names(unit.source))
    check_source = None
    if options.mode == "reverse" and check_name is None:
        check_name = _fresh("_check_differentiable", set(writer.top) | unit_names)
        check_source, namespace = _check_source(check_name)
        writer.bind(check_name, _Binding("entry", object(), why=f"the helper {check_name}"))
        for free in free_names(check_source):
            if free in namespace:
                writer.bind(free, writer.classify(free, namespace[free], False, None))
            elif not _is_builtin(free):
                raise writer.error(f"the argument check needs {free!r}")

    taken = set(writer.top)
    for unit in writer.units:
        taken |= set(free_names(unit.source))
    # module aliases for the user's module and any other module a callee lives in
    owners = []
    for binding in writer.top.values():
        if binding.kind == "user" and binding.owner is not None and binding.owner not in owners:
            owners.append(binding.owner)
    signature = inspect.signature(target.function)
    defaults_name = None
    if any(p.default is not p.empty and _literal(p.default) is None
           for p in signature.parameters.values()):
        defaults_name = _fresh(f"_{target.name}_defaults", taken)
        if target.module not in owners:
            owners.append(target.module)
    if target.module in owners:
        owners.remove(target.module)
        owners.insert(0, target.module)
    aliases = {}
    for owner in owners:
        stem = re.sub(r"\W", "_", owner.__name__.rsplit(".", 1)[-1]).lstrip("_") or "module"
        aliases[id(owner)] = _fresh("_" + stem, taken)
    out = _header(target, options, command)
    out.append(f'"""{_docstring(target, options, entry)}"""')

    # imports
    bindings = sorted(writer.top.items())
    plain = sorted({(b.module, n) for n, b in bindings if b.kind == "import"})
    froms = sorted({(b.module, b.attr, n) for n, b in bindings if b.kind == "from"})
    runtime_names = sorted({(b.module, b.attr, n) for n, b in bindings if b.kind == "runtime"})
    section = [f"import {m}" if m == n else f"import {m} as {n}" for m, n in plain]
    section += [f"from {m} import {a}" if a == n else f"from {m} import {a} as {n}"
                for m, a, n in froms if not m.startswith("s2s_ad")]
    ours = [(m, a, n) for m, a, n in froms if m.startswith("s2s_ad")]
    if runtime_names or ours:
        section.append("")
        for module in sorted({m for m, _, _ in runtime_names}):
            section += _from_import(module, [a if a == n else f"{a} as {n}"
                                             for m, a, n in runtime_names if m == module])
        section += [f"from {m} import {a}" if a == n else f"from {m} import {a} as {n}"
                    for m, a, n in ours]
    literals = [f"{n} = {b.text}" for n, b in bindings if b.kind == "literal"]
    if literals:
        section += [""] + literals
    if section:
        out += [""] + section

    # the user's module, and the globals of it the derivative reads
    if owners:
        out.append("")
        if not target.import_name and target.module in owners:
            out.append("")
        for owner in owners:
            alias = aliases[id(owner)]
            if owner is target.module:
                if target.import_name:
                    out.append(f"import {target.import_name} as {alias}")
                else:
                    out += _loader_source(alias, target, source_base)
            else:
                out.append(f"import {writer.module_binding('?', owner, 'a module').module} "
                           f"as {alias}")
        for name, b in bindings:
            if b.kind == "user":
                out.append(f"{name} = {aliases[id(b.owner)]}.{b.attr}")
        if defaults_name:
            out.append(f"{defaults_name} = {{name: p.default for name, p in "
                       f"__import__('inspect').signature({aliases[id(target.module)]}."
                       f"{target.attr}).parameters.items()}}")

    # copied helpers
    if writer.inline:
        sources = " and ".join(sorted({m for m, _ in writer.inline}))
        out += ["", "", f"# --- copied from {sources} (s2s_ad {_version()}), so that this "
                        f"file runs without s2s_ad installed ---"]
        previous_simple = False
        for key in sorted(writer.inline, key=lambda k: writer.inline[k][0]):
            text = writer.inline[key][1].rstrip("\n")
            simple = "\n" not in text and not text.startswith(("def ", "class ", "@"))
            out += [""] if simple and previous_simple else ["", ""]
            out.append(text)
            previous_simple = simple
    if check_source:
        out += ["", "", check_source.rstrip("\n")]

    for unit in writer.units:
        out += ["", "", unit.source.rstrip("\n")]
    aliases_of_units = [(n, b.attr) for n, b in bindings if b.kind == "alias"]
    if aliases_of_units:
        out.append("")
        out += [f"{n} = {a}" for n, a in aliases_of_units]
    out += ["", ""]
    params = list(generated.params)
    if options.mode == "reverse":
        out += _grad_wrapper(entry, inner, target, options, signature, params, defaults_name,
                             check_name, taken)
    else:
        out += _jvp_wrapper(entry, inner, target, options, signature, params, defaults_name,
                            writer.units[0].source, taken)
    exported = [entry] + ([inner] if not inner.startswith("_") else [])
    out += ["", "", f"__all__ = {exported!r}"]
    return "\n".join(out) + "\n"


def _header(target, options, command):
    origin = target.display_path
    if target.import_name:
        origin = f"{target.import_name} ({target.display_path})"
    optimize = "yes" if options.optimize else "no"
    return [
        f"# Generated by s2s_ad {_version()}. Do not edit: regenerate with",
        f"#     {command}",
        f"# source:   {origin}",
        f"# sha256:   {sha256_of(target.path)}",
        f"# function: {target.attr}",
        f"# options:  mode={options.mode} wrt={wrt_flag(options)} "
        f"standalone={'yes' if options.standalone else 'no'} optimize={optimize}",
    ]


def _docstring(target, options, entry):
    if options.mode == "reverse":
        how = f"s2s_ad.grad({target.name}, wrt={_wrt_text(options)})"
        what = "Gradient"
    else:
        how = f"s2s_ad.jvp({target.name}, wrt={_wrt_text(options)})"
        what = "Forward-mode derivative"
    return (f"{what} of {target.attr} from {target.display_path}.\n\n"
            f"`{entry}` is called like `{how}`.\n")


def _from_import(module, items):
    line = f"from {module} import {', '.join(items)}"
    if len(line) <= 99:
        return [line]
    return [f"from {module} import ("] + [f"    {item}," for item in items] + [")"]


def _loader_source(alias, target, source_base):
    if source_base is None:
        path_expr = repr(os.path.abspath(target.path))
    else:
        rel = os.path.relpath(os.path.abspath(target.path), os.path.abspath(source_base))
        parts = ", ".join(repr(p) for p in rel.replace(os.sep, "/").split("/"))
        path_expr = f"_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), {parts})"
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(target.path))[0])
    loader = f"_load{alias}"
    return [
        f"def {loader}():",
        f'    """Import {os.path.basename(target.path)} from its path, or reuse it if it is '
        f'already imported."""',
        "    import importlib.util",
        "    import os as _os",
        "    import sys",
        f"    path = {path_expr}",
        f"    name = {stem!r}",
        "    module = sys.modules.get(name)",
        "    if module is not None:",
        "        loaded = getattr(module, '__file__', None)",
        "        if loaded and _os.path.realpath(loaded) == _os.path.realpath(path):",
        "            return module",
        "        name = '_s2s_ad_' + name",
        "    spec = importlib.util.spec_from_file_location(name, path)",
        "    module = importlib.util.module_from_spec(spec)",
        "    sys.modules[name] = module",
        "    directory = _os.path.dirname(path)",
        "    added = directory not in sys.path",
        "    if added:",
        "        sys.path.insert(0, directory)   # so that its own imports of sibling files work",
        "    try:",
        "        spec.loader.exec_module(module)",
        "    except BaseException:",
        "        sys.modules.pop(name, None)",
        "        raise",
        "    finally:",
        "        if added:",
        "            sys.path.remove(directory)",
        "    return module",
        "",
        "",
        f"{alias} = {loader}()",
    ]


_CHECK_FALLBACK = '''def _check_differentiable(name, value):
    dtype = getattr(value, "dtype", None)
    if isinstance(value, (bool, int)) or (
            dtype is not None and not np.issubdtype(dtype, np.inexact)):
        kind = type(value).__name__ if dtype is None else f"array of {dtype}"
        raise TypeError(f"cannot differentiate with respect to {name!r}: it is an integer "
                        f"({kind}); pass a float")
'''


def _check_source(name):
    """The argument check `s2s_ad.grad` does before differentiating, and its namespace."""
    from . import api
    check = getattr(api, "_check_differentiable", None)
    source = inspect.getsource(check) if check is not None else _CHECK_FALLBACK
    if name != "_check_differentiable":
        source = re.sub(r"\b_check_differentiable\b", name, source)
    return source, vars(api)


def _signature_text(signature, defaults_name):
    parts = []
    keyword_only = False
    positional_only = False
    for p in signature.parameters.values():
        if p.kind is p.POSITIONAL_ONLY:
            positional_only = True
        elif positional_only:
            parts.append("/")
            positional_only = False
        if p.kind is p.KEYWORD_ONLY and not keyword_only:
            parts.append("*")
            keyword_only = True
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ValueError("cannot write a wrapper for a function with *args or **kwargs")
        text = p.name
        if p.default is not p.empty:
            literal = _literal(p.default)
            text += "=" + (literal if literal is not None else f"{defaults_name}[{p.name!r}]")
        parts.append(text)
    if positional_only:
        parts.append("/")
    return parts, keyword_only


def _grad_wrapper(entry, inner, target, options, signature, params, defaults_name, check_name,
                  taken):
    parts, _ = _signature_text(signature, defaults_name)
    local = set(params) | taken
    value, grads = _fresh("value", set(local)), _fresh("grads", set(local))
    lines = [f"def {entry}({', '.join(parts)}):",
             f'    """Gradient of {target.name} with respect to {", ".join(options.wrt)}, '
             f'like s2s_ad.grad({target.name}, wrt={_wrt_text(options)})."""']
    for name in options.wrt:
        lines.append(f"    {check_name}({name!r}, {name})")
    lines.append(f"    {value}, {grads} = {inner}({', '.join(params)})")
    lines.append(f"    return {grads}")
    return lines


def _jvp_wrapper(entry, inner, target, options, signature, params, defaults_name, source,
                 taken):
    parts, keyword_only = _signature_text(signature, defaults_name)
    inner_params, inner_defaults = _function_params(source, inner)
    extra = [p for p in inner_params if p not in params]
    if extra:
        if not keyword_only:
            parts.append("*")
        parts += [p + ("=" + inner_defaults[p] if p in inner_defaults else "") for p in extra]
    call = params + [f"{p}={p}" for p in extra]
    return [f"def {entry}({', '.join(parts)}):",
            f'    """Value of {target.name} and its derivative along {", ".join(extra)}, '
            f'like s2s_ad.jvp({target.name}, wrt={_wrt_text(options)})."""',
            f"    return {inner}({', '.join(call)})"]
