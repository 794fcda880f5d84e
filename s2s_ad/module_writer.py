"""Turn a generated derivative into the text of an importable Python module (what the CLI writes).

The module has, in order: a header (tool version, source file and its sha256, function, options,
and the command that regenerates it), its imports, the user's module and the globals of it the
derivative reads, the helpers (imported from `s2s_ad.runtime`, or copied in with `standalone`),
the generated `vjp_<f>` / `jvp_<f>` function, and the entry point `grad_<f>` / `jvp_<f>` that is
called exactly like the in-memory `s2s_ad.grad(f, wrt=...)` / `s2s_ad.jvp(f, wrt=...)`.

Every free name of the generated code is bound the way the in-memory derivative binds it: first
from `Generated.globals` (modules, runtime helpers, closure values), then from the user's module
globals, then from builtins.
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
from dataclasses import dataclass, field

from . import runtime
from .errors import TransformError

RUNTIME = runtime.__name__


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
    spec: str = ""              # the target as the user typed it (normalized)

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
    extra: dict = field(default_factory=dict)


def sha256_of(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def entry_name(target, options):
    """`grad_<f>` (reverse) or `jvp_<f>` (forward): the name the written module exposes."""
    return ("grad_" if options.mode == "reverse" else "jvp_") + target.name


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
            if not symbol.is_referenced():
                continue
            if top:
                is_free = not (symbol.is_assigned() or symbol.is_imported()
                               or symbol.is_namespace())
            else:
                is_free = symbol.is_global()
            if is_free and name not in defined and name not in found:
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
    """Can `import module.__name__` be written in the generated file and work elsewhere?"""
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
            prefix = ".".join(parts[:n])
            if not any(p.startswith("_") for p in parts[:n]) or n == len(parts):
                candidates.append(prefix)
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
    if value is None or isinstance(value, (bool, str, bytes)):
        return repr(value)
    if isinstance(value, (int, float, complex)) and type(value) in (int, float, complex):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, complex) and not (math.isfinite(value.real)
                                               and math.isfinite(value.imag)):
            return None
        return repr(value)
    if type(value) is tuple:
        parts = [_literal(v) for v in value]
        if any(p is None for p in parts):
            return None
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    return None


def _runtime_attr(obj):
    """The public name of `obj` in s2s_ad.runtime, when it is a helper defined there."""
    if getattr(obj, "__module__", None) != RUNTIME:
        return None
    for attr in (getattr(obj, "__name__", None),) + tuple(runtime.__all__):
        if attr and getattr(runtime, attr, None) is obj:
            return attr
    return None


@dataclass
class Binding:
    kind: str        # 'import', 'from', 'runtime', 'inline', 'user', 'literal'
    name: str        # the name in the written module
    module: str = ""
    attr: str = ""
    text: str = ""


class _Writer:
    def __init__(self, generated, target, options, *, command, source_base):
        self.generated = generated
        self.target = target
        self.options = options
        self.command = command
        self.source_base = source_base
        self.user_globals = vars(target.module)
        self.local_dirs = {os.path.dirname(os.path.realpath(target.path))}
        self.bindings = {}
        self.inline = {}          # runtime helper name -> source
        self.taken = set()

    # -- errors
    def error(self, message, hint=""):
        function = self.target.function
        code = getattr(function, "__code__", None)
        return ModuleWriteError(message, filename=self.target.display_path,
                                lineno=code.co_firstlineno if code else 0, hint=hint)

    # -- classification of one free name
    def classify(self, name, obj, from_generated):
        if inspect.ismodule(obj) and _portable_module(obj, self.local_dirs):
            return Binding("import", name, module=obj.__name__)
        if from_generated:
            attr = _runtime_attr(obj)
            if attr is not None:
                return Binding("inline" if self.options.standalone else "runtime", name,
                               module=RUNTIME, attr=attr)
        if self.user_globals.get(name, _MISSING) is obj:
            return Binding("user", name, attr=name)
        if from_generated:
            for key, value in self.user_globals.items():
                if value is obj and key.isidentifier() and not key.startswith("__"):
                    return Binding("user", name, attr=key)
            where = _import_path(obj, self.local_dirs)
            if where is not None:
                return Binding("from", name, module=where[0], attr=where[1])
            text = _literal(obj)
            if text is not None:
                return Binding("literal", name, text=text)
            raise self.error(
                f"cannot write a module for {self.target.attr}: its derivative uses "
                f"{name!r} (a {type(obj).__name__} from a closure or rule), which the written "
                f"module cannot import",
                hint="make the value a global of the module, or pass it as a parameter")
        return Binding("user", name, attr=name)

    def bind_free_names(self, names, generated_globals):
        for name in names:
            if name in self.bindings:
                continue
            if name in generated_globals:
                self.bindings[name] = self.classify(name, generated_globals[name], True)
            elif name in self.user_globals:
                value = self.user_globals[name]
                if inspect.ismodule(value) and _portable_module(value, self.local_dirs):
                    self.bindings[name] = Binding("import", name, module=value.__name__)
                else:
                    self.bindings[name] = Binding("user", name, attr=name)
            elif _is_builtin(name):
                continue
            else:
                raise self.error(
                    f"cannot write a module for {self.target.attr}: its derivative reads the "
                    f"global {name!r}, which {self.target.display_path} does not define")

    # -- standalone: copy runtime helpers and what they call
    def inline_helpers(self):
        pending = [b.attr for b in self.bindings.values() if b.kind == "inline"]
        while pending:
            attr = pending.pop()
            if attr in self.inline:
                continue
            obj = getattr(runtime, attr)
            source = inspect.getsource(obj)
            self.inline[attr] = source
            for name in free_names(source):
                if name in self.inline or _is_builtin(name) and name not in vars(runtime):
                    continue
                value = vars(runtime).get(name, _MISSING)
                if value is _MISSING:
                    continue
                if callable(value) and getattr(value, "__module__", None) == RUNTIME \
                        and not inspect.ismodule(value):
                    pending.append(name)
                    continue
                existing = self.bindings.get(name)
                if existing is not None:
                    if existing.kind == "inline" and existing.attr == name:
                        continue
                    raise self.error(
                        f"cannot write a standalone module for {self.target.attr}: the copied "
                        f"helper {attr} needs the name {name!r}, which the derivative also uses "
                        f"for something else", hint="write it without --standalone")
                if inspect.ismodule(value):
                    self.bindings[name] = Binding("import", name, module=value.__name__)
                else:
                    where = _import_path(value, set())
                    if where is None:
                        text = _literal(value)
                        if text is None:
                            raise self.error(f"cannot copy s2s_ad.runtime.{attr}: it needs "
                                             f"{name!r}, which cannot be imported")
                        self.bindings[name] = Binding("literal", name, text=text)
                    else:
                        self.bindings[name] = Binding("from", name, module=where[0],
                                                      attr=where[1])
        # an alias like `zeros_like = np.zeros_like` in runtime.py is imported, not copied
        for name, binding in list(self.bindings.items()):
            if binding.kind == "inline" and binding.attr not in self.inline:
                raise AssertionError(binding)


_MISSING = object()


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
    tree = ast.parse(source)
    for node in tree.body:
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


def write_module(generated, target, options, *, command, source_base=None):
    """The text of a module exposing `grad_<f>` (or `jvp_<f>`) for `target`.

    `command` is the shell command recorded in the header. `source_base` is the directory the
    module will be written to: the user's file is then found relative to the module's own
    location; None (stdout) records the absolute path.
    """
    writer = _Writer(generated, target, options, command=command, source_base=source_base)
    entry = entry_name(target, options)
    inner = generated.name
    source = generated.source
    if options.mode == "forward" and inner == entry:
        inner = "_" + entry
        source = _rename_def(source, generated.name, inner)

    names = free_names(source)
    writer.bind_free_names(names, generated.globals)
    check_name = None
    if options.mode == "reverse":
        check = getattr(runtime, "check_differentiable", None)
        if check is not None:
            writer.bindings.setdefault("check_differentiable", writer.classify(
                "check_differentiable", check, True))
            check_name = "check_differentiable"
    if options.standalone:
        writer.inline_helpers()

    # names defined at the top level of the written module
    taken = set(writer.bindings) | set(writer.inline) | set(names) | {inner, entry}
    for clash in (inner, entry):
        if clash in writer.bindings or clash in writer.inline:
            raise writer.error(f"cannot write a module for {target.attr}: the name {clash!r} "
                               f"is needed both for the derivative and for a global it reads")
    for attr in writer.inline:
        binding = writer.bindings.get(attr)
        if binding is not None and not (binding.kind == "inline" and binding.attr == attr):
            raise writer.error(f"cannot write a standalone module for {target.attr}: the "
                               f"copied helper {attr} collides with the global {attr!r}",
                               hint="write it without --standalone")
    user_alias = _fresh("_" + re.sub(r"\W", "_", target.module.__name__.rsplit(".", 1)[-1])
                        .lstrip("_"), taken)
    needs_user = any(b.kind == "user" for b in writer.bindings.values())
    params = list(generated.params)
    signature = inspect.signature(target.function)
    defaults_name = None
    if any(p.default is not p.empty and _literal(p.default) is None
           for p in signature.parameters.values()):
        needs_user = True
        defaults_name = _fresh(f"_{target.name}_defaults", taken)
    if check_name is None and options.mode == "reverse":
        check_name = _fresh("_check_differentiable", taken)
        check_source = _check_source(check_name)
    else:
        check_source = None

    out = []
    out += _header(target, options, command)
    out.append(f'"""{_docstring(target, options, entry)}"""')
    out.append("")

    # imports
    plain = sorted({(b.module, b.name) for b in writer.bindings.values() if b.kind == "import"})
    froms = sorted({(b.module, b.attr, b.name) for b in writer.bindings.values()
                    if b.kind == "from"})
    runtime_names = sorted({(b.attr, b.name) for b in writer.bindings.values()
                            if b.kind == "runtime"})
    for module, name in plain:
        out.append(f"import {module}" if module == name else f"import {module} as {name}")
    for module, attr, name in froms:
        out.append(f"from {module} import {attr}" if attr == name
                   else f"from {module} import {attr} as {name}")
    if runtime_names:
        out.append("")
        out += _from_import(RUNTIME, [a if a == n else f"{a} as {n}" for a, n in runtime_names])
    for b in sorted((b for b in writer.bindings.values() if b.kind == "literal"),
                    key=lambda b: b.name):
        out.append(f"{b.name} = {b.text}")

    # the user's module, and the globals of it the derivative reads
    if needs_user:
        out.append("")
        if target.import_name:
            out.append(f"import {target.import_name} as {user_alias}")
        else:
            out += _loader_source(user_alias, target, source_base)
        for b in sorted((b for b in writer.bindings.values() if b.kind == "user"),
                        key=lambda b: b.name):
            out.append(f"{b.name} = {user_alias}.{b.attr}")
        if defaults_name:
            out.append(f"{defaults_name} = {{name: p.default for name, p in "
                       f"__import__('inspect').signature({user_alias}.{target.attr})"
                       f".parameters.items()}}")

    # copied helpers
    if writer.inline:
        out.append("")
        out.append("")
        out.append(f"# --- helpers copied from s2s_ad.runtime (s2s_ad {_version()}), "
                   f"so this file runs without s2s_ad ---")
        order = sorted(writer.inline, key=lambda a: inspect.getsourcelines(getattr(runtime, a))[1])
        for attr in order:
            out.append("")
            out.append("")
            out.append(writer.inline[attr].rstrip("\n"))
        for b in sorted(writer.bindings.values(), key=lambda b: b.name):
            if b.kind == "inline" and b.name != b.attr:
                out.append(f"{b.name} = {b.attr}")
    if check_source:
        out.append("")
        out.append("")
        out.append(check_source.rstrip("\n"))

    out.append("")
    out.append("")
    out.append(source.rstrip("\n"))
    out.append("")
    out.append("")
    if options.mode == "reverse":
        out += _grad_wrapper(entry, inner, target, options, signature, params, defaults_name,
                             check_name, taken)
    else:
        out += _jvp_wrapper(entry, inner, target, options, signature, params, defaults_name,
                            source, taken)
    out.append("")
    out.append("")
    out.append(f"__all__ = [{entry!r}, {inner!r}]")
    return "\n".join(out) + "\n"


def _version():
    from . import __version__
    return __version__


def _header(target, options, command):
    origin = target.display_path
    if target.import_name:
        origin = f"{target.import_name} ({target.display_path})"
    wrt = ",".join(options.wrt) + ("," if not options.single and len(options.wrt) == 1 else "")
    lines = [
        f"# Generated by s2s_ad {_version()} -- do not edit by hand; regenerate with:",
        f"#     {command}",
        f"# source:   {origin}",
        f"# sha256:   {sha256_of(target.path)}",
        f"# function: {target.attr}",
        f"# options:  mode={options.mode} wrt={wrt} standalone={'yes' if options.standalone else 'no'}"
        f" optimize={'yes' if options.optimize else 'no (no optimizer passes exist yet)'}",
    ]
    return lines


def _docstring(target, options, entry):
    if options.mode == "reverse":
        how = f"s2s_ad.grad({target.name}, wrt={_wrt_text(options)})"
        what = "gradient"
    else:
        how = f"s2s_ad.jvp({target.name}, wrt={_wrt_text(options)})"
        what = "Jacobian-vector product"
    return (f"The {what} of {target.attr} from {target.display_path}.\n\n"
            f"`{entry}` is called exactly like `{how}`.\n")


def _from_import(module, items):
    line = f"from {module} import {', '.join(items)}"
    if len(line) <= 99:
        return [line]
    return [f"from {module} import ("] + [f"    {item}," for item in items] + [")"]


def _loader_source(alias, target, source_base):
    if source_base is None:
        location = repr(os.path.abspath(target.path))
        path_expr = location
    else:
        rel = os.path.relpath(os.path.abspath(target.path), os.path.abspath(source_base))
        parts = ", ".join(repr(p) for p in rel.replace(os.sep, "/").split("/"))
        path_expr = f"_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), {parts})"
    stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(target.path))[0])
    return [
        "",
        f"def _load_{alias.lstrip('_')}():",
        f'    """Import {os.path.basename(target.path)} by its path (once; reuse it if it is '
        f'already imported)."""',
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
        "        sys.path.insert(0, directory)   # its own `import sibling` statements work",
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
        f"{alias} = _load_{alias.lstrip('_')}()",
    ]


def _check_source(name):
    from . import api
    source = inspect.getsource(api._check_differentiable)
    return _rename_def(source, "_check_differentiable", name)


def _signature_text(signature, defaults_name):
    parts = []
    saw_keyword_only = False
    positional_only = False
    for p in signature.parameters.values():
        if p.kind is p.POSITIONAL_ONLY:
            positional_only = True
        elif positional_only:
            parts.append("/")
            positional_only = False
        if p.kind is p.KEYWORD_ONLY and not saw_keyword_only:
            parts.append("*")
            saw_keyword_only = True
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise ValueError("cannot write a wrapper for a function with *args or **kwargs")
        text = p.name
        if p.default is not p.empty:
            literal = _literal(p.default)
            text += "=" + (literal if literal is not None else f"{defaults_name}[{p.name!r}]")
        parts.append(text)
    if positional_only:
        parts.append("/")
    return parts, saw_keyword_only


def _grad_wrapper(entry, inner, target, options, signature, params, defaults_name, check_name,
                  taken):
    parts, _ = _signature_text(signature, defaults_name)
    local = set(params) | taken
    value, grads = _fresh("value", set(local)), _fresh("grads", set(local))
    lines = [f"def {entry}({', '.join(parts)}):",
             f'    """Gradient of {target.name} with respect to {", ".join(options.wrt)}: '
             f'called like s2s_ad.grad({target.name}, wrt={_wrt_text(options)})."""']
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
    extra_parts = [p + ("=" + inner_defaults[p] if p in inner_defaults else "") for p in extra]
    if extra_parts:
        if not keyword_only:
            parts.append("*")
        parts += extra_parts
    call = params + [f"{p}={p}" for p in extra]
    return [f"def {entry}({', '.join(parts)}):",
            f'    """Value of {target.name} and its derivative along {", ".join(extra) or "the tangent"}:'
            f' called like s2s_ad.jvp({target.name}, wrt={_wrt_text(options)})."""',
            f"    return {inner}({', '.join(call)})"]
