"""One live connection to one external MCP server (stdio, Streamable HTTP or legacy SSE).

The ``mcp`` SDK's transports and sessions are anyio task groups: they must be
entered and left by the same task. :class:`McpConnection` therefore owns each
connection in a task of its own on the event loop (an ``AsyncExitStack`` per
server): callers in any task of that loop send requests through the session,
and :meth:`McpConnection.aclose` asks the owner task to unwind the stack, which
closes the session, stops the server process (stdio) or ends the HTTP session.

What the connection knows of the spec's credentials (the ``authorization``
token, header values, a password or query values in the url) never reaches its
error messages or logs: they are shown as ``***``.

Only this module and :mod:`tooldeck.mcp._attach` import ``mcp``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import subprocess
import sys
import weakref
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import (
    MCP_DEFAULT_SSE_READ_TIMEOUT,
    MCP_DEFAULT_TIMEOUT,
    create_mcp_http_client,
)
from mcp.shared.exceptions import MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    CallToolResult,
    TextContent,
    Tool,
    ToolListChangedNotification,
)

from tooldeck._secrets import Secrets, server_credentials

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams
    from mcp.client.session import IncomingMessage

    from tooldeck._model import McpServerSpec

__all__ = ["ConnectionLost", "McpConnection", "SessionFactory", "describe_error", "result_text"]

log = logging.getLogger("tooldeck.mcp")

SessionFactory = Callable[..., ClientSession]
"""Builds the session over a transport's streams (tests pass a counting subclass)."""

_MAX_PAGES = 100
"""``tools/list`` pages followed before giving up on a server that never stops paging."""

_CLOSE_TIMEOUT = 15.0
"""Seconds :meth:`McpConnection.aclose` waits for an orderly shutdown (stdio bounds its own)."""


class ConnectionLost(ConnectionError):
    """The server went away (process exited, stream closed) or never answered the handshake."""


def describe_error(exc: BaseException) -> str:
    """One line of words for an error, looking through the exception groups anyio raises.

    The first line only: httpx adds a link on the second, pydantic a line per field.
    """
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        return "timed out"
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


class McpConnection:
    """A session with one server, opened by :meth:`start`, owned by a task on the loop.

    ``on_tools_changed`` is called (and awaited, if it returns an awaitable)
    when the server sends ``notifications/tools/list_changed``; it runs in a
    task of its own, so it may list the tools again or close this connection,
    and what it raises is logged, never raised.
    """

    def __init__(
        self,
        spec: McpServerSpec,
        *,
        connect_timeout: float = 30.0,
        session_factory: SessionFactory = ClientSession,
        errlog: Any = None,
        on_tools_changed: Callable[[], Any] | None = None,
    ) -> None:
        self.spec = spec
        self._connect_timeout = connect_timeout
        self._session_factory = session_factory
        self._errlog = errlog
        self._on_tools_changed = on_tools_changed
        self._secrets = server_credentials(spec)
        self._session: ClientSession | None = None
        self._owner: asyncio.Task[None] | None = None
        self._scope: anyio.CancelScope | None = None
        self._ready = asyncio.Event()
        self._closing = asyncio.Event()
        self._error: BaseException | None = None
        self._lost = False
        self._changed_task: asyncio.Task[None] | None = None
        self._changed_again = False

    def __repr__(self) -> str:
        state = "open" if self.alive else "closed"
        return f"<McpConnection {self.spec.name!r} {state}>"

    @property
    def alive(self) -> bool:
        """Whether the session is up and has not been seen to drop."""
        return self._session is not None and not self._lost and not self._closing.is_set()

    def describe(self, exc: BaseException) -> str:
        """:func:`describe_error` with the spec's credentials shown as ``***``."""
        return self._secrets.redact(describe_error(exc))

    async def start(self) -> None:
        """Connect and run the MCP handshake; :class:`ConnectionLost` if that fails.

        Fails within ``connect_timeout`` however the server misbehaves.
        """
        if self._owner is not None:
            raise RuntimeError("an McpConnection starts once; make a new one to reconnect")
        if self.spec.url is not None and self._secrets:
            _redact_logs.live.add(self._secrets)
        self._owner = asyncio.get_running_loop().create_task(
            self._own(), name=f"tooldeck-mcp-{self.spec.name}"
        )
        try:
            await asyncio.wait_for(self._ready.wait(), self._connect_timeout)
        except BaseException as exc:
            await self.aclose()
            if isinstance(exc, TimeoutError):
                raise ConnectionLost(
                    f"no MCP handshake within {self._connect_timeout:g}s"
                ) from None
            raise
        if self._session is None:
            error = self._error
            await self.aclose()
            cause = None if self._secrets else error  # a traceback would show the url
            raise ConnectionLost(self.describe(error) if error else "closed") from cause

    async def _own(self) -> None:
        # The scope lets aclose() stop a handshake the server never answers (this
        # task waits for _closing only after it); an anyio cancellation, unlike
        # task.cancel(), respects the shielded shutdown that stops a stdio server.
        try:
            with anyio.CancelScope() as self._scope:
                if self._closing.is_set():  # closed before this task first ran
                    return
                async with contextlib.AsyncExitStack() as stack:
                    read, write = await stack.enter_async_context(self._transport())
                    session = await stack.enter_async_context(
                        self._session_factory(read, write, message_handler=self._on_message)
                    )
                    await session.initialize()
                    self._session = session
                    self._ready.set()
                    await self._closing.wait()
        except asyncio.CancelledError:
            if not self._closing.is_set():
                raise
        except BaseException as exc:  # any failure: keep it for start() and health
            self._error = exc
            log.debug("MCP server %r: connection ended: %s", self.spec.name, self.describe(exc))
        finally:
            self._session = None
            self._ready.set()
            _redact_logs.live.discard(self._secrets)

    def _transport(self) -> contextlib.AbstractAsyncContextManager[TransportStreams]:
        spec = self.spec
        if spec.command is not None:
            if spec.cwd is not None and not os.path.isdir(spec.cwd):
                # The spawn's own error names only the path, as if the command were missing.
                raise NotADirectoryError(f"cwd {spec.cwd!r} is not an existing directory")
            command, *args = spec.command
            params = StdioServerParameters(
                command=command,
                args=args,
                env=dict(spec.env) or None,
                cwd=spec.cwd,
                # A stray invalid byte on stdout (a library printing) costs the
                # line it is on, not the whole connection.
                encoding_error_handler="replace",
            )
            return stdio_client(params, errlog=_server_stderr(self._errlog))
        assert spec.url is not None  # McpServerSpec checks exactly one of url or command
        if spec.transport == "sse":
            return sse_client(
                spec.url,
                headers=_http_headers(spec),
                timeout=MCP_DEFAULT_TIMEOUT,
                sse_read_timeout=MCP_DEFAULT_SSE_READ_TIMEOUT,
            )
        return _http_transport(spec.url, _http_headers(spec))

    # ------------------------------------------------------------ notifications
    async def _on_message(self, message: IncomingMessage) -> None:
        """The session's ``message_handler``: server notifications and unreadable input."""
        if isinstance(message, ToolListChangedNotification):
            self._tools_changed()
        elif isinstance(message, Exception):  # a line that is not JSON-RPC; the SDK logged it
            log.debug("MCP server %r sent %s", self.spec.name, self.describe(message))

    def _tools_changed(self) -> None:
        """Run ``on_tools_changed`` in a task of its own, at most one at a time.

        Not awaited here: the session runs this handler in its task group,
        which closing the connection cancels, so a callback that relists or
        reconnects would cancel itself. A burst of notifications while the
        callback runs becomes one more run after it, not one task each.
        """
        if self._on_tools_changed is None:
            return
        if self._changed_task is not None and not self._changed_task.done():
            self._changed_again = True
            return
        self._changed_task = asyncio.get_running_loop().create_task(
            self._run_tools_changed(), name=f"tooldeck-mcp-{self.spec.name}-tools-changed"
        )

    async def _run_tools_changed(self) -> None:
        callback = self._on_tools_changed
        assert callback is not None
        while True:
            self._changed_again = False
            try:
                outcome = callback()
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception as exc:
                log.warning(
                    "MCP server %r: on_tools_changed failed: %s",
                    self.spec.name,
                    self.describe(exc),
                    exc_info=True,
                )
            if not self._changed_again:
                return

    # ----------------------------------------------------------------- requests
    async def list_tools(self) -> list[Tool]:
        """Every tool the server offers (following pagination)."""
        session = self._live()
        tools: list[Tool] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            try:
                if cursor is None:
                    page = await session.list_tools()
                else:
                    from mcp_types import PaginatedRequestParams

                    page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
            except MCPError as exc:
                raise self._translate(exc) from exc
            tools.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return tools

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> CallToolResult:
        """``tools/call``; :class:`ConnectionLost` when the connection dropped."""
        session = self._live()
        try:
            return await session.call_tool(name, arguments)
        except MCPError as exc:
            raise self._translate(exc) from exc
        except (OSError, EOFError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            self._lost = True
            raise ConnectionLost(self.describe(exc)) from None if self._secrets else exc

    def _live(self) -> ClientSession:
        session = self._session
        if session is None or self._lost:
            reason = self.describe(self._error) if self._error else "not connected"
            raise ConnectionLost(reason)
        return session

    def _translate(self, exc: MCPError) -> Exception:
        """A closed connection as :class:`ConnectionLost`; other errors with credentials hidden.

        The HTTP transports answer a failed request with an error of their own,
        whose message may quote the url.
        """
        message = self._secrets.redact(exc.message)
        if exc.code == CONNECTION_CLOSED:
            self._lost = True
            return ConnectionLost(f"the server closed the connection ({message})")
        return exc if message == exc.message else MCPError(exc.code, message)

    async def aclose(self) -> None:
        """Close the session and the transport (stops a stdio server); idempotent."""
        self._closing.set()
        owner = self._owner
        if owner is None or owner.done():
            return
        if owner is asyncio.current_task():  # pragma: no cover - closing from inside itself
            return
        if self._session is None and self._scope is not None:
            self._scope.cancel()  # still connecting: stop waiting for the server
        try:
            await asyncio.wait_for(asyncio.shield(owner), _CLOSE_TIMEOUT)
        except TimeoutError:
            owner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await owner


def _http_headers(spec: McpServerSpec) -> dict[str, str]:
    headers = dict(spec.headers)
    if spec.authorization:
        token = spec.authorization
        has_scheme = token.lower().startswith(("bearer ", "basic "))
        headers["Authorization"] = token if has_scheme else f"Bearer {token}"
    return headers


class _RedactLogs(logging.Filter):
    """Shows the open HTTP connections' credentials as ``***`` in the HTTP stack's logs.

    httpx2 logs every request's url at INFO, and the SDK's transports log the
    url and their errors: a password or a key in the url would be printed.
    """

    def __init__(self) -> None:
        super().__init__()
        self.live: weakref.WeakSet[Secrets] = weakref.WeakSet()

    def filter(self, record: logging.LogRecord) -> bool:
        if live := list(self.live):
            try:
                record.msg, record.args = _redact(live, record.getMessage()), ()
            except Exception:  # a broken format: the handler reports it, not the caller
                return True
            if record.exc_info and not record.exc_text:  # formatters reuse exc_text
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            if record.exc_text:
                record.exc_text = _redact(live, record.exc_text)
        return True


def _redact(live: list[Secrets], text: str) -> str:
    for secrets in live:
        text = secrets.redact(text)
    return text


_redact_logs = _RedactLogs()
for _name in ("httpx2", "mcp.client.sse", "mcp.client.streamable_http"):
    logging.getLogger(_name).addFilter(_redact_logs)


@contextlib.asynccontextmanager
async def _http_transport(url: str, headers: dict[str, str]) -> AsyncIterator[TransportStreams]:
    async with (
        create_mcp_http_client(headers=headers) as client,
        streamable_http_client(url, http_client=client) as streams,
    ):
        yield streams


def result_text(result: CallToolResult) -> str:
    """A ``tools/call`` result as text: text blocks joined, else structured content as JSON.

    Blocks that are not text (images, audio, resources) are named in brackets,
    so the model knows they were there.
    """
    content = result.content
    if len(content) == 1 and type(content[0]) is TextContent:  # the usual answer
        return content[0].text
    import json

    from mcp_types import EmbeddedResource, ResourceLink, TextResourceContents

    parts: list[str] = []
    for block in result.content:
        if isinstance(block, TextContent):
            parts.append(block.text)
        elif isinstance(block, EmbeddedResource):
            inner = block.resource
            if isinstance(inner, TextResourceContents):
                parts.append(inner.text)
            else:
                parts.append(f"[resource {inner.uri}]")
        elif isinstance(block, ResourceLink):
            parts.append(f"[resource link {block.uri}]")
        else:
            mime = getattr(block, "mime_type", None)
            parts.append(f"[{block.type} content{f' ({mime})' if mime else ''}]")
    if any(isinstance(block, TextContent) for block in result.content):
        return "\n".join(parts)
    if result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False, default=str)
    return "\n".join(parts)


def _server_stderr(errlog: Any) -> Any:
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
