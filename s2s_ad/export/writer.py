"""Turn a generated derivative into the text of an importable Python module (what the CLI writes).

The module has, in order: a header (tool version, source file and its sha256, function, options,
and the command that regenerates it), its imports, the user's module and the globals of it the
derivative reads, the helpers (imported from `s2s_ad.runtime`, or copied in with `standalone`),
the generated `vjp_<f>` function (and those of the user functions it calls), and the entry point
`grad_<f>` / `jvp_<f>`, called exactly like the in-memory `s2s_ad.grad(f, wrt=...)` /
`s2s_ad.jvp(f, wrt=...)`.

All names are bound first (`_plan`); the text is written from the plan, section by section.
"""
import inspect
import re
import sys
from dataclasses import dataclass

from .. import runtime
from .bindings import Binder, Binding
from .loader import check_source, loader_source
from .names import free_names, fresh_name, is_builtin, literal
from .standalone import copy_runtime
from .target import entry_name
from .text import (copied_helpers_section, docstring, header_lines, import_section,
                   stale_check_lines)
from .wrappers import EntryPoint, grad_wrapper, jvp_wrapper


@dataclass
class _Plan:
    """Every name of the module, decided before a line of it is written."""

    binder: Binder
    entry: EntryPoint
    check_name: str             # the argument check grad_<f> calls (reverse mode), or None
    check_source: str           # its source when it is written into the module, or None
    owners: list                # modules whose globals are read; the user's module first
    aliases: dict               # id(owner) -> the name the module is bound to


def write_module(generated, target, options, *, command, source_base=None):
    """The text of a module exposing `grad_<f>` (or `jvp_<f>`) for `target`.

    `command` is the shell command recorded in the header. `source_base` is the directory the
    module will be written to: the user's file is then found relative to the module's own
    location; None (stdout) records the absolute path.
    """
    plan = _plan(generated, target, options)
    bindings = sorted(plan.binder.top.items())
    out = header_lines(target, options, command, source_base)
    out.append(f'"""{docstring(target, options, plan.entry.name)}"""')
    out += import_section(bindings)
    out += stale_check_lines(target, source_base, command)
    out += _user_module_section(plan, target, bindings, source_base)
    out += copied_helpers_section(plan.binder.inline)
    if plan.check_source:
        out += ["", "", plan.check_source.rstrip("\n")]
    out += _derivatives_section(plan.binder.units, bindings)
    out += ["", ""] + _entry_point_section(plan, target, options)
    return "\n".join(out) + "\n"


# --- binding every name ----------------------------------------------------------------------

def _plan(generated, target, options):
    """Bind every name. Fresh names are drawn in a fixed order (the copied check, the defaults,
    the module aliases), so that writing the same derivative twice gives the same text."""
    binder = Binder(target, options)
    entry, inner = entry_name(target, options), generated.name
    if options.mode == "forward" and inner == entry:
        inner = "_" + entry         # the generated jvp_<f> would take the entry point's name
    binder.top[entry] = Binding("entry", object(), why=f"the entry point {entry}")
    binder.add_unit(generated, inner, target.module)
    check_name = _bind_runtime_check(binder, options)
    if options.standalone:
        copy_runtime(binder)
    check = None
    if options.mode == "reverse" and check_name is None:
        check_name, check = _bind_copied_check(binder)
    taken = set(binder.top)
    for unit in binder.units:
        taken |= set(free_names(unit.source))
    signature = inspect.signature(target.function)
    defaults_name = None
    if any(p.default is not p.empty and literal(p.default) is None
           for p in signature.parameters.values()):
        defaults_name = fresh_name(f"_{target.name}_defaults", taken)
    owners = _owners(binder, target, defaults_name is not None)
    aliases = {id(owner): fresh_name("_" + _stem(owner), taken) for owner in owners}
    entry_point = EntryPoint(entry, inner, signature, list(generated.params), defaults_name,
                             taken)
    return _Plan(binder, entry_point, check_name, check, owners, aliases)


def _bind_runtime_check(binder, options):
    """Bind `s2s_ad.runtime.check_differentiable` for grad_<f> (reverse mode), where the name
    is free; returns the name, or None."""
    if options.mode != "reverse":
        return None
    check = getattr(runtime, "check_differentiable", None)
    if check is None or "check_differentiable" in binder.top:
        return None
    binder.bind("check_differentiable", binder.classify(
        "check_differentiable", check, True, None))
    return "check_differentiable"


def _bind_copied_check(binder):
    """The argument check written into the module under a fresh name, where the runtime's
    cannot be bound; returns (its name, its source)."""
    unit_names = set()
    for unit in binder.units:
        unit_names |= set(free_names(unit.source))
    name = fresh_name("_check_differentiable", set(binder.top) | unit_names)
    source, namespace = check_source(name)
    binder.bind(name, Binding("entry", object(), why=f"the helper {name}"))
    for free in free_names(source):
        if free in namespace:
            binder.bind(free, binder.classify(free, namespace[free], False, None))
        elif not is_builtin(free):
            raise binder.error(f"the argument check needs {free!r}")
    return name, source


def _owners(binder, target, needs_defaults):
    """The user's module and any other module a callee lives in, whose globals are read (the
    user's module first, also when only the entry point's defaults are read from it)."""
    owners = []
    for binding in binder.top.values():
        if binding.kind == "user" and binding.owner is not None and binding.owner not in owners:
            owners.append(binding.owner)
    if needs_defaults and target.module not in owners:
        owners.append(target.module)
    if target.module in owners:
        owners.remove(target.module)
        owners.insert(0, target.module)
    return owners


def _stem(module):
    return re.sub(r"\W", "_", module.__name__.rsplit(".", 1)[-1]).lstrip("_") or "module"


# --- the text --------------------------------------------------------------------------------

def _user_module_section(plan, target, bindings, source_base):
    """The user's module, and the globals of it the derivative reads."""
    if not plan.owners:
        return []
    out = [""]
    if not target.import_name and target.module in plan.owners:
        out.append("")
    for owner in plan.owners:
        alias = plan.aliases[id(owner)]
        if owner is not target.module:
            out.append(f"import {_importable_name(plan.binder, owner)} as {alias}")
        elif target.import_name:
            out.append(f"import {target.import_name} as {alias}")
        else:
            out += loader_source(alias, target, source_base)
    for name, b in bindings:
        if b.kind == "user":
            out.append(f"{name} = {plan.aliases[id(b.owner)]}.{b.attr}")
    defaults_name = plan.entry.defaults_name
    if defaults_name:
        out.append(f"{defaults_name} = {{name: p.default for name, p in "
                   f"__import__('inspect').signature({plan.aliases[id(target.module)]}."
                   f"{target.attr}).parameters.items()}}")
    return out


def _importable_name(binder, module):
    """The name `module` (where a callee lives) is imported by in the written module."""
    name = module.__name__
    if not name.startswith("_s2s_ad_") and sys.modules.get(name) is module and name != "__main__":
        return name
    raise binder.error("a module is a module that cannot be imported by name")


def _derivatives_section(units, bindings):
    """The generated functions, and the names a callee's derivative is also known by."""
    out = []
    for unit in units:
        out += ["", "", unit.source.rstrip("\n")]
    aliases_of_units = [(n, b.attr) for n, b in bindings if b.kind == "alias"]
    if aliases_of_units:
        out.append("")
        out += [f"{n} = {a}" for n, a in aliases_of_units]
    return out


def _entry_point_section(plan, target, options):
    entry = plan.entry
    if options.mode == "reverse":
        out = grad_wrapper(entry, target, options, plan.check_name)
    else:
        out = jvp_wrapper(entry, target, options, plan.binder.units[0].source)
    exported = [entry.name] + ([entry.inner] if not entry.inner.startswith("_") else [])
    return out + ["", "", f"__all__ = {exported!r}"]
