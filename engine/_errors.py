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
     ├── ToolFailed             raised by a handler on purpose: its message and kind
     │                          reach the model unchanged
     ├── ResourceError          a resource could not be read: unknown URI, bad
     │                          template values, a failing handler, too large
     └── ExportError            no exporter for that provider name, or a schema that
                                cannot be spelled for the provider (also a ValueError)
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypeAlias

if TYPE_CHECKING:
    from ._diagnostics import Diagnostic

__all__ = [
    "DuplicateToolError",
    "ErrorKind",
    "ExportError",
    "ManifestError",
    "RegistrationError",
    "ResourceError",
    "ToolCallError",
    "ToolDeckError",
    "ToolFailed",
]


ErrorKind: TypeAlias = Literal[
    "unknown_tool",
    "invalid_arguments",
    "execution_error",
    "timeout",
    "denied",
    "too_many_calls",
    "not_permitted",
    "approval_pending",
]
"""What went wrong in a call, in the words a result and :class:`ToolCallError` carry.

``not_permitted``: the caller's verified identity lacks a scope the tool declares
(``auth: {scopes: [...]}``); the call was not run. ``too_many_calls`` is the model
loop's answer to a call past its per-turn cap (``max_tool_calls_per_turn``): that
call was not run. ``approval_pending``: a call with side effects made by a caller that
can wait for its approval (the model loop: ``Deferral``) whose approval is not given yet;
it was not run, and the loop lists it among its interruptions. A handler that fails on
purpose (:class:`ToolFailed`) may name a kind of its own (``"not_found"``,
``"rate_limited"``); results then carry that string.
"""


class ToolDeckError(Exception):
    """Root of every exception tooldeck raises on purpose."""


class RegistrationError(ToolDeckError, ValueError):
    """A declaration cannot be registered: unknown type, invalid default, bad handler.

    ``tool_name`` and ``param`` say where by name; ``field_path`` goes on below
    ``param`` to a nested parameter (``("properties", "address", "items")``: the
    items of field ``address``). ``path`` says which field of the declaration was
    wrong, by attribute names and indices from the object being declared: for a
    :class:`~tooldeck.ToolSpec` ``("params", 2, "default")`` is the default of its
    third parameter, ``("params", 0, "properties", 1, "pattern")`` the pattern of
    the second field of its first; for a ``ParamDescriptor`` ``("enum",)``. A
    path ending at a parameter (``("params", 2)``) means the parameter as a
    whole (a contradiction between its fields, a name the handler does not
    take); ``()`` the declaration as a whole. Code that puts a declaration
    inside another extends the path (:meth:`under`), so whoever wrote the
    declaration (a manifest, a form) can point at the place without guessing
    from ``code``. ``code`` is the stable diagnostic code the manifest loader
    reports for the same mistake. ``also`` holds further problems found in the
    same pass (every invalid default of a tool, not only the first), each
    located by its own fields; ``str()`` names them all, ``message`` only this one.
    """

    message: str
    also: tuple[RegistrationError, ...]
    path: tuple[str | int, ...]

    def __init__(
        self,
        message: str,
        *,
        tool_name: str | None = None,
        param: str | None = None,
        code: str = "TD100",
        field_path: tuple[str, ...] = (),
        path: tuple[str | int, ...] = (),
        also: tuple[RegistrationError, ...] = (),
    ) -> None:
        text = message
        if also:
            text += f" (and {len(also)} more: {'; '.join(e.message for e in also)})"
        super().__init__(text)
        self.message = message
        self.tool_name = tool_name
        self.param = param
        self.code = code
        self.field_path = field_path
        self.path = path
        self.also = also

    def under(self, *steps: str | int) -> RegistrationError:
        """The same error seen from a declaration that holds this one at ``steps``.

        ``ParamDescriptor`` says ``("enum",)``; the spec holding it as its third
        parameter raises ``error.under("params", 2)``: ``("params", 2, "enum")``.
        The errors in ``also`` move with it; the message is unchanged.
        """
        moved = copy.copy(self)
        moved.path = (*steps, *self.path)
        moved.also = tuple(e.under(*steps) for e in self.also)
        moved.__cause__, moved.__context__ = self.__cause__, self.__context__
        moved.__suppress_context__ = self.__suppress_context__
        return moved


class DuplicateToolError(RegistrationError):
    """A tool or prompt name is already registered and the policy is ``"error"``.

    The clash as data, so each layer can say it in its own words: ``kind`` is
    the table the name is in (``"tool"``, ``"prompt"``, ``"mcp_server"``,
    ``"web_search"``, ``"tool_use"``), ``name`` the name, ``group`` who tried
    to take it and ``owner`` who holds it already (``None``: code, for both;
    ``owner == group``: the same group declared it twice). The message is the
    registry's own sentence; ``tool_name`` is ``name``, as before.
    """

    kind: str
    name: str
    group: str | None
    owner: str | None

    def __init__(
        self,
        message: str,
        *,
        kind: str = "tool",
        name: str | None = None,
        group: str | None = None,
        owner: str | None = None,
        tool_name: str | None = None,
        code: str = "TD112",
    ) -> None:
        name = name if name is not None else tool_name or ""
        super().__init__(message, tool_name=tool_name or name or None, code=code)
        self.kind = kind
        self.name = name
        self.group = group
        self.owner = owner


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

    def __init__(self, kind: ErrorKind | str, message: str, *, tool_name: str) -> None:
        super().__init__(f"{tool_name}: {message}")
        self.kind = kind
        self.message = message
        self.tool_name = tool_name


class ResourceError(ToolDeckError):
    """A resource could not be read; ``kind`` says why in one word, ``message`` in a sentence.

    Kinds: ``unknown_resource`` (no resource or template has that URI),
    ``invalid_arguments`` (a template's variable is not valid for its parameter),
    ``not_permitted`` (the caller lacks a scope the resource declares), ``too_large``,
    ``timeout``, ``execution_error`` (the handler failed, or the file cannot be read), or
    the kind of a handler's :class:`ToolFailed`. ``tooldeck serve`` answers with the
    message (an MCP error: ``-32002`` for an unknown resource, invalid params for bad
    values).
    """

    def __init__(self, kind: str, message: str, *, uri: str) -> None:
        super().__init__(f"{uri}: {message}")
        self.kind = kind
        self.message = message
        self.uri = uri


class ToolFailed(ToolDeckError):
    """Raise it in a handler to fail on purpose, with words for the model.

    ``message`` and ``kind`` reach the model unchanged (``Error (kind):
    message``), not wrapped as an unexpected ``execution_error`` with the
    exception's class name, and the call is never retried. Use it for
    expected failures the model can act on: an order that does not exist, a
    quota that ran out. (A handler may also return
    :meth:`ToolResult.failure(...) <tooldeck.ToolResult.failure>`.)

        >>> raise ToolFailed("no order O-1; list orders first", kind="not_found")
    """

    def __init__(self, message: str, *, kind: str = "tool_error") -> None:
        if not kind or not isinstance(kind, str):
            raise ValueError("kind must be a non-empty string")
        super().__init__(message)
        self.message = message
        self.kind = kind


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
