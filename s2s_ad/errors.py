"""Errors raised at transform time, formatted like a SyntaxError: file:line:col, the line, a caret."""
import functools
import os

FULL_TRACEBACK = "S2S_AD_FULL_TRACEBACK"


class TransformError(Exception):
    """The function cannot be differentiated as written."""

    def __init__(self, message, *, filename="<unknown>", lineno=0, col=0,
                 source_line="", hint="", chain=()):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col = col
        self.source_line = source_line
        self.hint = hint
        self.chain = tuple(chain)
        super().__init__(str(self))

    def __str__(self):
        text = f"{self.filename}:{self.lineno}:{self.col + 1}: {self.message}"
        if self.source_line:
            stripped = self.source_line.rstrip()
            indent = len(stripped) - len(stripped.lstrip())
            text += f"\n    {stripped.lstrip()}\n    {' ' * max(self.col - indent, 0)}^"
        if self.hint:
            text += f"\nhint: {self.hint}"
        for caller in self.chain:
            text += f"\n  called from {caller}"
        return text

    def called_from(self, location):
        """Return a copy of this error that also names the call site `location` ('file:line')."""
        return type(self)(self.message, filename=self.filename, lineno=self.lineno, col=self.col,
                          source_line=self.source_line, hint=self.hint,
                          chain=self.chain + (location,))


class UnsupportedSyntax(TransformError):
    """A Python construct the transformer does not handle."""


class NoDerivativeRule(TransformError):
    """A call into a function that has neither a registered rule nor Python source."""


class SourceUnavailable(TransformError):
    """The function's source text cannot be read (REPL, exec, builtins, C extensions)."""


class RuleError(TransformError):
    """A custom rule registered with @adjoint or @tangent does not fit its primal."""


class SharedUpdate(UnsupportedSyntax):
    """Raised when the derivative runs: `y += v` on an array that another live name shares.

    Transform time cannot tell an array (updated in place) from a number (rebound), so the
    generated code checks, and refuses only the array case.
    """


class ComplexValue(UnsupportedSyntax, TypeError):
    """A complex value reached a derivative rule. Complex numbers are not differentiated yet
    (one convention for every rule is still to come), so they are refused, never cast to real."""


def user_facing(entry):
    """An entry point of the API: a refusal is raised from it, so the user's traceback shows
    their call and the message, not the transformer's frames behind it. Set the environment
    variable S2S_AD_FULL_TRACEBACK=1 to keep those (when reporting a bug in s2s_ad)."""
    @functools.wraps(entry)
    def called(*args, **kwargs):
        try:
            return entry(*args, **kwargs)
        except TransformError as exc:
            if os.environ.get(FULL_TRACEBACK):
                raise
            raise exc.with_traceback(None) from None
    return called
