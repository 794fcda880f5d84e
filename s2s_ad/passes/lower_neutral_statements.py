"""LowerNeutralStatements: statements whose meaning, on a run that returns, is plain code.

- `with np.errstate(divide="ignore"):` (and `warnings.catch_warnings()`, `np.printoptions(...)`,
  `contextlib.nullcontext()`) only changes which warnings are shown: the block becomes its body.
  An errstate that turns floating-point errors into exceptions (`all="raise"`) changes what the
  function does, so it is left for RefuseUnsupported to refuse.
- `try: A finally: B` runs A then B on every run that returns (a run that raises raises in the
  derivative too): it becomes `A; B` (where neither has a `return`, `break` or `continue`,
  after which `finally` would run at another point). A `try` with `except` stays refused: which statements run
  depends on where an exception is raised, which a derivative written ahead of time cannot know.
- `match` over values (`case 1 | 2:`, `case "tanh":`, `case None:`, a capture `case v if v > 0:`,
  `case _:`) becomes the `if`/`elif` chain Python evaluates; sequence, mapping and class patterns
  stay refused (with the hint to write the if/elif).
"""
import contextlib
import warnings

import gast
import numpy as np

from .. import build
from ..analysis.primitives import static_value
from ..traversal import StatementTransformer, walk

_QUIET = {"ignore", "warn"}     # errstate settings that change no value and raise nothing
_NEUTRAL = (warnings.catch_warnings, np.printoptions, contextlib.nullcontext)
_JUMPS = (gast.Return, gast.Break, gast.Continue)


class LowerNeutralStatements(StatementTransformer):

    def __init__(self, parsed, namer, local_names):
        self.parsed, self.namer, self.local_names = parsed, namer, local_names

    def run(self, body):
        return [x for s in body for x in _as_list(self.visit(s))]

    def _neutral(self, item):
        """Is this `with` item one that changes no value (and binds nothing)?"""
        call = item.context_expr
        if item.optional_vars is not None or not isinstance(call, gast.Call):
            return False
        try:
            manager = static_value(call.func, self.parsed, self.local_names)
        except LookupError:
            return False
        if manager is np.errstate:
            return not call.args and all(
                isinstance(k.value, gast.Constant) and k.value.value in _QUIET
                for k in call.keywords)
        if manager is warnings.catch_warnings:
            return not call.args and not any(k.arg == "record" for k in call.keywords)
        return any(manager is n for n in _NEUTRAL) and not call.args

    def visit_With(self, node):
        self.generic_visit(node)
        if all(self._neutral(item) for item in node.items):
            return node.body
        return node

    def visit_Try(self, node):
        for field in ("body", "orelse", "finalbody"):
            setattr(node, field, self.run(getattr(node, field)))
        for handler in node.handlers:
            handler.body = self.run(handler.body)
        if node.handlers or any(isinstance(n, _JUMPS) for part in node.body + node.finalbody
                                for n in walk(part)):
            return node          # `return` in `try` runs `finally` after it: left (refused)
        return node.body + node.orelse + node.finalbody

    def visit_Match(self, node):
        for case in node.cases:
            case.body = self.run(case.body)
        if not all(_lowerable(case.pattern) for case in node.cases):
            return node
        statements = []
        subject = node.subject
        if not isinstance(subject, gast.Name):
            fresh = self.namer.fresh("subject")
            statements.append(gast.copy_location(build.assign(fresh, subject), node))
            subject = build.name(fresh)
        return statements + _chain(node.cases, subject.id, node)


def _as_list(result):
    return result if isinstance(result, list) else [] if result is None else [result]


def _lowerable(pattern):
    if isinstance(pattern, (gast.MatchValue, gast.MatchSingleton)):
        return True
    if isinstance(pattern, gast.MatchOr):
        return all(isinstance(p, (gast.MatchValue, gast.MatchSingleton)) for p in pattern.patterns)
    return isinstance(pattern, gast.MatchAs) and pattern.pattern is None


def _test(pattern, subject):
    """The condition under which `pattern` matches the name `subject`; None: always."""
    if isinstance(pattern, gast.MatchValue):
        return gast.Compare(left=build.name(subject), ops=[gast.Eq()], comparators=[pattern.value])
    if isinstance(pattern, gast.MatchSingleton):      # None, True, False match by identity
        return gast.Compare(left=build.name(subject), ops=[gast.Is()],
                            comparators=[gast.Constant(value=pattern.value, kind=None)])
    if isinstance(pattern, gast.MatchOr):
        return gast.BoolOp(op=gast.Or(), values=[_test(p, subject) for p in pattern.patterns])
    return None                                        # `case _:` or a capture `case v:`


def _chain(cases, subject, node):
    """The if/elif chain for `cases`, in order; a case that always matches ends it."""
    if not cases:
        return []
    case = cases[0]
    binds = [gast.copy_location(build.assign(case.pattern.name, build.name(subject)), node)] \
        if isinstance(case.pattern, gast.MatchAs) and case.pattern.name else []
    tests = [t for t in (_test(case.pattern, subject), case.guard) if t is not None]
    body = case.body or [gast.Pass()]
    if not tests:
        return binds + body
    test = tests[0] if len(tests) == 1 else gast.BoolOp(op=gast.And(), values=tests)
    rest = _chain(cases[1:], subject, node)
    return binds + [gast.copy_location(gast.If(test=test, body=body, orelse=rest), node)]
