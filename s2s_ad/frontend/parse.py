"""Read a function's source, parse it with gast, and remember where every node came from."""
import copy
import inspect
import linecache
import sys
import textwrap
import types
from dataclasses import dataclass, field

import gast

from .. import build
from ..errors import SourceUnavailable, TransformError, UnsupportedSyntax
from ..traversal import walk
from . import source_text, variadic, wrappers


@dataclass
class ParsedFunction:
    """A user function as the transformer sees it."""

    fn: object
    node: gast.FunctionDef
    filename: str
    first_line: int          # line of the `def` in the user's file
    indent: int              # columns removed by dedent
    namespace: dict          # globals, with closure values layered on top
    closure: dict = field(default_factory=dict)
    temporaries: dict = field(default_factory=dict)   # generated name -> source_text.Temporary
    # temporaries holding a value unpacked into names (`a, b = pair(x)`): `_pair[0]` is no
    # expression the user wrote, nor always one Python allows (a generator's items)
    unpacked: set = field(default_factory=set)
    # (line, col) of a call whose out array was passed by position -> that position, so that
    # a refusal shows the call as written without it (passes/name_out_arguments.py)
    out_positions: dict = field(default_factory=dict)
    # a derivative s2s_ad wrote (differentiated again: hvp, hessian, grad of grad)
    generated: bool = False
    # (name, function) of each helper whose statements were copied in (passes/inline_helpers)
    inlined: list = field(default_factory=list)

    @property
    def name(self):
        return self.node.name

    def location(self, node):
        """(line, col) of `node` in the user's file."""
        lineno = getattr(node, "lineno", None) or 1
        col = getattr(node, "col_offset", None) or 0
        return self.first_line + lineno - 1, col + self.indent

    def where(self, node):
        line, _ = self.location(node)
        return f"{self.filename}:{line}"

    def source_line(self, node):
        line, _ = self.location(node)
        return linecache.getline(self.filename, line).rstrip("\n")

    def describe(self, name):
        """The user's text for the value `name` holds (a temporary: the expression it holds)."""
        return source_text.describe_name(self, name)

    def describe_operand(self, name):
        """`describe(name)`, parenthesized where `.attr` or `[...]` is to follow it."""
        return source_text.as_operand(self.describe(name))

    def describe_expression(self, node):
        """A normal-form expression as the user's text: temporaries replaced by what they hold."""
        return source_text.describe_expression(self, node)

    def error(self, node, message, hint="", kind=UnsupportedSyntax):
        line, col = self.location(node)
        return kind(message, filename=self.filename, lineno=line, col=col,
                    source_line=self.source_line(node), hint=hint)

    def resolve(self, name):
        """The object a free name refers to, or raise KeyError."""
        if name in self.namespace:
            return self.namespace[name]
        builtins = self.namespace.get("__builtins__", __builtins__)
        if isinstance(builtins, dict):
            return builtins[name]
        try:
            return getattr(builtins, name)
        except AttributeError:          # (the builtins module, not a dict: a local name)
            raise KeyError(name) from None


def _unwrap(fn):
    """The Python function to read for `fn`. `__wrapped__` is followed only through wrappers
    that are not Python functions (functools.lru_cache, functools.cache: C code that returns
    what the wrapped function returns); a Python wrapper (`functools.wraps`) is user code that
    may change the result (`return k * fn(*args)`), so it is differentiated as written."""
    while not hasattr(fn, "__code__") and hasattr(fn, "__wrapped__"):
        fn = fn.__wrapped__
    return getattr(fn, "__func__", fn)


def signature_of(fn):
    """`inspect.signature(fn)` of the function as it is differentiated: a Python wrapper's own
    parameters, not those of the function its `__wrapped__` names (see _unwrap), except for
    a `def wrapper(*args, **kwargs)`, read with the wrapped function's (wrappers.py), and a
    helper with *args read for one call, with them spelled out (variadic.py)."""
    return wrappers.wrapped_signature(fn) or variadic.variadic_signature(fn) or inspect.signature(
        fn, follow_wrapped=not hasattr(fn, "__code__"))


def _lambda_as_def(module, fn, filename, first_line, indent, lines):
    """The one lambda on `fn`'s source line, as `def <name>(...): return <body>`."""
    params = list(fn.__code__.co_varnames[:fn.__code__.co_argcount])
    candidates = [n for body in module.body for n in walk(body)
                  if isinstance(n, gast.Lambda) and [a.id for a in n.args.args] == params]
    if len(candidates) > 1:       # several on the block: keep those on the lambda's own line
        candidates = [n for n in candidates
                      if n.lineno + first_line - 1 == fn.__code__.co_firstlineno]
    if len(candidates) > 1:       # several on the line: the one whose span holds the code
        candidates = [n for n in candidates
                      if _spans_code(n, fn.__code__, first_line, indent)]
    if len(candidates) != 1:
        line = fn.__code__.co_firstlineno
        raise SourceUnavailable(
            "cannot tell which lambda on this line is being differentiated",
            filename=filename, lineno=line, col=indent,
            source_line=linecache.getline(filename, line),
            hint="bind the function with `def` instead of `lambda`")
    lam = candidates[0]
    name = "lambda"
    for assign in walk(module):
        if isinstance(assign, gast.Assign) and assign.value is lam and \
                isinstance(assign.targets[0], gast.Name):
            name = assign.targets[0].id
    body = [gast.copy_location(gast.Return(value=lam.body), lam.body)]
    node = gast.FunctionDef(name=name, args=lam.args, body=body, decorator_list=[],
                            returns=None, type_comment=None, type_params=[])
    return gast.copy_location(node, lam)


def _spans_code(node, code, first_line, indent):
    """Does `node`'s text hold every expression `code` runs (Python 3.11+ knows the columns
    of each; earlier versions do not, and nothing is ruled out)?"""
    if not hasattr(code, "co_positions"):
        return True
    start = (node.lineno + first_line - 1, node.col_offset + indent)
    end = (node.end_lineno + first_line - 1, node.end_col_offset + indent)
    return all(start <= (line, col) and (end_line, end_col) <= end
               for line, end_line, col, end_col in code.co_positions()
               if None not in (line, end_line, col, end_col) and (end_line, end_col) > (line, col))


def _last_line(code):
    """The last source line of any instruction in `code` or in the code nested in it."""
    if hasattr(code, "co_positions"):           # Python 3.11+: where each expression ends
        lines = [end for _, end, _, _ in code.co_positions() if end is not None]
    else:
        lines = [line for _, _, line in code.co_lines() if line is not None]
    nested = [_last_line(c) for c in code.co_consts if isinstance(c, types.CodeType)]
    return max(lines + nested + [code.co_firstlineno])


def _parse_by_code_lines(code):
    """(lines, first line, module) for a `def`, read from the lines its code object spans.

    `inspect.getsourcelines` finds the end of a block by tokenizing it, which costs a tenth of
    a second on a 2,000-line function; the code object already knows its last line. Returns
    None where that is not the whole `def` (the text does not parse, or is not one function),
    and the caller asks inspect instead.
    """
    linecache.checkcache(code.co_filename)       # an edited file is read again, as inspect does
    lines = linecache.getlines(code.co_filename)[code.co_firstlineno - 1:_last_line(code)]
    if not lines:
        return None
    text = textwrap.dedent("".join(lines))
    try:
        module = _parsed_text(text)
    except SyntaxError:
        return None
    node = module.body[0] if len(module.body) == 1 else None
    if not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)) or node.name != code.co_name:
        return None
    return lines, code.co_firstlineno, module


_PARSED = {}                    # source text -> its tree, never handed out (clones are)


def _parsed_text(text):
    """gast.parse(text), a tree of its own: a function is parsed several times in one
    transform (for itself, and as a callee its caller's analyses read), and cloning a tree
    costs a quarter of parsing it."""
    module = _PARSED.get(text)
    if module is None:
        module = gast.parse(text)
        if len(_PARSED) < 1024:
            _PARSED[text] = module
    return build.clone(module)


_SYNTHETIC = {}


def register_synthetic(fn, parsed):
    """Remember the tree of a function the transformer made itself (a hoisted nested def)."""
    _SYNTHETIC[fn.__code__] = parsed


def synthetic_origin(fn):
    """'file:line' of the nested def or lambda a hoisted function was made from, else None."""
    known = _SYNTHETIC.get(getattr(fn, "__code__", None))
    return known.where(known.node) if known is not None else None


def _recomputing_twin(fn):
    """A derivative whose callees run once holds closures, which are not differentiated: its
    twin that calls the callees' vjps instead is read in its place (same values)."""
    twin = getattr(getattr(fn, "__s2s_generated__", None), "recompute_twin", None)
    if twin is None:
        return fn
    generated = twin()
    if generated is None:
        raise TransformError(f"cannot differentiate {fn.__qualname__} again while it is "
                             f"being generated (a recursive function)")
    return generated.function


def parse_function(fn):
    """Parse `fn` into a ParsedFunction, or raise SourceUnavailable with a clear reason."""
    fn = _recomputing_twin(_unwrap(fn))
    known = _SYNTHETIC.get(getattr(fn, "__code__", None))
    if known is not None:
        # a hoisted lambda or nested def with *args, read for one call (variadic.py)
        twin = hasattr(fn, "__s2s_variadic__")
        return ParsedFunction(
            fn=fn if twin else known.fn,
            node=variadic.with_packed_arguments(copy.deepcopy(known.node), fn),
            filename=known.filename,
            first_line=known.first_line, indent=known.indent, namespace=dict(known.namespace),
            closure=dict(known.closure))
    name = getattr(fn, "__qualname__", repr(fn))
    code = getattr(fn, "__code__", None)
    if code is None:
        raise SourceUnavailable(
            f"cannot read the source of {name}: it is not a Python function "
            f"(a builtin or C extension)",
            hint="register a rule with @s2s_ad.adjoint, or wrap it in a Python function")
    filename = code.co_filename
    lines, first_line, module = _read_and_parse(fn, name, code)
    indent = len(lines[0]) - len(lines[0].lstrip())
    if module is None:                 # a lambda whose own lines do not parse
        module, lines = _lambda_from_its_file(name, filename, first_line)
        first_line, indent = 1, 0
    node = module.body[0]
    if code.co_name == "<lambda>":
        node = _lambda_as_def(module, fn, filename, first_line, indent, lines)
    _refuse_what_is_not_a_def(node, name, filename, first_line, indent, lines[0])
    node.decorator_list = []
    closure = _closure_values(fn, code)
    namespace = {**fn.__globals__, **closure}
    node = wrappers.with_wrapped_parameters(node, fn, namespace)
    node = variadic.with_packed_arguments(node, fn)
    return ParsedFunction(fn=fn, node=node, filename=filename, first_line=first_line,
                          indent=indent, namespace=namespace, closure=closure,
                          generated=getattr(fn, "__s2s_generated__", None) is not None)


_FOR_READING = {}               # code object -> a ParsedFunction whose tree readers share


def parse_for_reading(fn):
    """parse_function(fn) for an analysis that only reads the tree (the shape facts of a
    callee, whether it changes its arguments): parsed once per code object, with the
    namespace of now (a name rebound since then means its new value)."""
    code = getattr(fn, "__code__", None)
    if type(fn) is not types.FunctionType or code in _SYNTHETIC or any(
            hasattr(fn, a) for a in ("__wrapped__", "__s2s_generated__", "__s2s_variadic__")):
        return parse_function(fn)
    known = _FOR_READING.get(code)
    if known is None:
        known = parse_function(fn)
        if len(_FOR_READING) < 1024:
            _FOR_READING[code] = known
        return known
    closure = _closure_values(fn, code)
    return ParsedFunction(fn=fn, node=known.node, filename=known.filename,
                          first_line=known.first_line, indent=known.indent,
                          namespace={**fn.__globals__, **closure}, closure=closure)


def _read_and_parse(fn, name, code):
    """(source lines, first line, parsed module or None for a lambda that needs its file)."""
    filename = code.co_filename
    by_code = _parse_by_code_lines(code) if code.co_name != "<lambda>" else None
    if by_code:
        return by_code
    try:
        lines, first_line = inspect.getsourcelines(fn)
    except (OSError, TypeError) as exc:
        prompt = " (Python 3.13's interactive prompt keeps what you type: there it works)" \
            if filename == "<stdin>" and sys.version_info < (3, 13) else ""
        raise SourceUnavailable(
            f"cannot read the source of {name} (defined in {filename}): {exc}",
            filename=filename, lineno=code.co_firstlineno,
            hint=f"define the function in a file (not the REPL or exec), "
                 f"or register a rule with @s2s_ad.adjoint{prompt}") from None
    first_line = first_line or 1
    # inspect counts decorator lines into the block; the tree keeps them too
    try:
        return lines, first_line, gast.parse(textwrap.dedent("".join(lines)))
    except SyntaxError as exc:
        if code.co_name != "<lambda>":
            raise SourceUnavailable(f"cannot parse the source of {name}: {exc.msg}",
                                    filename=filename, lineno=first_line) from None
        return lines, first_line, None


def _lambda_from_its_file(name, filename, first_line):
    """A lambda inside a bracket spanning lines: its line alone does not parse, the file does.
    Returns (a module holding the lambdas of that line, that line)."""
    try:
        module = gast.parse("".join(linecache.getlines(filename)))
    except SyntaxError as exc:
        raise SourceUnavailable(f"cannot parse the source of {name}: {exc.msg}",
                                filename=filename, lineno=first_line) from None
    module.body = [n for n in walk(module) if isinstance(n, gast.Lambda) and n.lineno == first_line]
    return module, linecache.getlines(filename)[first_line - 1:first_line]


def _refuse_what_is_not_a_def(node, name, filename, first_line, indent, line):
    if isinstance(node, gast.AsyncFunctionDef):
        raise TransformError("cannot differentiate an async function",
                             filename=filename, lineno=first_line, col=indent,
                             source_line=line, hint="write a plain `def`")
    if not isinstance(node, gast.FunctionDef):
        raise SourceUnavailable(
            f"cannot differentiate {name}: its source is not a `def` statement "
            f"(a lambda has no reusable source)",
            filename=filename, lineno=first_line, col=indent, source_line=line,
            hint="bind it with `def` instead of `lambda`")


def _closure_values(fn, code):
    """The values of the variables `fn` closes over (a cell not yet filled is left out)."""
    closure = {}
    for var, cell in zip(code.co_freevars, fn.__closure__ or ()):
        try:
            closure[var] = cell.cell_contents
        except ValueError:
            continue
    return closure
