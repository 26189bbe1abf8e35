"""The transport a server spec names (stdio, Streamable HTTP, legacy SSE), every reply bounded.

:func:`open_transport` is what :class:`~tooldeck.mcp._attaching.connection.McpConnection`
enters in its owner task. Each transport caps one message from the server at
the spec's ``max_reply_bytes`` and records in a
:class:`~tooldeck.mcp._attaching.stdio.TransportState` why it refused one (before the
connection ends, so the calls waiting on it can say so) and how many bytes came:

* stdio: :func:`tooldeck.mcp._attaching.stdio.bounded_stdio` (a longer line stops the
  server);
* HTTP: a response hook wraps every body: one that is not an event stream
  may be at most the cap in total, an event stream at most the cap per event
  (bytes since the last blank line). The SDK's own per-event limit is set a
  little above it, for the streams it reads itself. Compressed bodies are
  refused: tooldeck asks for ``Accept-Encoding: identity``, and a compressed
  body's size says nothing of what it inflates to.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from .stdio import TransportState, bounded_stdio

if TYPE_CHECKING:
    from ..._model import McpServerSpec

__all__ = ["ReplyTooLarge", "http_headers", "open_transport", "server_stderr"]

_HTTP_TIMEOUT = 30.0
"""Seconds to connect, write and wait for a pool slot (the SDK's default)."""

_READ_TIMEOUT = 300.0
"""Seconds an HTTP read may wait: a server may hold an event stream open (the SDK's default)."""

_SDK_EVENT_SLACK = 1024
"""The SDK's per-event limit is this much above ours, so ours trips first and says why."""

_BLANK_LINES = (b"\r\n\r\n", b"\n\r\n", b"\r\n\n", b"\n\n", b"\r\r")
"""How a server-sent event ends: two line ends in a row (LF, CR or CRLF each)."""


class ReplyTooLarge(httpx2.StreamError):
    """An HTTP reply went over ``max_reply_bytes`` (or came compressed); reading it stopped."""


def open_transport(
    spec: McpServerSpec, *, errlog: Any, state: TransportState
) -> contextlib.AbstractAsyncContextManager[tuple[Any, Any]]:
    """The (read, write) streams to the server, as an async context manager."""
    if spec.command is not None:
        if spec.cwd is not None and not os.path.isdir(spec.cwd):
            # The spawn's own error names only the path, as if the command were missing.
            raise NotADirectoryError(f"cwd {spec.cwd!r} is not an existing directory")
        if sys.platform == "win32":  # pragma: no cover - the bounded transport is POSIX only
            return _sdk_stdio(spec, errlog)
        return bounded_stdio(
            spec.command,
            env=spec.env,
            cwd=spec.cwd,
            errlog=server_stderr(errlog),
            max_line_bytes=spec.max_reply_bytes,
            max_tools=spec.max_tools,
            state=state,
        )
    assert spec.url is not None  # McpServerSpec checks exactly one of url or command
    limit = spec.max_reply_bytes

    def client(
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        return bounded_http_client(headers or {}, limit, state, timeout=timeout, auth=auth)

    if spec.transport == "sse":
        return sse_client(
            spec.url,
            headers=http_headers(spec),
            timeout=_HTTP_TIMEOUT,
            sse_read_timeout=_READ_TIMEOUT,
            httpx_client_factory=client,
        )
    return _streamable_http(spec.url, client(http_headers(spec)), limit)


@contextlib.asynccontextmanager
async def _streamable_http(
    url: str, client: httpx2.AsyncClient, limit: int
) -> AsyncIterator[tuple[Any, Any]]:
    async with (
        client,
        streamable_http_client(
            url, http_client=client, max_sse_event_size=limit + _SDK_EVENT_SLACK
        ) as streams,
    ):
        yield streams


def _sdk_stdio(spec: McpServerSpec, errlog: Any) -> Any:  # pragma: no cover - Windows
    from mcp.client.stdio import StdioServerParameters, stdio_client

    assert spec.command is not None
    command, *args = spec.command
    params = StdioServerParameters(
        command=command,
        args=args,
        env=dict(spec.env) or None,
        cwd=spec.cwd,
        encoding_error_handler="replace",
    )
    return stdio_client(params, errlog=server_stderr(errlog))


# ----------------------------------------------------------------------------- HTTP
def bounded_http_client(
    headers: dict[str, str],
    limit: int,
    state: TransportState,
    *,
    timeout: httpx2.Timeout | None = None,
    auth: httpx2.Auth | None = None,
) -> httpx2.AsyncClient:
    """An httpx2 client (the SDK's timeouts) whose every response body is bounded.

    A response hook rather than a wrapping transport: it sees every response,
    those through a proxy from the environment included.
    """

    async def bound(response: httpx2.Response) -> None:
        response.stream = _BoundedBody(response, limit, state)

    return httpx2.AsyncClient(
        headers={"Accept-Encoding": "identity", **headers},
        timeout=timeout or httpx2.Timeout(_HTTP_TIMEOUT, read=_READ_TIMEOUT),
        auth=auth,
        event_hooks={"response": [bound]},
    )


class _BoundedBody(httpx2.AsyncByteStream):
    """A response body that stops with :class:`ReplyTooLarge` past the cap."""

    def __init__(self, response: httpx2.Response, limit: int, state: TransportState) -> None:
        self._inner = response.stream
        self._limit = limit
        self._state = state
        headers = response.headers
        self._events = headers.get("content-type", "").lower().startswith("text/event-stream")
        self._encoding = headers.get("content-encoding", "identity").strip().lower()
        length = headers.get("content-length", "")
        self._length = int(length) if length.isdigit() else None

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._encoding not in ("", "identity"):
            self._refuse(f"its reply came compressed ({self._encoding}) although none was asked")
        if not self._events and self._length is not None and self._length > self._limit:
            self._refuse(self._over())
        assert isinstance(self._inner, httpx2.AsyncByteStream)
        size = 0
        tail = b""
        async for chunk in self._inner:
            if self._events:  # per event: bytes since the last blank line
                seen = tail + chunk
                after = _after_last_blank_line(seen)
                size = len(seen) - after if after is not None else size + len(chunk)
                tail = seen[-3:]
            else:
                size += len(chunk)
            self._state.received += len(chunk)
            if size > self._limit:
                self._refuse(self._over())
            yield chunk

    async def aclose(self) -> None:
        if isinstance(self._inner, httpx2.AsyncByteStream):
            await self._inner.aclose()

    def _over(self) -> str:
        what = "an event" if self._events else "a reply"
        return f"it sent {what} over {self._limit:,} bytes (max_reply_bytes)"

    def _refuse(self, reason: str) -> None:
        self._state.refused = reason
        raise ReplyTooLarge(reason)


def _after_last_blank_line(data: bytes) -> int | None:
    """Where the data after the last event boundary in ``data`` starts, if there is one."""
    ends = [found + len(mark) for mark in _BLANK_LINES if (found := data.rfind(mark)) >= 0]
    return max(ends) if ends else None


# ---------------------------------------------------------------------------- shared
def http_headers(spec: McpServerSpec) -> dict[str, str]:
    """The spec's headers, with ``authorization`` as ``Authorization: Bearer <token>``."""
    headers = dict(spec.headers)
    if spec.authorization:
        token = spec.authorization
        has_scheme = token.lower().startswith(("bearer ", "basic "))
        headers["Authorization"] = token if has_scheme else f"Bearer {token}"
    return headers


def server_stderr(errlog: Any) -> Any:
    """Where a stdio server's stderr goes: ``errlog``, else ours if it is a real file.

    Under a captured or replaced ``sys.stderr`` (pytest, Jupyter, an in-process
    CLI run) there is no file descriptor to hand a child process; the spawn
    would fail. The process's original stderr is used then, or nothing.
    """
    if errlog is not None:
        return errlog
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None:
                stream.fileno()
                return stream
        except (AttributeError, OSError, ValueError):
            continue
    return subprocess.DEVNULL
