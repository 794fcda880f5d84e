"""Which written modules no longer match their source: each records its source file's path
(relative to itself) and sha256 in its header, and a module whose source changed since is
stale (`s2s-ad check-stale`, for CI, as formatters' `--check` is)."""
import os
from dataclasses import dataclass

from .target import sha256_of
from .text import GENERATED_BY, SOURCE_PATH, SOURCE_SHA256


@dataclass
class Written:
    """A module s2s_ad wrote: where it is, its source, and how to regenerate it."""

    path: str
    source: str          # the source file's path, or None where the header has none
    sha256: str
    command: str

    @property
    def problem(self):
        """Why the module is stale ('changed', 'missing', 'no source path'), or None."""
        if self.source is None:
            return "its header names no source path (written by an older s2s_ad)"
        if not os.path.exists(self.source):
            return f"its source {self.source} is missing"
        if sha256_of(self.source) != self.sha256:
            return f"its source {self.source} changed since it was written"
        return None


def written_modules(paths):
    """The modules s2s_ad wrote among `paths` (files, and the .py files under directories)."""
    found = []
    for path in paths:
        if os.path.isdir(path):
            for directory, _, files in sorted(os.walk(path)):
                found += [os.path.join(directory, f) for f in sorted(files) if f.endswith(".py")]
        else:
            found.append(path)
    modules = (_read(p) for p in found)
    return [m for m in modules if m is not None]


def _read(path):
    try:
        with open(path, encoding="utf-8") as handle:
            header = [handle.readline() for _ in range(8)]
    except (OSError, UnicodeDecodeError):
        return None
    if not header[0].startswith(GENERATED_BY):
        return None
    fields = {line[:len(SOURCE_PATH)]: line[len(SOURCE_PATH):].strip() for line in header}
    source = fields.get(SOURCE_PATH)
    if source is not None and not os.path.isabs(source):
        source = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), source))
    command = header[1].lstrip("#").strip()
    return Written(path, source, fields.get(SOURCE_SHA256, ""), command)
