"""The `s2s-ad` command (also `python -m s2s_ad`): write, show and check derivative modules.

Exit status: 0 success; 1 a transform error (the message names file:line:col), an error raised
while importing the user's module, or (for `check`) a gradient that disagrees with finite
differences; 2 a usage error (bad arguments, a missing file or function, an output file that
exists and no --force).
"""
import argparse
import importlib.util
import inspect
import math
import os
import shlex
import sys
import tempfile
import traceback
import types

import numpy as np

from . import __version__, export, numeric
from .errors import TransformError
from .frontend.parse import _unwrap

PROG = "s2s-ad"

EXAMPLES = """\
examples:
  s2s-ad grad models.py:loss --wrt W,b -o loss_grad.py
      write loss_grad.py, which defines grad_loss(W, b, x) -> (dW, db)
  s2s-ad grad mypkg.models:loss --standalone -o loss_grad.py
      the same for an importable module; the file runs without s2s_ad installed
  s2s-ad grad models.py:loss models.py:penalty other.py:energy -o derivatives/ --force
      regenerate one file per function (derivatives/loss_grad.py, ...); review with git diff
  s2s-ad grad 'models.py:loss@W,b' 'models.py:energy@0' -o derivatives/
      a different --wrt for each target, after '@'
  s2s-ad show models.py:loss --wrt W
      print the generated derivative function
  s2s-ad check models.py:loss --args 'rng.normal(size=(3, 2)), np.zeros(2), x=np.ones((5, 3))'
      compare the gradient with central differences; exit status 1 when they disagree
  s2s-ad rules
      list the NumPy functions with derivative rules, by mode

exit status: 0 ok, 1 transform error / import error / check failed, 2 usage error
"""


class UsageError(Exception):
    """Bad arguments: exit status 2."""


class UserCodeError(Exception):
    """The user's module raised while being imported: exit status 1, with its traceback."""


# --- arguments -------------------------------------------------------------------------------

_FORMATTER = argparse.RawDescriptionHelpFormatter


def _parser():
    parser = argparse.ArgumentParser(
        prog=PROG, formatter_class=_FORMATTER, epilog=EXAMPLES,
        description="Source-to-source automatic differentiation for NumPy code: write the "
                    "derivative of a Python function as a readable Python module.")
    parser.add_argument("--version", action="version", version=f"s2s_ad {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    _add_grad_command(commands)
    _add_show_command(commands)
    _add_check_command(commands)
    _add_rules_command(commands)
    _add_check_stale_command(commands)
    return parser


def _add_target_arguments(sub, many):
    """TARGET (one, or `many`) and the options every command shares: --wrt, --mode,
    --no-optimize."""
    sub.add_argument(
        "targets" if many else "target", nargs="+" if many else None, metavar="TARGET",
        help="the function to differentiate: path/to/file.py:func or package.module:func "
             "(e.g. models.py:loss); append @WRT to give this target its own --wrt "
             "(e.g. 'models.py:loss@W,b')")
    sub.add_argument(
        "--wrt", default=None, metavar="NAMES",
        help="parameters to differentiate with respect to: names or indices, comma-separated "
             "(e.g. --wrt W,b or --wrt 0,1); one name gives one gradient, several (or a "
             "trailing comma: --wrt x,) give a tuple; default: the first parameter")
    sub.add_argument(
        "--mode", choices=("reverse", "forward"), default="reverse",
        help="reverse mode writes grad_<func> (like s2s_ad.grad); forward mode writes "
             "jvp_<func> (like s2s_ad.jvp) (e.g. --mode forward); default: reverse")
    sub.add_argument(
        "--no-optimize", action="store_true",
        help="skip the optimizer passes (constant folding, removal of temporaries) on "
             "the function's own derivative, to see the unoptimized transform "
             "(e.g. --no-optimize); derivatives of the functions it calls are always "
             "optimized; recorded in the header")


def _add_grad_command(commands):
    grad = commands.add_parser(
        "grad", formatter_class=_FORMATTER, epilog=EXAMPLES,
        help="write a module with the derivative of one or more functions",
        description="Write an importable module that defines grad_<func> (or jvp_<func>) for "
                    "each TARGET. The module's header records the tool version, the source "
                    "file and its sha256, and the command that regenerates it.")
    _add_target_arguments(grad, many=True)
    grad.add_argument(
        "-o", "--output", metavar="OUT",
        help="write to this file (e.g. -o loss_grad.py), or into this directory when it ends "
             "with / or exists (e.g. -o derivatives/: one <func>_grad.py or <func>_jvp.py per "
             "target; needed for several targets); default: print to stdout")
    grad.add_argument(
        "--standalone", action="store_true",
        help="copy the helpers from s2s_ad.runtime into the file, so that it imports only "
             "numpy and your module and runs without s2s_ad installed (e.g. --standalone)")
    grad.add_argument(
        "--force", action="store_true",
        help="overwrite output files that exist (e.g. --force); without it an existing file "
             "is never overwritten")


def _add_show_command(commands):
    show = commands.add_parser(
        "show", formatter_class=_FORMATTER, epilog=EXAMPLES,
        help="print the generated derivative function",
        description="Print the generated derivative function of each TARGET (vjp_<func>, or "
                    "jvp_<func> in forward mode). `s2s-ad grad TARGET` without -o prints the "
                    "whole module, with the derivatives of the functions it calls.")
    _add_target_arguments(show, many=True)


def _add_rules_command(commands):
    listing = commands.add_parser(
        "rules", formatter_class=_FORMATTER,
        help="list the functions with derivative rules (the NumPy coverage table)",
        description="Print which NumPy, math, operator and builtin functions have a reverse "
                    "rule, a forward rule, and a second derivative; functions missing from "
                    "the list are refused at transform time.")
    listing.add_argument("--markdown", action="store_true",
                         help="print the table as Markdown (docs/numpy_coverage.md)")


def _add_check_command(commands):
    check = commands.add_parser(
        "check", formatter_class=_FORMATTER, epilog=EXAMPLES,
        help="compare the derivative with central finite differences",
        description="Evaluate the written module's grad_<func> (or jvp_<func>) at the "
                    "arguments given by --args and compare with central differences in "
                    "float64. Prints the max relative error; exit status 1 when it exceeds "
                    "--tol.")
    _add_target_arguments(check, many=False)
    check.add_argument(
        "--args", required=True, metavar="EXPR", dest="call_args",
        help="the arguments, as Python expressions written like a call's arguments; np, "
             "numpy, math and rng (np.random.default_rng(0)) are available "
             "(e.g. --args 'rng.normal(size=(3, 2)), 2.0, x=np.ones(3)')")
    check.add_argument(
        "--init", metavar="EXPR",
        help="for a method target (Model.loss), the instance it is called on, built by this "
             "expression (e.g. --init 'Model(scale=2.0)'); the target's module is in scope")
    check.add_argument("--tol", type=float, default=1e-5, metavar="TOL",
                       help="the largest relative error accepted (e.g. --tol 1e-4); "
                            "default: 1e-5")
    check.add_argument("--eps", type=float, default=1e-6, metavar="EPS",
                       help="the finite-difference step (e.g. --eps 1e-5); default: 1e-6")


def _add_check_stale_command(commands):
    stale = commands.add_parser(
        "check-stale", formatter_class=_FORMATTER,
        help="exit 1 when a written module no longer matches its source (for CI)",
        description="Find the modules s2s-ad wrote among PATHs (files, or the .py files under "
                    "directories) and compare the sha256 of each one's source with the one "
                    "recorded in its header. Prints each stale module and the command that "
                    "regenerates it; exit status 1 when any is stale, 0 otherwise.")
    stale.add_argument("paths", nargs="+", metavar="PATH",
                       help="written modules or directories holding them (e.g. derivatives/)")


def _cmd_check_stale(args):
    missing = [p for p in args.paths if not os.path.exists(p)]
    if missing:
        raise UsageError(f"no such file or directory: {', '.join(missing)}")
    modules = export.written_modules(args.paths)
    if not modules:
        raise UsageError(f"no module written by {PROG} under {' '.join(args.paths)}")
    stale = [m for m in modules if m.problem is not None]
    for module in stale:
        print(f"stale: {_display(module.path)}: {module.problem}\n"
              f"    regenerate: {module.command}")
    print(f"{len(modules) - len(stale)} of {len(modules)} written module(s) up to date",
          file=sys.stderr)
    return 1 if stale else 0


def _wrt_spec(text):
    """'W,b' -> (['W', 'b'], single=False); '0' -> ([0], True); 'x,' -> (['x'], False)."""
    if text is None:
        return [0], True
    items = [t.strip() for t in text.split(",")]
    single = len(items) == 1
    items = [t for t in items if t]
    if not items:
        raise UsageError(f"--wrt {text!r} names no parameter")
    parsed = []
    for item in items:
        if item.lstrip("-").isdigit():
            parsed.append(int(item))
        elif item.isidentifier():
            parsed.append(item)
        else:
            raise UsageError(f"--wrt: {item!r} is neither a parameter name nor an index")
    return parsed, single


def _resolve_wrt(fn, items, label, bound=0):
    """Parameter names for `items`; an index counts the parameters after the `bound` ones
    (`self`), as `s2s_ad.grad(model.loss, wrt=0)` does."""
    every = [p.name for p in inspect.signature(fn).parameters.values()]
    params = every[bound:]
    names = []
    for item in items:
        if isinstance(item, int):
            if not -len(params) <= item < len(params):
                after = f" after {every[0]}" if bound else ""
                raise UsageError(f"--wrt {item} is out of range: {label} has {len(params)} "
                                 f"parameter(s){after} ({', '.join(params)})")
            names.append(params[item])
        else:
            if item not in every:
                raise UsageError(f"--wrt {item!r} is not a parameter of {label} "
                                 f"({', '.join(every)})")
            names.append(item)
    if len(set(names)) != len(names):
        raise UsageError(f"--wrt names a parameter twice: {', '.join(names)}")
    return tuple(names)


# --- targets ---------------------------------------------------------------------------------

def _display(path):
    """`path` relative to the cwd when it is below it, with forward slashes."""
    path = os.path.abspath(path)
    rel = os.path.relpath(path, os.getcwd())
    if rel.startswith(".."):
        return path
    return rel.replace(os.sep, "/")


def _load_file(path):
    """Import FILE.py the way the written module will: by path, its directory on sys.path."""
    path = os.path.abspath(path)
    directory = os.path.dirname(path)
    if directory not in sys.path:
        sys.path.insert(0, directory)
    name = os.path.splitext(os.path.basename(path))[0]
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    module = sys.modules.get(name)
    if module is not None:
        loaded = getattr(module, "__file__", None)
        if loaded and os.path.realpath(loaded) == os.path.realpath(path):
            return module
        name = "_s2s_ad_" + name
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException as exc:
        sys.modules.pop(name, None)
        raise UserCodeError(_user_traceback(exc, f"importing {_display(path)} failed")) from None
    return module


def _load_dotted(name):
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        spec = None
    if spec is None:
        raise UsageError(f"no module named {name!r} (give a path/to/file.py:func target, or run "
                         f"from the directory it can be imported from)")
    try:
        return importlib.import_module(name)
    except BaseException as exc:
        raise UserCodeError(_user_traceback(exc, f"importing {name} failed")) from None


def _user_traceback(exc, title):
    if isinstance(exc, SyntaxError):
        text = "".join(traceback.format_exception_only(type(exc), exc))
    else:
        frames = traceback.extract_tb(exc.__traceback__)
        # drop the frames of this tool and of importlib, keep the user's
        frames = [f for f in frames if "importlib" not in f.filename
                  and not f.filename.startswith(os.path.dirname(__file__))]
        text = "".join(traceback.format_list(frames)) + "".join(
            traceback.format_exception_only(type(exc), exc))
    return f"{title}:\n{text.rstrip()}"


class _Spec:
    def __init__(self, text, default_wrt):
        self.text = text
        location, at, wrt = text.partition("@")
        self.wrt_text = wrt if at else default_wrt
        where, colon, attr = location.rpartition(":")
        if not colon or not where or not attr:
            raise UsageError(f"target {text!r} must look like path/to/file.py:func or "
                             f"package.module:func")
        if not all(part.isidentifier() for part in attr.split(".")):
            raise UsageError(f"target {text!r}: {attr!r} is not a function name")
        self.where, self.attr = where, attr
        self.is_file = where.endswith(".py") or os.sep in where or "/" in where \
            or os.path.isfile(where)

    @property
    def location(self):
        if self.is_file:
            return f"{_display(self.where)}:{self.attr}"
        return f"{self.where}:{self.attr}"


def _load_target(spec):
    if spec.is_file:
        if not os.path.isfile(spec.where):
            raise UsageError(f"{spec.where}: no such file")
        module = _load_file(spec.where)
        path, import_name = os.path.abspath(spec.where), None
    else:
        if not all(part.isidentifier() for part in spec.where.split(".")):
            raise UsageError(f"target {spec.text!r}: {spec.where!r} is neither a .py file "
                             f"nor a dotted module name")
        module = _load_dotted(spec.where)
        path, import_name = getattr(module, "__file__", None), spec.where
        if not path:
            raise UsageError(f"module {spec.where} has no source file")
    obj = owner = module
    for part in spec.attr.split("."):
        owner = obj
        if not hasattr(obj, part):
            defined = sorted(n for n, v in vars(module).items()
                             if inspect.isfunction(v) and v.__module__ == module.__name__)
            raise UsageError(f"{_display(path)} defines no function {spec.attr!r}"
                             + (f" (it defines: {', '.join(defined)})" if defined else ""))
        obj = getattr(obj, part)
    function = _unwrap(obj)
    if not inspect.isfunction(function):
        raise UsageError(f"{spec.location} is a {type(obj).__name__}, not a Python function")
    # `Model.loss`: the instance fills `self`, as in `ad.grad(model.loss)`
    bound = int(inspect.isclass(owner) and not isinstance(
        inspect.getattr_static(owner, spec.attr.rsplit(".", 1)[-1], None), staticmethod))
    return export.Target(function=function, attr=spec.attr, module=module, path=path,
                         display_path=_display(path), import_name=import_name, bound=bound)


def _options(args, spec, target):
    items, single = _wrt_spec(spec.wrt_text)
    wrt = _resolve_wrt(target.function, items, spec.location, target.bound)
    return export.Options(mode=args.mode, wrt=wrt, single=single,
                          standalone=getattr(args, "standalone", False),
                          optimize=not args.no_optimize)


def _accepts(function, name):
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


def _generate(target, options):
    from . import pipeline
    if options.mode == "forward":
        transform = getattr(pipeline, "forward_mode", None)
        if transform is None:
            raise UsageError("forward mode is not available yet; use --mode reverse")
    else:
        transform = pipeline.reverse_mode
    extra = {"optimize": False} if not options.optimize and _accepts(transform, "optimize") \
        else {}
    return transform(target.function, options.wrt, **extra)


def _command(spec, options, output):
    """The canonical command that regenerates one file (recorded in its header)."""
    words = [PROG, "grad", spec.location, "--wrt", export.wrt_flag(options)]
    if options.mode != "reverse":
        words += ["--mode", options.mode]
    if options.standalone:
        words.append("--standalone")
    if not options.optimize:
        words.append("--no-optimize")
    if output is not None:
        words += ["-o", _display(output), "--force"]
    return " ".join(shlex.quote(w) for w in words)


# --- writing files ---------------------------------------------------------------------------

def write_atomically(path, text, force):
    """Write `text` to `path` through a temporary file in the same directory.

    Without `force` an existing file is never replaced (the final step is a hard link, which
    fails when the name exists). Returns 'wrote', or 'unchanged' when the file already holds
    exactly `text`.
    """
    directory = os.path.dirname(os.path.abspath(path)) or "."
    if force and os.path.isfile(path):
        with open(path, encoding="utf-8") as handle:
            if handle.read() == text:
                return "unchanged"
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.",
                                             suffix=".tmp")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        if force:
            os.replace(temporary, path)
        else:
            try:
                os.link(temporary, path)
            except FileExistsError:
                raise UsageError(f"{_display(path)} exists; pass --force to overwrite it") \
                    from None
            except OSError:             # no hard links here: check, then rename
                if os.path.exists(path):
                    raise UsageError(f"{_display(path)} exists; pass --force to overwrite it") \
                        from None
                os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
    return "wrote"


def _outputs(args, specs, targets, options):
    """The path each target is written to, or [None] for stdout."""
    out = args.output
    if out is None:
        if len(specs) > 1:
            raise UsageError("several targets need -o DIRECTORY/ (one file per target)")
        return [None]
    is_dir = out.endswith(("/", os.sep)) or os.path.isdir(out)
    if not is_dir:
        if len(specs) > 1:
            raise UsageError(f"several targets need a directory: -o {out}/")
        return [out]
    paths = []
    for target, opts in zip(targets, options):
        suffix = "grad" if opts.mode == "reverse" else "jvp"
        paths.append(os.path.join(out, f"{target.name}_{suffix}.py"))
    seen = {}
    for spec, path in zip(specs, paths):
        if path in seen:
            raise UsageError(f"{seen[path]} and {spec.text} would both be written to "
                             f"{_display(path)}; write them with separate commands and -o FILE")
        seen[path] = spec.text
    return paths


def _cmd_grad(args):
    specs = [_Spec(text, args.wrt) for text in args.targets]
    targets = [_load_target(spec) for spec in specs]
    options = [_options(args, spec, target) for spec, target in zip(specs, targets)]
    outputs = _outputs(args, specs, targets, options)
    sources = {os.path.realpath(t.path) for t in targets}
    for path in outputs:
        if path is not None and os.path.realpath(path) in sources:
            raise UsageError(f"-o {_display(path)} is a source file of a target; "
                             f"write the derivative somewhere else")
    if outputs[0] is not None and not args.force:
        for path in outputs:
            if os.path.exists(path):
                raise UsageError(f"{_display(path)} exists; pass --force to overwrite it")
    texts = []
    for k, (spec, target, opts, output) in enumerate(zip(specs, targets, options, outputs)):
        if len(specs) > 1:              # progress: a transform can take a second or more
            print(f"[{k + 1}/{len(specs)}] {spec.location}", file=sys.stderr, flush=True)
        generated = _generate(target, opts)
        base = None if output is None else os.path.dirname(os.path.abspath(output))
        texts.append(export.write_module(generated, target, opts,
                                         command=_command(spec, opts, output),
                                         source_base=base))
    if outputs[0] is None:
        sys.stdout.write(texts[0])
        return 0
    for output, text in zip(outputs, texts):
        os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
        status = write_atomically(output, text, args.force)
        print(f"{status} {_display(output)}", file=sys.stderr)
    return 0


def _cmd_show(args):
    specs = [_Spec(text, args.wrt) for text in args.targets]
    for i, spec in enumerate(specs):
        target = _load_target(spec)
        generated = _generate(target, _options(args, spec, target))
        if len(specs) > 1:
            print(f"# {spec.location}" + ("\n" if i else ""))
        sys.stdout.write(generated.source)
    return 0


def _cmd_rules(args):
    from . import coverage
    for name in coverage.OPTIONAL_NAMESPACES:     # list their rules too, where installed
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    sys.stdout.write(coverage.markdown() if args.markdown else coverage.plain())
    return 0


# --- check -----------------------------------------------------------------------------------

def _call_arguments(expression, module, flag="--args"):
    """(positional, keywords) of the call written in `expression`, which sees the target's
    module (its classes: `Model(2.0)`) and np, numpy, math and rng."""
    namespace = {**vars(module), "np": np, "numpy": np, "math": math,
                 "rng": np.random.default_rng(0), "__builtins__": __builtins__}
    namespace["_s2s_ad_collect"] = lambda *a, **k: (a, k)
    try:
        return eval(f"_s2s_ad_collect({expression}\n)", namespace)
    except SyntaxError as exc:
        raise UsageError(f"{flag} {expression!r} is not valid Python: {exc.msg}") from None
    except Exception as exc:
        raise UsageError(f"{flag} {expression!r} raised {type(exc).__name__}: {exc}") from None


def _load_text(text, name):
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    exec(compile(text, module.__file__, "exec"), module.__dict__)
    return module


def _check_arguments(args, spec, target):
    """(positional, keywords) that `check` calls the target with: --args, after the instance
    --init builds for a method."""
    positional, keywords = _call_arguments(args.call_args, target.module)
    if args.init is None:
        return positional, keywords
    if not target.bound:
        raise UsageError(f"--init builds the instance of a method; {spec.location} is not one")
    (instance,), _ = _call_arguments(args.init, target.module, "--init")
    return (instance,) + tuple(positional), keywords


def _cmd_check(args):
    spec = _Spec(args.target, args.wrt)
    target = _load_target(spec)
    opts = _options(args, spec, target)
    generated = _generate(target, opts)
    text = export.write_module(generated, target, opts,
                               command=_command(spec, opts, None))
    module = _load_text(text, f"_s2s_ad_check_{target.name}")
    entry = getattr(module, export.entry_name(target, opts))
    positional, keywords = _check_arguments(args, spec, target)
    signature = inspect.signature(target.function)
    try:
        bound = signature.bind(*positional, **keywords)
    except TypeError as exc:
        raise UsageError(f"--args do not fit {target.name}{signature}: {exc}") from None
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    for name in opts.wrt:
        _refuse_what_differences_cannot_probe(name, arguments[name], opts.mode)
    f = target.function
    worst = 0.0
    try:
        if opts.mode == "reverse":
            grads = entry(*positional, **keywords)
            grads = (grads,) if opts.single else tuple(grads)
            for name, g in zip(opts.wrt, grads):
                error = 0.0
                for path, _ in numeric.leaves(arguments[name]):     # a list's, leaf by leaf
                    expected = numeric.central_difference(f, bound, name, args.eps, path)
                    found = numeric.entry_at(g, path)
                    found = np.zeros_like(expected) if found is None else found
                    error = max(error, numeric.relative_error(found, expected))
                print(f"d{target.name}/d{name}: max relative error {error:.3g}", flush=True)
                worst = max(worst, error)
        else:
            rng = np.random.default_rng(1)
            tangents = [rng.normal(size=np.shape(arguments[n])) for n in opts.wrt]
            tangents = [t if np.ndim(arguments[n]) else float(t)
                        for n, t in zip(opts.wrt, tangents)]
            params = list(inspect.signature(entry).parameters)
            extra = [p for p in params if p not in signature.parameters]
            tangent = tangents[0] if opts.single else tuple(tangents)
            _, jvp = entry(*positional, **keywords, **{extra[0]: tangent})
            expected = 0.0
            for name, t in zip(opts.wrt, tangents):
                expected = expected + numeric.directional_difference(f, bound, name, t, args.eps)
            worst = numeric.relative_error(jvp, expected)
            print(f"d{target.name} along a random tangent: max relative error {worst:.3g}")
    except (TypeError, ValueError) as exc:
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    ok = math.isfinite(worst) and worst <= args.tol
    print(f"max relative error {worst:.3g} (tolerance {args.tol:g}): "
          f"{'OK' if ok else 'MISMATCH'}")
    return 0 if ok else 1


def _refuse_what_differences_cannot_probe(name, value, mode):
    """check moves float scalars and float arrays: in reverse mode also those inside a dict,
    list or tuple (leaf by leaf, as s2s_ad.check_grad does)."""
    container = isinstance(value, (dict, list, tuple))
    if container and mode != "reverse":
        raise UsageError(f"check --mode forward differentiates with respect to float scalars "
                         f"and float arrays; {name} is a {type(value).__name__} (check it in "
                         f"reverse mode, or with s2s_ad.check_grad)")
    for path, leaf in numeric.leaves(value) if container else [((), value)]:
        if not (isinstance(leaf, float) or (isinstance(leaf, np.ndarray)
                                            and np.issubdtype(leaf.dtype, np.floating))):
            kind = f"an array of {leaf.dtype}" if isinstance(leaf, np.ndarray) \
                else f"a {type(leaf).__name__}"
            where = name + "".join(f"[{key!r}]" for key in path)
            raise UsageError(f"check differentiates with respect to float scalars and float "
                             f"arrays; {where} is {kind} (write 2.0, not 2, or .astype(float))")


# --- entry point -----------------------------------------------------------------------------

def main(argv=None):
    """Run the command line; returns the exit status."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:        # --help, --version, or an argparse usage error (2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    handler = {"grad": _cmd_grad, "show": _cmd_show, "check": _cmd_check,
               "rules": _cmd_rules, "check-stale": _cmd_check_stale}[args.command]
    try:
        return handler(args)
    except UsageError as exc:
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except TransformError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    except UserCodeError as exc:
        print(f"{PROG} {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
