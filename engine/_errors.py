"""The exceptions tooldeck raises at its API.

Batch paths (manifest loading, lint, ``call_many``) collect problems as values
(:class:`tooldeck._diagnostics.Diagnostic`, :class:`tooldeck._calltypes.ToolResult`);
the exceptions below are for programmer-facing calls that cannot go on.
Model-facing failures never raise: ``registry.call`` returns an error result
unless the caller asked for ``raise_errors=True``.

::

    ToolDeckError
     ├── RegistrationError      a tool/prompt/param declaration is wrong (code time)
     │    └── DuplicateToolError    a name is already taken and on_duplicate="error"
     ├── ManifestError          manifests failed to load; carries the diagnostics
     ├── ToolCallError          a call failed and the caller asked to raise;
     │                          carries the error kind and the tool name
     └── ExportError            no exporter for that provider name, or a schema that
                                cannot be spelled for the provider (also a ValueError)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:
    from tooldeck._diagnostics import Diagnostic

__all__ = [
    "DuplicateToolError",
    "ErrorKind",
    "ExportError",
    "ManifestError",
    "RegistrationError",
    "ToolCallError",
    "ToolDeckError",
]


ErrorKind: TypeAlias = Literal[
    "unknown_tool",
    "invalid_arguments",
    "execution_error",
    "timeout",
    "denied",
]
"""What went wrong in a call, in the words a result and :class:`ToolCallError` carry."""


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


class ExportError(ToolDeckError, ValueError):
    """Tool definitions cannot be exported for a provider.

    Raised for a provider name no exporter is registered under (the message
    lists the valid ones) and for a schema the provider's dialect cannot
    express without changing its meaning (OpenAI strict mode, Gemini's
    OpenAPI subset), or that is malformed. It is also a ``ValueError``: export
    used to raise plain ``ValueError``, and callers catching that keep working.

    ``provider`` and ``tool_name`` say where, when known; the message may be
    redacted (``export_tools(redact=...)``), these names are identifiers.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        tool_name: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.tool_name = tool_name
