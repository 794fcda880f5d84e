"""Turn generated gast into source text, and source text into a live function."""
import ast
import itertools
import linecache
import re
import textwrap

import gast

_COMMENT = re.compile(r"^(\s*)(['\"])\\x00comment\\x00(.*)\2$")
_counter = itertools.count()


def to_source(function_node):
    """Readable source for a generated gast FunctionDef, with comments restored."""
    tree = gast.gast_to_ast(gast.Module(body=[function_node], type_ignores=[]))
    ast.fix_missing_locations(tree)
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
    function = scope[f"__make_{function_name}"](*(bound[n] for n in names))
    function.__s2s_source__ = source
    return function
