"""The user's text for an expression: what refusals quote instead of generated names.

Normal form moves every nested operation into a temporary (`_mul = x * 2.0`). A message that
named `_mul` would name nothing the user wrote, so normal form records, for each temporary,
where the expression it holds came from (a `Temporary`), and messages ask `describe(name)`.
"""
import ast
import linecache
import re
from dataclasses import dataclass

from .. import runtime
from ..standard_ast import to_ast


@dataclass(frozen=True)
class Temporary:
    """What a generated name holds: the span of the user's expression (None where normal form
    built the expression itself, as for `y += v`) and the operation in normal form, whose
    operands may be temporaries in turn."""

    span: tuple            # (lineno, col, end_lineno, end_col, node type) in the parsed tree
    value: object          # a gast expression, a copy: later passes do not change it


def span_of(node):
    """The span `Temporary` keeps for `node`, or None where it has no complete position."""
    try:
        span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
    except AttributeError:
        return None
    return None if None in span else span + (type(node).__name__,)


def segment(parsed, span):
    """The user's source text of `span` (lines joined), or None where it is not the
    expression the span claims to be: a node made by a pass can carry the position of the
    statement it was made from (`y += v` for the `y + v` it means)."""
    lineno, col, end_lineno, end_col, kind = span
    first = parsed.first_line + lineno - 1
    lines = [linecache.getline(parsed.filename, n).encode()
             for n in range(first, first + end_lineno - lineno + 1)]
    if not all(lines):
        return None
    # columns count UTF-8 bytes, from the dedented text
    lines[-1] = lines[-1][:end_col + parsed.indent]
    lines[0] = lines[0][col + parsed.indent:]
    text = " ".join(line.decode(errors="replace").strip() for line in lines)
    try:
        written = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    return text if type(written).__name__ == kind else None


def describe_name(parsed, name, depth=0):
    """The user's text for the value `name` holds: `name` itself, or for a temporary of
    normal form the expression it holds as written."""
    temporary = parsed.temporaries.get(name)
    if temporary is None:
        return name
    written = segment(parsed, temporary.span) if temporary.span else None
    return written or describe_expression(parsed, temporary.value, depth + 1)


def as_operand(text):
    """`text` ready to be followed by `.attr`, `[...]` or `(...)`: parenthesized unless it is
    a name, an attribute, an item, a call or a constant already."""
    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return text
    primary = (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.Constant)
    return text if isinstance(node, primary) else f"({text})"


def describe_expression(parsed, node, depth=0):
    """`node` (in normal form) as source text, each temporary replaced by what it holds."""
    tree = ast.Expression(body=to_ast(node))
    if depth < 50:                 # temporaries hold earlier temporaries: no cycles, but bound it
        tree = _Substitute(parsed, depth).visit(tree)
    return ast.unparse(tree.body)


class _Substitute(ast.NodeTransformer):
    def __init__(self, parsed, depth):
        self.parsed = parsed
        self.depth = depth

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Name) and node.args and \
                self.parsed.namespace.get(func.id) is runtime.stored_as:
            return self.visit(node.args[0])      # a store's conversion, which the user never wrote
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id not in self.parsed.temporaries:
            return node
        text = describe_name(self.parsed, node.id, self.depth)
        # parsed back, so unparse puts parentheses where precedence needs them
        return ast.parse(text, mode="eval").body


_DERIVED_FROM = re.compile(r"#\s*(?:grad|tangent) of: (.*?)\s+\[(.+):(\d+)\]\s*$")


def derived_from(filename, line):
    """(file, line, text) of the user's statement whose derivative generated code's `line` is
    part of, read from the `# grad of:` / `# tangent of:` comments near it (through every
    generated level), or None where no comment says."""
    for _ in range(16):                          # one step per derivative order
        lines = linecache.getlines(filename)
        # the comment stands above the first line of a statement's code; a line before any
        # (a tangent set up ahead) belongs to the statement below
        found = next((m for m in map(_DERIVED_FROM.search, reversed(lines[:line])) if m), None) \
            or next((m for m in map(_DERIVED_FROM.search, lines[line:]) if m), None)
        if found is None:
            return None
        text, filename, line = found.group(1), found.group(2), int(found.group(3))
        if not filename.startswith("<s2s_ad"):
            # the comment names the user's file by its base name: find it among the read ones
            full = next((k for k in list(linecache.cache) if k.split("/")[-1] == filename),
                        filename)
            return full, line, text
    return None
