"""What a written module is for: the user function (`Target`), the choices (`Options`), and the
names and flags derived from them that both the module's text and the CLI spell out."""
import hashlib
import types
from dataclasses import dataclass

from ..errors import TransformError


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
    bound: int = 0              # leading parameters an instance or class fills (`self`): 1 or 0

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


def wrt_flag(options):
    """The `--wrt` value that reproduces `options` ('W,b'; 'x,' for a one-element tuple)."""
    return ",".join(options.wrt) + ("," if not options.single and len(options.wrt) == 1 else "")


def wrt_text(options):
    """The `wrt=` argument of the in-memory call the entry point stands for: 'W' or ('W', 'b')."""
    names = ", ".join(repr(n) for n in options.wrt)
    if options.single:
        return names
    return f"({names}{',' if len(options.wrt) == 1 else ''})"


def tool_version():
    # imported here: the package's __init__ imports the api, which must not be loaded first
    from .. import __version__
    return __version__
