"""The exceptions tooldeck raises at its API.

Batch paths (manifest loading, lint, ``call_many``) collect problems as values
(:class:`tooldeck._diagnostics.Diagnostic`, :class:`tooldeck._model.ToolResult`);
the exceptions below are for programmer-facing calls that cannot go on.
Model-facing failures never raise: ``registry.call`` returns an error result
unless the caller asked for ``raise_errors=True``.

::

    ToolDeckError
     ├── RegistrationError      a tool/prompt/param declaration is wrong (code time)
     │    └── DuplicateToolError    a name is already taken and on_duplicate="error"
     ├── ManifestError          manifests failed to load; carries the diagnostics
     └── ToolCallError          a call failed and the caller asked to raise;
                                carries the error kind and the tool name
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tooldeck._diagnostics import Diagnostic
    from tooldeck._model import ErrorKind

__all__ = [
    "DuplicateToolError",
    "ManifestError",
    "RegistrationError",
    "ToolCallError",
    "ToolDeckError",
]


class ToolDeckError(Exception):
    """Root of every exception tooldeck raises on purpose."""


class RegistrationError(ToolDeckError, ValueError):
    """A declaration cannot be registered: unknown type, invalid default, bad handler.

    ``tool_name`` and ``param`` say where; ``code`` is the stable diagnostic code
    the manifest loader reports for the same mistake.
    """

    def __init__(
        self,
        message: str,
        *,
        tool_name: str | None = None,
        param: str | None = None,
        code: str = "TD100",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.tool_name = tool_name
        self.param = param
        self.code = code


class DuplicateToolError(RegistrationError):
    """A tool or prompt name is already registered and the policy is ``"error"``."""


class ManifestError(ToolDeckError):
    """Loading manifests produced errors; ``diagnostics`` holds every one of them."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        first = self.diagnostics[0].format() if self.diagnostics else "no diagnostics"
        more = len(self.diagnostics) - 1
        super().__init__(first + (f" (and {more} more)" if more > 0 else ""))


class ToolCallError(ToolDeckError):
    """A tool call failed and the caller asked for an exception instead of a result.

    The original exception, if any, is chained as ``__cause__``.
    """

    def __init__(self, kind: ErrorKind, message: str, *, tool_name: str) -> None:
        super().__init__(f"{tool_name}: {message}")
        self.kind = kind
        self.message = message
        self.tool_name = tool_name
