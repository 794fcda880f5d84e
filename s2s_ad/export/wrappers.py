"""The entry point of a written module, `grad_<f>` or `jvp_<f>`: a def with the user function's
own signature that calls the generated derivative, the way `s2s_ad.grad` / `s2s_ad.jvp` do."""
import ast
import inspect
from dataclasses import dataclass

from .names import fresh_name, literal
from .target import wrt_text


@dataclass
class EntryPoint:
    name: str                       # grad_<f> or jvp_<f>
    inner: str                      # the def name of the derivative it calls
    signature: inspect.Signature    # the user function's
    params: list                    # the derivative's parameters that the user function has
    defaults_name: str              # the dict holding defaults a literal cannot spell, or None
    taken: set                      # module-level names its locals must not shadow


def grad_wrapper(entry, target, options, check_name):
    """Check each wrt argument, call the derivative, return only the gradients."""
    parts, _ = _signature_text(entry.signature, entry.defaults_name)
    local = set(entry.params) | entry.taken
    value, grads = fresh_name("value", set(local)), fresh_name("grads", set(local))
    lines = [f"def {entry.name}({', '.join(parts)}):",
             f'    """Gradient of {target.name} with respect to {", ".join(options.wrt)}, '
             f'like s2s_ad.grad({target.name}, wrt={wrt_text(options)})."""']
    for name in options.wrt:
        lines.append(f"    {check_name}({name!r}, {name})")
    lines.append(f"    {value}, {grads} = {entry.inner}({', '.join(entry.params)})")
    lines.append(f"    return {grads}")
    return lines


def jvp_wrapper(entry, target, options, inner_source):
    """Call the derivative; its extra parameters (the tangents) become keyword-only."""
    parts, keyword_only = _signature_text(entry.signature, entry.defaults_name)
    inner_params, inner_defaults = _function_params(inner_source, entry.inner)
    extra = [p for p in inner_params if p not in entry.params]
    if extra:
        if not keyword_only:
            parts.append("*")
        parts += [p + ("=" + inner_defaults[p] if p in inner_defaults else "") for p in extra]
    call = entry.params + [f"{p}={p}" for p in extra]
    return [f"def {entry.name}({', '.join(parts)}):",
            f'    """Value of {target.name} and its derivative along {", ".join(extra)}, '
            f'like s2s_ad.jvp({target.name}, wrt={wrt_text(options)})."""',
            f"    return {entry.inner}({', '.join(call)})"]


def _signature_text(signature, defaults_name):
    """(the parameters of a def with `signature`, as text; whether it has a '*' already)."""
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
        parts.append(_parameter_text(p, defaults_name))
    if positional_only:
        parts.append("/")
    return parts, keyword_only


def _parameter_text(parameter, defaults_name):
    """`name`, `name=<literal>`, or `name=<defaults>['name']` for a default with no literal."""
    if parameter.default is parameter.empty:
        return parameter.name
    text = literal(parameter.default)
    if text is None:
        text = f"{defaults_name}[{parameter.name!r}]"
    return f"{parameter.name}={text}"


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
