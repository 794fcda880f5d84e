"""Turns a Python function into a gast tree, a namespace and a map back to the user's source."""
from .parse import ParsedFunction, parse_function

__all__ = ["ParsedFunction", "parse_function"]
