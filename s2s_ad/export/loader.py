"""Source that a written module runs for itself: the loader of the user's module (by its path,
sharing the copy already imported) and the argument check `s2s_ad.grad` does."""
import inspect
import os
import re

from .. import api


def loader_source(alias, target, source_base):
    """Lines that define a loader of the user's file and bind its module to `alias`.

    With `source_base` (the directory the module is written to), the file is found relative to
    the module's own location; None (stdout) records the absolute path."""
    loader = f"_load{alias}"
    return [
        f"def {loader}():",
        f'    """Import {os.path.basename(target.path)} from its path, or reuse it if it is '
        f'already imported."""',
        "    import importlib.util",
        "    import os as _os",
        "    import sys",
        f"    path = {_path_expression(target, source_base)}",
        f"    name = {_module_name(target)!r}",
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


def _path_expression(target, source_base):
    if source_base is None:
        return repr(os.path.abspath(target.path))
    rel = os.path.relpath(os.path.abspath(target.path), os.path.abspath(source_base))
    parts = ", ".join(repr(p) for p in rel.replace(os.sep, "/").split("/"))
    return f"_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), {parts})"


def _module_name(target):
    return re.sub(r"\W", "_", os.path.splitext(os.path.basename(target.path))[0])


_CHECK_FALLBACK = '''def _check_differentiable(name, value):
    dtype = getattr(value, "dtype", None)
    if isinstance(value, (bool, int)) or (
            dtype is not None and not np.issubdtype(dtype, np.inexact)):
        kind = type(value).__name__ if dtype is None else f"array of {dtype}"
        raise TypeError(f"cannot differentiate with respect to {name!r}: it is an integer "
                        f"({kind}); pass a float")
'''


def check_source(name):
    """The argument check `s2s_ad.grad` does before differentiating, and its namespace."""
    check = getattr(api, "_check_differentiable", None)
    source = inspect.getsource(check) if check is not None else _CHECK_FALLBACK
    if name != "_check_differentiable":
        source = re.sub(r"\b_check_differentiable\b", name, source)
    return source, vars(api)
