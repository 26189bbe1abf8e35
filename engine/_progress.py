"""Progress and log messages from a running handler to whoever listens to the call.

A handler that takes a :class:`~tooldeck.ToolContext` calls
``context.report_progress(done, total, message)`` and ``context.log(message,
level)``. Who listens is decided by the caller, not the handler: ``tooldeck
serve`` when the MCP client asked (a ``progressToken``, a log level), a Python
caller through :func:`reporting`. The listener is a :class:`CallReporter` held
in a :class:`~contextvars.ContextVar`; :meth:`PreparedTool.bind
<tooldeck._binding.PreparedTool.bind>` reads it once, when it builds the
context (only for handlers that take one), so a sync handler on a worker thread
or a coroutine on another loop still reaches the listener of the call that
started it.

Nobody listening costs nothing on the call path: a tool without a context
never looks; one with a context does one ``ContextVar.get``. In the handler,
``report_progress`` checks its numbers and returns after a ``None`` check;
``log`` also writes to Python logging (``tooldeck.tool.<tool name>``), which is
quiet unless the application configures logging.

Values are checked where the handler can see the mistake: ``done`` and
``total`` must be finite numbers, at least 0 (``TypeError`` / ``ValueError``
raised to the handler, listening or not, so a bug shows in a plain unit test).
A message is cut to :data:`MESSAGE_LIMIT` characters and its secrets masked
(the registry's :class:`~tooldeck._secrets.Secrets`) before it leaves.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from ._secrets import Secrets

__all__ = [
    "LOG_LEVELS",
    "MESSAGE_LIMIT",
    "CallReporter",
    "LogLevel",
    "current_reporter",
    "forward_log",
    "forward_progress",
    "reporting",
]

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

LOG_LEVELS: tuple[LogLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
"""MCP's (syslog's) levels, lowest first."""

_PYTHON_LEVELS = {
    "debug": 10,
    "info": 20,
    "notice": 20,
    "warning": 30,
    "error": 40,
    "critical": 50,
    "alert": 50,
    "emergency": 50,
}
"""Python logging has no ``notice``, ``alert`` or ``emergency``: the nearest level below."""

MESSAGE_LIMIT = 1000
"""Characters of a progress or log message that leave the handler (the rest is cut, marked)."""


class CallReporter(Protocol):
    """A listener to one call's progress and log messages (what a caller installs).

    Called on whichever thread the handler runs (a worker thread for a sync
    handler, the loop of a coroutine handler): an implementation that talks to
    an event loop hands the message over thread-safely and never blocks.
    Values arrive checked, cut and redacted.
    """

    def progress(self, done: float, total: float | None, message: str | None) -> None: ...

    def log(self, level: LogLevel, message: str, logger: str) -> None: ...


current_reporter: ContextVar[CallReporter | None] = ContextVar(
    "tooldeck_call_reporter", default=None
)
"""The listener of the calls made in this context (``None``: nobody listens)."""


class _Callbacks:
    """A :class:`CallReporter` made of plain callables (what :func:`reporting` installs)."""

    __slots__ = ("on_log", "on_progress")

    def __init__(
        self,
        on_progress: Callable[[float, float | None, str | None], object] | None,
        on_log: Callable[[LogLevel, str, str], object] | None,
    ) -> None:
        self.on_progress = on_progress
        self.on_log = on_log

    def progress(self, done: float, total: float | None, message: str | None) -> None:
        if self.on_progress is not None:
            _guarded(self.on_progress, done, total, message)

    def log(self, level: LogLevel, message: str, logger: str) -> None:
        if self.on_log is not None:
            _guarded(self.on_log, level, message, logger)


def _guarded(callback: Callable[..., object], *args: object) -> None:
    """Call a listener; its failure is logged, never raised into the handler."""
    try:
        callback(*args)
    except Exception:
        from ._log import get_logger

        get_logger("tooldeck.registry").warning(
            "a progress/log listener raised; the call goes on", exc_info=True
        )


@contextlib.contextmanager
def reporting(
    on_progress: Callable[[float, float | None, str | None], object] | None = None,
    on_log: Callable[[LogLevel, str, str], object] | None = None,
) -> Iterator[None]:
    """Receive the progress and log messages of the calls made inside the ``with`` block.

    ``on_progress(done, total, message)`` and ``on_log(level, message, tool_name)``
    run on the handler's thread (a worker thread for a sync handler), so they
    must be quick and thread-safe; one that raises is logged and ignored. Works
    for ``call`` and ``acall`` alike (a context variable: each asyncio task sees
    its own). Nothing is installed on the registry, so calls elsewhere cost
    nothing extra.
    """
    token = current_reporter.set(_Callbacks(on_progress, on_log))
    try:
        yield
    finally:
        current_reporter.reset(token)


# ------------------------------------------------------------ ToolContext's side
def forward_progress(
    reporter: CallReporter | None,
    secrets: Secrets | None,
    done: float,
    total: float | None,
    message: str | None,
) -> None:
    """``ToolContext.report_progress``: check the values, then hand them to the listener."""
    _check_number("done", done)
    if total is not None:
        _check_number("total", total)
    if message is not None and not isinstance(message, str):
        raise TypeError(f"message must be a string or None, not {type(message).__name__}")
    if reporter is None:
        return
    reporter.progress(done, total, None if message is None else _clean(message, secrets))


def forward_log(
    reporter: CallReporter | None,
    secrets: Secrets | None,
    tool_name: str,
    message: str,
    level: str,
) -> None:
    """``ToolContext.log``: Python logging (``tooldeck.tool.<name>``), then the listener."""
    python_level = _PYTHON_LEVELS.get(level)
    if python_level is None:
        raise ValueError(f"level must be one of {', '.join(LOG_LEVELS)}; got {level!r}")
    if not isinstance(message, str):
        raise TypeError(f"message must be a string, not {type(message).__name__}")
    from ._log import get_logger

    logger = get_logger(f"tooldeck.tool.{tool_name}")
    if logger.isEnabledFor(python_level):
        logger.log(python_level, "%s", _clean(message, secrets))
    if reporter is not None:
        reporter.log(level, _clean(message, secrets), tool_name)  # type: ignore[arg-type]


def _check_number(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number of at least 0, got {value!r}")


def _clean(message: str, secrets: Secrets | None) -> str:
    """Masked first, then cut (a cut secret could no longer be recognised)."""
    if secrets:
        message = secrets.redact(message)
    if len(message) > MESSAGE_LIMIT:
        message = f"{message[:MESSAGE_LIMIT]}... [cut {len(message) - MESSAGE_LIMIT} characters]"
        if secrets:
            message = secrets.redact(message)
    return message
