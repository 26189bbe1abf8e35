"""One live connection to one external MCP server (stdio or Streamable HTTP).

The ``mcp`` SDK's transports and sessions are anyio task groups: they must be
entered and left by the same task. :class:`McpConnection` therefore owns each
connection in a task of its own on the event loop (an ``AsyncExitStack`` per
server): callers in any task of that loop send requests through the session,
and :meth:`McpConnection.aclose` asks the owner task to unwind the stack, which
closes the session, stops the server process (stdio) or ends the HTTP session.

Only this module and :mod:`tooldeck.mcp._attach` import ``mcp``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, CallToolResult, Tool

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams

    from tooldeck._model import McpServerSpec

__all__ = [
    "ConnectionLost",
    "McpConnection",
    "SessionFactory",
    "describe_error",
    "result_text",
]

log = logging.getLogger("tooldeck.mcp")

SessionFactory = Callable[..., ClientSession]
"""Builds the session over a transport's streams (tests pass a counting subclass)."""

_MAX_PAGES = 100
"""``tools/list`` pages followed before giving up on a server that never stops paging."""


class ConnectionLost(ConnectionError):
    """The server went away (process exited, stream closed) or never answered the handshake."""


def describe_error(exc: BaseException) -> str:
    """Words for an error, looking through the exception groups anyio raises."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        return "timed out"
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class McpConnection:
    """A session with one server, opened by :meth:`start`, owned by a task on the loop."""

    def __init__(
        self,
        spec: McpServerSpec,
        *,
        connect_timeout: float = 30.0,
        session_factory: SessionFactory = ClientSession,
        errlog: Any = None,
    ) -> None:
        self.spec = spec
        self._connect_timeout = connect_timeout
        self._session_factory = session_factory
        self._errlog = errlog
        self._session: ClientSession | None = None
        self._owner: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._closing = asyncio.Event()
        self._error: BaseException | None = None
        self._lost = False

    def __repr__(self) -> str:
        state = "open" if self.alive else "closed"
        return f"<McpConnection {self.spec.name!r} {state}>"

    @property
    def alive(self) -> bool:
        """Whether the session is up and has not been seen to drop."""
        return self._session is not None and not self._lost and not self._closing.is_set()

    async def start(self) -> None:
        """Connect and run the MCP handshake; raises :class:`ConnectionLost` if that fails."""
        if self._owner is not None:
            raise RuntimeError("an McpConnection starts once; make a new one to reconnect")
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
            raise ConnectionLost(describe_error(error) if error else "closed") from error

    async def _own(self) -> None:
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(self._session_factory(read, write))
                await session.initialize()
                self._session = session
                self._ready.set()
                await self._closing.wait()
        except asyncio.CancelledError:
            if not self._closing.is_set():
                raise
        except BaseException as exc:  # any failure: keep it for start() and health
            self._error = exc
            log.debug("MCP server %r: connection ended: %s", self.spec.name, describe_error(exc))
        finally:
            self._session = None
            self._ready.set()

    def _transport(self) -> contextlib.AbstractAsyncContextManager[TransportStreams]:
        spec = self.spec
        if spec.command is not None:
            command, *args = spec.command
            params = StdioServerParameters(
                command=command,
                args=args,
                env=dict(spec.env) or None,
                cwd=getattr(spec, "cwd", None),
            )
            if self._errlog is not None:
                return stdio_client(params, errlog=self._errlog)
            return stdio_client(params)
        assert spec.url is not None  # McpServerSpec checks exactly one of url or command
        return _http_transport(spec.url, _http_headers(spec))

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
        except (OSError, EOFError) as exc:
            self._lost = True
            raise ConnectionLost(describe_error(exc)) from exc

    def _live(self) -> ClientSession:
        session = self._session
        if session is None or self._lost:
            reason = describe_error(self._error) if self._error else "not connected"
            raise ConnectionLost(reason)
        return session

    def _translate(self, exc: MCPError) -> Exception:
        if exc.code == CONNECTION_CLOSED:
            self._lost = True
            return ConnectionLost(f"the server closed the connection ({exc.message})")
        return exc

    async def aclose(self) -> None:
        """Close the session and the transport (stops a stdio server); idempotent."""
        self._closing.set()
        owner = self._owner
        if owner is None or owner.done():
            return
        if owner is asyncio.current_task():  # pragma: no cover - closing from inside itself
            return
        try:
            # The stdio transport bounds its own shutdown (stdin close, SIGTERM, SIGKILL).
            await asyncio.wait_for(asyncio.shield(owner), 15.0)
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
    import json

    from mcp_types import EmbeddedResource, ResourceLink, TextContent, TextResourceContents

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
