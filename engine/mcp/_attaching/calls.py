"""The attachment's requests to its servers: ``tools/call``, ``prompts/get``, connecting.

A mixin of :class:`~tooldeck.mcp._attaching.attachment.McpAttachment` (as
:class:`~tooldeck.mcp._attaching.source.AttachedSource` is), so that module
stays about listing and publishing. Both requests follow one set of rules:
an expired listing is refreshed first (the tool or prompt must still be
offered), a connection that died reconnects once before the request fails,
a reply over ``max_reply_bytes`` ends the connection and is not retried,
the server's protocol errors come back in its words, and every failure
names what the registry calls the tool or prompt, never the server's own
name for it (:mod:`tooldeck.mcp._attaching.callerrors`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError

from ..._errors import ToolFailed
from ..._prompts import PromptMessage
from .callerrors import failed, server_words, timed_out, unavailable
from .connection import (
    CallTimedOut,
    ConnectionLost,
    McpConnection,
    Refused,
    SessionFactory,
    describe_error,
)
from .prompts import prompt_messages
from .resources import read_contents
from .results import result_text, result_value

if TYPE_CHECKING:
    from mcp.shared.dispatcher import ProgressFnT

    from ..._calltypes import ToolContext
    from ..._resourceread import ResourceContents
    from .state import ServerState

__all__ = ["RemoteRequests"]

log = logging.getLogger("tooldeck.mcp")

_T = TypeVar("_T")


class RemoteRequests:
    """Calls, prompt renders and connections; the request half of McpAttachment."""

    _closed: bool
    _connect_timeout: float
    _session_factory: SessionFactory = ClientSession
    _errlog: Any

    if TYPE_CHECKING:  # McpAttachment's

        def _expired(self, state: ServerState) -> bool: ...

        async def _refresh(self, state: ServerState, *, force: bool) -> Any: ...

        def _tools_changed(self, state: ServerState) -> None: ...

        def _resource_updated(self, state: ServerState, uri: str) -> None: ...

    async def _call(  # noqa: PLR0917
        self,
        state: ServerState,
        name: str,
        remote: str,
        arguments: dict[str, Any],
        timeout: float,
        context: ToolContext | None = None,
    ) -> str | list[Any]:
        """Call ``remote`` for the registry's tool ``name``; every failure names ``name``.

        Its answer is text, or text and media (:func:`~.results.result_value`)."""

        progress = _progress_to(context)

        async def call(conn: McpConnection) -> str | list[Any]:
            result = await conn.call_tool(
                remote, dict(arguments), timeout=timeout, progress=progress
            )
            if result.is_error:
                words = server_words(result_text(result), remote)
                raise ToolFailed(failed(name, state.spec.name, words), kind="mcp_error")
            return result_value(result)

        return await self._request(state, name, remote, call, timeout)

    async def _get_prompt(
        self, state: ServerState, name: str, remote: str, arguments: dict[str, Any], timeout: float
    ) -> tuple[PromptMessage, ...]:
        """Render ``remote`` for the registry's prompt ``name``; every failure names ``name``."""
        values = {key: str(value) for key, value in arguments.items()}  # MCP: strings

        async def get(conn: McpConnection) -> tuple[PromptMessage, ...]:
            return prompt_messages(await conn.get_prompt(remote, values, timeout=timeout))

        return await self._request(state, name, remote, get, timeout, kind="prompt")

    async def _read_resource(
        self, state: ServerState, key: str, uri: str, timeout: float
    ) -> tuple[ResourceContents, ...]:
        """Read ``uri`` for the registry's resource ``key``; every failure names ``uri``."""

        async def read(conn: McpConnection) -> tuple[ResourceContents, ...]:
            try:
                return read_contents(uri, await conn.read_resource(uri, timeout=timeout))
            except ValueError as exc:
                raise ToolFailed(
                    failed(uri, state.spec.name, str(exc), "resource"), kind="mcp_error"
                ) from None

        return await self._request(state, uri, key, read, timeout, kind="resource")

    async def _request(
        self,
        state: ServerState,
        name: str,
        remote: str,
        send: Callable[[McpConnection], Awaitable[_T]],
        timeout: float,
        *,
        kind: str = "tool",
    ) -> _T:
        server = state.spec.name
        if self._closed:
            raise ToolFailed(unavailable(name, server, "is detached", kind), kind="execution_error")
        if self._expired(state):
            await self._refresh(state, force=False)
            if remote not in _current(state, kind).values():
                why = f": {state.error}" if state.error else ""
                raise ToolFailed(
                    unavailable(name, server, f"no longer offers it{why}", kind),
                    kind="execution_error",
                )
        for attempt in (1, 2):
            conn = None
            try:
                live = state.conn  # (the usual case, without a call to _connect)
                conn = live if live is not None and live.alive else await self._connect(state)
                answer = await send(conn)
            except CallTimedOut:
                raise ToolFailed(timed_out(name, server, timeout, kind), kind="timeout") from None
            except Refused as exc:  # a reply over max_reply_bytes: that connection ended
                await self._evict(state, conn)
                state.error = f"connection ended: {exc}"
                log.warning("MCP server %r: %s", server, state.error)
                raise ToolFailed(
                    failed(name, server, str(exc), kind), kind="execution_error"
                ) from None
            except (ConnectionLost, OSError) as exc:
                await self._evict(state, conn)
                state.error = f"connection lost: {describe_error(exc)}"
                log.warning("MCP server %r: %s (attempt %d)", server, state.error, attempt)
                if attempt == 2:
                    raise ToolFailed(
                        unavailable(name, server, f"is unreachable ({describe_error(exc)})", kind),
                        kind="execution_error",
                    ) from exc
                continue
            except MCPError as exc:  # the server answered with a protocol error
                words = server_words(exc.message, remote)
                raise ToolFailed(failed(name, server, words, kind), kind="mcp_error") from exc
            if state.listed_at is not None:
                state.error = None
            return answer
        raise AssertionError("unreachable")  # pragma: no cover

    async def _connect(self, state: ServerState) -> McpConnection:
        conn = state.conn
        if conn is not None and conn.alive:
            return conn
        async with state.connect_lock:
            conn = state.conn
            if conn is not None and conn.alive:
                return conn
            if conn is not None:
                await self._evict(state, conn)
            conn = McpConnection(
                state.spec,
                connect_timeout=self._connect_timeout,
                session_factory=self._session_factory,
                errlog=self._errlog,
                on_tools_changed=lambda: self._tools_changed(state),
                on_resource_updated=lambda uri: self._resource_updated(state, uri),
            )
            await conn.start()
            state.connects += 1
            if self._closed:  # aclose ran while connecting
                await conn.aclose()
                raise ConnectionLost("the attachment closed")
            state.conn = conn
            return conn

    async def _evict(self, state: ServerState, conn: McpConnection | None) -> None:
        """Drop ``conn`` (only if it is still the server's) so the next use reconnects."""
        if conn is None:
            return
        if state.conn is conn:
            state.conn = None
        try:
            await conn.aclose()
        except Exception as exc:  # closing a broken connection must not fail the caller
            log.debug("MCP server %r: close failed: %s", state.spec.name, describe_error(exc))


def _current(state: ServerState, kind: str) -> dict[str, str]:
    """Registered name -> remote name, of tools, prompts or resources (key -> key), as the
    last publication left them."""
    if kind == "resource":
        return {key: key for key in state.resources.keys}
    return state.tools if kind == "tool" else state.prompts.remote_names


def _progress_to(context: ToolContext | None) -> ProgressFnT | None:
    """The server's progress for a call, passed on to whoever listens to the call (the
    gateway's client that sent a progressToken); None, and nothing asked of the server,
    when nobody does."""
    if context is None or not context.listened:
        return None

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        try:
            context.report_progress(progress, total, message)
        except (TypeError, ValueError):  # the server's numbers, not ours: dropped
            log.debug("MCP progress not passed on: progress=%r total=%r", progress, total)

    return progress
