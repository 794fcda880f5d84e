"""Turn generated gast into source text, and source text into a live function."""
import ast
import itertools
import linecache
import re
import textwrap

import gast

from .standard_ast import to_ast

_COMMENT = re.compile(r"^(\s*)(['\"])\\x00comment\\x00(.*)\2$")
_counter = itertools.count()


def _is_comment(statement):
    return isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Constant) \
        and isinstance(statement.value.value, str) and statement.value.value.startswith("\0comment\0")


def _compound(node):
    """`node` and the statements with blocks nested in it (expressions are not visited)."""
    yield node
    for field in ("body", "orelse"):
        for statement in getattr(node, field, []) or []:
            if isinstance(statement, (gast.If, gast.For, gast.While, gast.FunctionDef)):
                yield from _compound(statement)


def _drop_orphan_comments(tree):
    """A comment names the user's line of the code after it: one that a pass left with no
    code after it (another comment next, or the end of its block) names nothing."""
    for node in _compound(tree):
        for field in ("body", "orelse"):
            block = getattr(node, field, None) or []
            setattr(node, field, [s for s, after in zip(block, block[1:] + [None])
                                  if not (_is_comment(s) and (after is None or _is_comment(after)))])


def _fill_empty_blocks(tree):
    """Passes may leave a block with nothing but comments; Python needs a statement there."""
    for node in _compound(tree):
        if all(_is_comment(s) for s in node.body):
            node.body.append(gast.Pass())
        if getattr(node, "orelse", None) and all(_is_comment(s) for s in node.orelse):
            node.orelse = []


def to_source(function_node):
    """Readable source for a generated gast FunctionDef, with comments restored."""
    _drop_orphan_comments(function_node)
    _fill_empty_blocks(function_node)
    tree = to_ast(gast.Module(body=[function_node], type_ignores=[]))
    lines = []
    for line in ast.unparse(tree).splitlines():
        match = _COMMENT.match(line)
        if match:
            text = ast.literal_eval(line.strip())[len("\0comment\0"):]
            lines.append(f"{match.group(1)}# {text}")
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


def compile_function(source, function_name, bound, module_globals):
    """Compile `source` so it sees `bound` names first, then the user's module globals.

    The source is wrapped in a factory whose parameters are the bound names, and registered in
    linecache under its own file name so tracebacks and pdb show the generated lines.
    """
    names = sorted(bound)
    wrapped = (f"def __make_{function_name}({', '.join(names)}):\n"
               + textwrap.indent(source, "    ")
               + f"    return {function_name}\n")
    filename = f"<s2s_ad {function_name} #{next(_counter)}>"
    linecache.cache[filename] = (len(wrapped), None, wrapped.splitlines(True), filename)
    code = compile(wrapped, filename, "exec")
    scope = {}
    exec(code, module_globals, scope)
    factory = scope[f"__make_{function_name}"]
    values = tuple(bound[n] for n in names)
    function = factory(*values)
    function.__s2s_source__ = source
    # how to make the function again for other values of some names (cache.instantiate)
    function.__s2s_factory__ = (factory, tuple(names), values)
    return function
