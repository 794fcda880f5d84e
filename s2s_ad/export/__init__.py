"""Written modules: the text of an importable Python module holding a derivative (what
`s2s-ad grad` writes).

By job: `target` (what a module is written for); `bindings` (what each of its names is bound
to), with `names` (free names, fresh names, imports, literals); `standalone` (the runtime
helpers copied in, read by `runtime_source`); `loader` and `wrappers` (source the module runs:
the loader of the user's module, the argument check, the entry point); `text` (header, imports,
copied helpers) and `writer` (`write_module`, which binds every name, then writes the text).
"""
from .names import free_names
from .target import ModuleWriteError, Options, Target, entry_name, sha256_of, wrt_flag
from .stale import written_modules
from .writer import write_module

__all__ = ["ModuleWriteError", "Options", "Target", "entry_name", "free_names", "sha256_of",
           "write_module", "written_modules", "wrt_flag"]
