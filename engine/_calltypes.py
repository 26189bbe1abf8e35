"""What a call takes and gives back: ToolCall, ToolContext, ToolResult, CallFailure.

Plain records, apart from the specs in :mod:`tooldeck._model`: the call path
builds one :class:`ToolResult` per call, so they stay small (slots, no
validation) and cheap to create.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ._errors import ErrorKind
from ._identity import AuthIdentity
from ._media import Media
from ._progress import forward_log, forward_progress

if TYPE_CHECKING:
    from ._progress import CallReporter, LogLevel
    from ._secrets import Secrets

__all__ = ["CallFailure", "ToolCall", "ToolContext", "ToolResult"]


@dataclass(frozen=True, kw_only=True)
class ToolContext:
    """What a handler may ask for besides the model's arguments.

    Annotate a handler parameter with ``ToolContext`` to receive it.
    """

    tool_name: str
    call_id: str
    project_dir: Path | None
    config: Mapping[str, Any]
    extra: Mapping[str, Any] = field(default_factory=dict)
    """The ``context=`` mapping the caller passed to ``call``."""
    auth: AuthIdentity | None = None
    """The verified caller (``auth=`` of ``call``, or ``tooldeck serve --auth``'s token);
    ``None`` when nobody was authenticated (stdio, ``--auth none``). Never from the model."""
    # Not fields (a frozen dataclass pays for each field it sets): class defaults, set on
    # the instance by bind only when someone listens / when the registry holds secrets.
    _reporter: ClassVar[CallReporter | None] = None
    """Who listens to this call's progress and log (read once, when the context is built)."""
    _secrets: ClassVar[Secrets | None] = None
    """What its messages must not show (the registry's secrets)."""

    @property
    def listened(self) -> bool:
        """Whether anyone listens to this call's progress and log messages (a handler that
        relays another service's progress asks for it only then)."""
        return self._reporter is not None

    def report_progress(
        self, done: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Tell whoever listens how far the call is (``done`` of ``total``, any unit).

        Safe from sync handlers (worker threads) and coroutines alike, and cheap
        when nobody listens. ``done`` and ``total`` must be finite numbers >= 0
        (``TypeError`` / ``ValueError`` otherwise); ``message`` is cut and its
        secrets masked before it leaves. Over MCP it becomes
        ``notifications/progress`` when the client sent a ``progressToken``.
        """
        forward_progress(self._reporter, self._secrets, done, total, message)

    def log(self, message: str, level: LogLevel = "info") -> None:
        """Log to the caller: MCP's levels (``debug`` ... ``emergency``).

        Goes to Python logging as ``tooldeck.tool.<tool name>`` (``notice`` as
        INFO, ``alert``/``emergency`` as CRITICAL) and to whoever listens: over
        MCP, ``notifications/message`` once the client has set a log level.
        """
        forward_log(self._reporter, self._secrets, self.tool_name, message, level)


@dataclass(slots=True)
class CallFailure:
    """Why a call failed (a record on :attr:`ToolResult.error`, not an exception).

    ``message`` is for the model; ``exception`` is the original one, if any,
    for the caller. Raising is :class:`~tooldeck.ToolCallError`'s job.
    """

    kind: ErrorKind | str
    """One of :data:`~tooldeck.ErrorKind`, or a handler's own (:class:`~tooldeck.ToolFailed`)."""
    message: str
    """Model-readable: what went wrong and what to send instead."""
    exception: BaseException | None = None
    """The original exception (kept so retry logic can tell an OSError from others)."""


@dataclass(slots=True)
class ToolResult:
    """The outcome of one call; ``text`` is what goes back to the model.

    Not frozen on purpose: a frozen dataclass costs ~0.7 us more to build,
    a third of the whole call budget. Treat it as read-only.
    """

    ok: bool
    text: str
    value: Any = None
    """What the handler returned (before serialisation), ``None`` on error."""
    error: CallFailure | None = None
    tool_name: str = ""
    call_id: str = ""
    return_direct: bool = False
    attempts: int = 1
    content: tuple[str | Media, ...] | None = None
    """A result with images, audio or files: its content blocks in order (text parts and
    :class:`~tooldeck.Image` / :class:`~tooldeck.Audio` / :class:`~tooldeck.File` with
    their bytes), which ``tooldeck serve`` and the model loop send. ``None`` for a text
    result, whose content is :attr:`text` alone; ``text`` always holds the whole result
    as text, each media object as a notice (``[image: image/png, 12.3 KB]``)."""

    @classmethod
    def failure(cls, message: str, *, kind: str = "tool_error") -> ToolResult:
        """What a handler returns to fail on purpose, as raising ToolFailed does.

        ``message`` and ``kind`` reach the model unchanged; the registry fills
        in the tool name and call id.
        """
        if not kind or not isinstance(kind, str):
            raise ValueError("kind must be a non-empty string")
        return cls(False, f"Error ({kind}): {message}", None, CallFailure(kind, message))


@dataclass(frozen=True)
class ToolCall:
    """One call a model asked for: what ``call_many`` takes (tuples and dicts work too)."""

    name: str
    arguments: Any = None
    """A JSON string, a mapping or None, as for ``ToolRegistry.call``."""
    call_id: str | None = None
