"""What each name of a written module is bound to.

Every free name of generated code is bound the way the in-memory derivative binds it: first from
`Generated.globals` (modules, runtime helpers, derivatives of callees, closure values), then from
the globals of the module the function was defined in, then from builtins. A name of the written
module denotes one object; when two generated functions need one name for two different objects,
the module cannot be written and the error says so. Globals of the user's module are bound when
the written module is imported (`SCALE = _model.SCALE`), where the in-memory derivative reads them
at each call: reassigning such a global later is seen by one and not the other.
"""
import builtins
import inspect
import os
import types
from dataclasses import dataclass

from .. import cache, definitions
from ..frontend.parse import synthetic_origin
from .names import free_names, import_path, is_builtin, literal, module_of, portable_module, \
    rename_def
from .runtime_source import import_home, runtime_home
from .target import ModuleWriteError


@dataclass
class Unit:
    """One generated function to write, with the module its free names resolve in."""

    generated: object
    name: str                   # its def name in the written module
    module: types.ModuleType
    source: str = ""


@dataclass
class Binding:
    kind: str        # import, from, runtime, inline, user, literal, builtin, generated, alias,
                     # entry (a name the written module defines itself)
    obj: object
    module: str = ""
    attr: str = ""
    text: str = ""
    owner: object = None     # the module object a 'user' binding reads from
    unit: object = None
    why: str = ""            # who needs it, for error messages


_MISSING = object()


def generated_of(obj):
    """The `Generated` behind a generated derivative function (or a stand-in for one), or None."""
    found = getattr(obj, "__s2s_generated__", None)
    if found is not None:
        return found
    table = getattr(cache, "_cache", {})
    if isinstance(obj, getattr(cache, "_Pending", ())):
        return table.get(obj.key)
    if not hasattr(obj, "__s2s_source__"):
        return None
    for generated in list(table.values()):
        if getattr(generated, "function", None) is obj:
            return generated
    return None


def _user_global(name, obj, from_generated, module, reader):
    """A global of the user's `module` holding `obj`, read when the written module is imported;
    `reader` names the function whose derivative reads it, for error messages."""
    namespace = vars(module) if module is not None else {}
    if namespace.get(name, _MISSING) is obj:
        return Binding("user", obj, attr=name, owner=module,
                       why=f"{getattr(module, '__name__', '?')}.{name}")
    if not from_generated:
        return Binding("user", obj, attr=name, owner=module,
                       why=f"{name} (used by the derivative of {reader})")
    for key, value in namespace.items():
        if value is obj and key.isidentifier() and not key.startswith("__"):
            return Binding("user", obj, attr=key, owner=module,
                           why=f"{getattr(module, '__name__', '?')}.{key}")
    return None


class Binder:
    """The names of one written module, each bound to one object, and the generated functions
    (units) and copied runtime helpers it holds."""

    def __init__(self, target, options):
        self.target = target
        self.options = options
        self.local_dirs = {os.path.dirname(os.path.realpath(target.path))}
        self.top = {}            # name in the written module -> Binding
        self.units = []
        self.inline = {}         # (runtime module, name) -> (position, source), filled by
                                 # standalone.copy_runtime

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
            source = rename_def(source, generated.name, name)
        unit = Unit(generated, name, module, source)
        self.units.append(unit)
        self.bind(name, Binding("generated", generated, unit=unit, why=f"the derivative {name}"))
        self._bind_free_names(unit)
        return unit

    def _bind_free_names(self, unit):
        generated, module = unit.generated, unit.module
        namespace = vars(module) if module is not None else {}
        for free in free_names(unit.source):
            if free == unit.name:
                continue
            if free in generated.globals:
                binding = self.classify(free, generated.globals[free], True, module)
            elif free in namespace:
                binding = self.classify(free, namespace[free], False, module)
            elif is_builtin(free):
                binding = Binding("builtin", getattr(builtins, free), why=f"the builtin {free}")
            else:
                raise self.error(f"its derivative {unit.name} reads the global {free!r}, which "
                                 f"{getattr(module, '__name__', 'its module')} does not define")
            self.bind(free, binding)

    # -- one free name
    def classify(self, name, obj, from_generated, module):
        """How the written module binds `name` to `obj`, which generated code reads from its
        own globals (`from_generated`) or from `module`'s."""
        if inspect.ismodule(obj) and portable_module(obj, self.local_dirs):
            return Binding("import", obj, module=obj.__name__, why=f"the module {obj.__name__}")
        if from_generated or module is definitions:     # s2s_ad's definitions: helpers too
            found = self._derivative_or_helper(name, obj)
            if found is not None:
                return found
        found = _user_global(name, obj, from_generated, module, self.target.attr)
        if found is not None:
            return found
        return self._importable_or_literal(name, obj)

    def _derivative_or_helper(self, name, obj):
        """The derivative of a callee (written into the module too), or a runtime helper."""
        callee = generated_of(obj)
        if callee is not None:
            callee_module = module_of(callee.function.__globals__) \
                if getattr(callee, "function", None) is not None else None
            unit = self.add_unit(callee, name, callee_module)
            return self.top[unit.name] if unit.name == name else Binding(
                "alias", callee, attr=unit.name, why=f"the derivative {unit.name}")
        home = runtime_home(name, obj)
        if home is None:
            return None
        module, attr = home
        if self.options.standalone:
            return Binding("inline", obj, module=module.__name__, attr=attr,
                           why=f"{module.__name__}.{attr}")
        imported_from = import_home(module, attr)
        return Binding("runtime", obj, module=imported_from, attr=attr,
                       why=f"{imported_from}.{attr}")

    def _importable_or_literal(self, name, obj):
        """`from module import attr` for `obj`, or a literal equal to it (a closure value)."""
        found = import_path(obj, self.local_dirs)
        if found is not None:
            if found[0].split(".")[0] == "s2s_ad" and self.options.standalone:
                raise self.error(
                    f"its derivative needs {found[0]}.{found[1]} at run time (a call it can "
                    f"only resolve when it runs, such as a function passed as an argument), so "
                    f"it cannot run without s2s_ad",
                    hint="write it without --standalone, or call the function directly")
            return Binding("from", obj, module=found[0], attr=found[1],
                           why=f"{found[0]}.{found[1]}")
        text = literal(obj)
        if text is not None:
            return Binding("literal", obj, text=text, why=f"the constant {name} = {text}")
        origin = synthetic_origin(getattr(obj, "func", obj))     # functools.partial's too
        if origin is not None:
            raise self.error(
                f"its derivative passes on the lambda or nested def at {origin} as a function, "
                f"which a module cannot import",
                hint="define it at module level, with what it reads from the function as "
                     "parameters, and pass that")
        raise self.error(
            f"its derivative uses {name!r}, a {type(obj).__name__} from a closure or a default "
            f"value, which a module cannot import",
            hint="make the value a global of the module, or pass it as a parameter")
