"""A call's progress and log messages as MCP notifications, sent only when the client asked.

``tools/call`` with ``_meta.progressToken`` asks for ``notifications/progress``;
a log level asks for ``notifications/message`` at or above it: set per
connection by ``logging/setLevel`` (handshake protocol versions), or per request
by the ``io.modelcontextprotocol/logLevel`` ``_meta`` key (2026-07-28). When a
call asks for neither, no :class:`CallNotifier` exists and the handler's
``ToolContext`` holds no listener (:mod:`tooldeck._progress`).

Both ride the request's own stream (``ServerSession.report_progress`` and a
request-scoped notification), so over Streamable HTTP they arrive on the POST
that carries the call, before its answer. A handler reports from any thread:
the notifier keeps the newest progress and wakes its pump on the serving loop
(one ``call_soon_threadsafe`` per wake-up, not per report).

Floods are coalesced: at most one progress notification per ``interval``; the
newest one wins, and :meth:`CallNotifier.aclose`, awaited before the answer,
sends the last one reported if it has not gone yet (so a final ``done ==
total`` is never lost). Progress that does not grow is dropped (the spec wants
it to increase). Log messages are not coalesced but bounded: past
:data:`LOG_BACKLOG` unsent ones, new ones are counted and dropped, and one
``warning`` says how many.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import threading
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import mcp_types as types
from mcp.shared.jsonrpc_dispatcher import progress_token_from_params

from ..._progress import LOG_LEVELS, LogLevel
from .caller import connection_of

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext

__all__ = [
    "DEFAULT_PROGRESS_INTERVAL",
    "LOG_BACKLOG",
    "LOG_LEVEL_KEY",
    "CallNotifier",
    "call_notifier",
    "requested_level",
    "send_log",
    "set_log_level",
]

logger = logging.getLogger(__name__)

DEFAULT_PROGRESS_INTERVAL = 0.05
"""Seconds between two progress notifications of one call, at least."""

LOG_BACKLOG = 256
"""Log messages of one call waiting to be sent, at most."""

LOG_LEVEL_KEY = "tooldeck.log_level"
"""Where ``logging/setLevel`` keeps the level, in the connection's ``state``."""

SendProgress = Callable[[float, float | None, str | None], Awaitable[None]]
SendLog = Callable[[LogLevel, str, str], Awaitable[None]]
_Progress = tuple[float, float | None, str | None]


class CallNotifier:
    """The :class:`~tooldeck.CallReporter` of one MCP call; see the module docstring.

    ``progress`` and ``log`` are called from any thread; everything else runs
    on ``loop``, the serving loop.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        *,
        send_progress: SendProgress | None,
        send_log: SendLog | None,
        log_level: LogLevel | None,
        interval: float = DEFAULT_PROGRESS_INTERVAL,
    ) -> None:
        self._loop = loop
        self._thread = threading.get_ident()
        self._send_progress = send_progress
        self._send_log = send_log
        self._min_level = LOG_LEVELS.index(log_level) if log_level is not None else None
        self._interval = interval
        self._latest: _Progress | None = None
        self._sent: _Progress | None = None
        self._last_done = -1.0
        self._next_at = 0.0
        self._logs: collections.deque[tuple[LogLevel, str, str]] = collections.deque()
        self._dropped = 0
        self._woken = False
        self._pump_task: asyncio.Task[None] | None = None
        self._flush = asyncio.Event()
        self._closing = False
        self._closed = False

    # ------------------------------------------------- CallReporter (any thread)
    def progress(self, done: float, total: float | None, message: str | None) -> None:
        if self._send_progress is None or self._closed:
            return
        if done <= self._last_done:
            return  # the spec wants progress to grow; a repeat or a step back says nothing new
        self._last_done = done
        self._latest = (done, total, message)  # one assignment: the pump reads it whole
        self._wake()

    def log(self, level: LogLevel, message: str, logger: str) -> None:
        if self._min_level is None or self._closed:
            return
        if LOG_LEVELS.index(level) < self._min_level:
            return
        if len(self._logs) >= LOG_BACKLOG:
            self._dropped += 1
            return
        self._logs.append((level, message, logger))
        self._wake()

    def _wake(self) -> None:
        """Make sure the pump runs soon (one hand-off while one is already on its way)."""
        if self._woken:
            return
        self._woken = True
        if threading.get_ident() == self._thread:
            self._loop.call_soon(self._start)
            return
        with contextlib.suppress(RuntimeError):  # a closed serving loop: nobody to tell
            self._loop.call_soon_threadsafe(self._start)

    # ------------------------------------------------------------ on the loop
    def _start(self) -> None:
        self._woken = False  # first: a report after this line wakes again
        if self._pump_task is None and not self._closed:
            self._pump_task = self._loop.create_task(self._pump())

    async def _pump(self) -> None:
        try:
            while not self._closed:
                if self._logs:
                    await self._deliver_log(*self._logs.popleft())
                    continue
                if self._dropped:
                    count, self._dropped = self._dropped, 0
                    await self._deliver_log(
                        "warning", f"{count} more log messages of this call were dropped", ""
                    )
                    continue
                latest = self._latest
                if latest is None or latest is self._sent or self._send_progress is None:
                    return
                wait = self._next_at - self._loop.time()
                if wait > 0 and not self._closing:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._flush.wait(), wait)
                    continue
                self._sent = latest
                self._next_at = self._loop.time() + self._interval
                try:
                    await self._send_progress(*latest)
                except Exception:  # best effort: the call goes on whatever the stream does
                    logger.debug("a progress notification was not sent", exc_info=True)
        finally:
            self._pump_task = None
            if self._closing:
                self._closed = True  # what a late report wakes must not start a pump again

    async def _deliver_log(self, level: LogLevel, message: str, name: str) -> None:
        if self._send_log is None:
            return
        try:
            await self._send_log(level, message, name)
        except Exception:
            logger.debug("a log notification was not sent", exc_info=True)

    async def aclose(self) -> None:
        """Send what is still due (the last progress, pending logs), then stop.

        Awaited before the call's answer, so nothing of it arrives after.
        """
        self._closing = True
        self._flush.set()
        if self._pump_task is None:
            self._pump_task = self._loop.create_task(self._pump())
        try:
            await self._pump_task
        finally:
            self._closed = True

    def abandon(self) -> None:
        """The call ended without an answer (cancelled): send nothing more."""
        self._closed = True
        task = self._pump_task
        if task is not None:
            task.cancel()


def requested_level(params: Any, state: Mapping[str, Any] | None) -> LogLevel | None:
    """The log level this call asked for: its ``_meta`` key (2026-07-28) or the connection's."""
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    if isinstance(meta, Mapping):
        level = meta.get("io.modelcontextprotocol/logLevel")
        if level in LOG_LEVELS:
            return level  # type: ignore[no-any-return]
    if state is not None:
        level = state.get(LOG_LEVEL_KEY)
        if level in LOG_LEVELS:
            return level  # type: ignore[no-any-return]
    return None


async def send_log(session: Any, request_id: Any, level: LogLevel, message: str, name: str) -> None:
    """``notifications/message`` on the request's own stream (the answer's, over HTTP)."""
    await session.send_notification(
        types.LoggingMessageNotification(
            params=types.LoggingMessageNotificationParams(
                level=level, data=message, logger=name or None
            )
        ),
        related_request_id=request_id,
    )


def call_notifier(ctx: ServerRequestContext[Any], interval: float) -> CallNotifier | None:
    """The call's :class:`CallNotifier`, if its client asked for progress or log messages."""
    token = progress_token_from_params(ctx.params)
    level = requested_level(ctx.params, connection_state(ctx))
    if token is None and level is None:
        return None
    session = ctx.session
    return CallNotifier(
        asyncio.get_running_loop(),
        send_progress=session.report_progress if token is not None else None,
        send_log=partial(send_log, session, ctx.request_id) if level is not None else None,
        log_level=level,
        interval=interval,
    )


async def set_log_level(
    ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
) -> types.EmptyResult:
    """``logging/setLevel``: from now on, this connection's calls send their log at that level.

    Kept per connection (a Streamable HTTP session, a stdio process); stateless
    HTTP has no connection to remember it on, so there a request's ``_meta``
    log level is the only way (2026-07-28 clients send one).
    """
    state = connection_state(ctx)
    if state is not None:
        state[LOG_LEVEL_KEY] = params.level
    return types.EmptyResult()


def connection_state(ctx: ServerRequestContext[Any]) -> dict[str, Any] | None:
    """The per-connection scratch state (``Connection.state``), where the log level is kept."""
    state = getattr(connection_of(ctx.session), "state", None)
    return state if isinstance(state, dict) else None
