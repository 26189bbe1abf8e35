"""One diagnostic type for everything tooldeck reports about declarations.

A diagnostic records where a value came from (file, 1-based line and column,
JSON path) while parsing; the message is formatted only at the edge by a
reporter. Codes are stable: ``TD1xx`` registration/model rules, ``TD2xx``
YAML and meta-schema, ``TD3xx`` handler resolution and interpolation,
``TD4xx`` lint rules. Each code is documented next to the code that emits it
and collected in ``docs/diagnostics.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Diagnostic", "Severity", "SourceLocation"]


class Severity(StrEnum):
    """How bad a diagnostic is; ``error`` blocks loading, ``warning`` does not."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True, kw_only=True)
class SourceLocation:
    """Where a declaration was written: file, 1-based line/column, JSON path."""

    file: str
    """Path of the manifest file, as given to the loader."""
    line: int = 1
    """1-based line of the node's start."""
    column: int = 1
    """1-based column of the node's start."""
    json_path: str = "$"
    """JSONPath of the node inside the document, e.g. ``$.tools[3].params[0].type``."""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnostic:
    """A located, coded problem found in a declaration."""

    code: str
    """Stable code such as ``TD201``; documented in docs/diagnostics.md."""
    message: str
    """One sentence saying what is wrong and, where it helps, how to fix it."""
    severity: Severity = Severity.ERROR
    location: SourceLocation | None = None
    """Where it was found; ``None`` for declarations made in code."""
    tool_name: str | None = None
    """The tool or prompt the diagnostic is about, when there is one."""

    def format(self) -> str:
        """``file:line:col: CODE message``, or ``CODE message`` without a location."""
        where = f"{self.location}: " if self.location else ""
        return f"{where}{self.code} {self.message}"

    def __str__(self) -> str:
        """The same ``file:line:col: CODE message`` line the CLI prints."""
        return self.format()
