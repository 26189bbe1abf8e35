"""One live connection to one external MCP server (stdio, Streamable HTTP or legacy SSE).

The ``mcp`` SDK's transports and sessions are anyio task groups: they must be
entered and left by the same task. :class:`McpConnection` therefore owns each
connection in a task of its own on the event loop (an ``AsyncExitStack`` per
server): callers in any task of that loop send requests through the session,
and :meth:`McpConnection.aclose` asks the owner task to unwind the stack, which
closes the session, stops the server process (stdio) or ends the HTTP session.

Every exchange ends: a call fails with :class:`CallTimedOut` past its timeout
(however the server misbehaves, a reply it never sends or one nobody can read),
a message over the spec's ``max_reply_bytes`` ends the connection with
:class:`ReplyRefused` (:mod:`tooldeck.mcp._attaching.transports`), and a tool list over
``max_tools`` tools, 1,000 pages or four times ``max_reply_bytes`` in all is
refused whole (:class:`ListingRefused`), never cut short.

What the connection knows of the spec's credentials (the ``authorization``
token, header values, a password or query values in the url) never reaches its
error messages or logs: they are shown as ``***``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import warnings
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types import (
    CONNECTION_CLOSED,
    CallToolResult,
    GetPromptResult,
    PaginatedRequestParams,
    Prompt,
    PromptListChangedNotification,
    ReadResourceResult,
    Resource,
    ResourceListChangedNotification,
    ResourceTemplate,
    ResourceUpdatedNotification,
    Tool,
    ToolListChangedNotification,
)

from ..._model import MCP_CALL_TIMEOUT
from ..._secrets import server_credentials
from ..._words import plural
from .logs import redact_logs
from .stdio import TOO_MANY_TOOLS, TransportState
from .transports import open_transport

if TYPE_CHECKING:
    from mcp.client.session import IncomingMessage
    from mcp.shared.dispatcher import ProgressFnT

    from ..._model import McpServerSpec

__all__ = [
    "CallTimedOut",
    "ConnectionLost",
    "ListingRefused",
    "McpConnection",
    "Refused",
    "ReplyRefused",
    "SessionFactory",
    "describe_error",
]

log = logging.getLogger("tooldeck.mcp")

_T = TypeVar("_T")

SessionFactory = Callable[..., ClientSession]
"""Builds the session over a transport's streams (tests pass a counting subclass)."""

_MAX_PAGES = 1000
"""``tools/list`` pages followed before refusing a server that never stops paging."""

_LISTING_REPLIES = 4
"""A whole tool list may total this many times ``max_reply_bytes`` (16 MiB by default)."""

_CLOSE_TIMEOUT = 15.0
"""Seconds :meth:`McpConnection.aclose` waits for an orderly shutdown (stdio bounds its own)."""


class ConnectionLost(ConnectionError):
    """The server went away (process exited, stream closed) or never answered the handshake."""


class Refused(Exception):
    """What the server did was not accepted; the message says why, in full, for the caller.

    Not retried: the same request would meet the same answer.
    """


class CallTimedOut(Refused, TimeoutError):
    """A ``tools/call`` got no readable answer within its timeout."""


class ReplyRefused(Refused):
    """A message from the server went over ``max_reply_bytes``: the connection was ended."""


class ListingRefused(Refused):
    """A listing went over its count (``max_tools``), the page cap or the byte budget:
    left out whole."""


def describe_error(exc: BaseException) -> str:
    """One line of words for an error, looking through the exception groups anyio raises.

    The first line only: httpx adds a link on the second, pydantic a line per field.
    """
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, Refused):
        return str(exc)
    if isinstance(exc, TimeoutError):
        return "timed out"
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


MAX_SUBSCRIBED = 256
"""An attached server's resources whose updates the gateway asks for, at most."""


class McpConnection:
    """A session with one server, opened by :meth:`start`, owned by a task on the loop.

    ``on_tools_changed`` is called (and awaited, if it returns an awaitable)
    when the server sends ``notifications/tools/list_changed`` (or the
    prompts' or resources' ``list_changed``); it runs in a task of its own, so
    it may list the server again or close this connection, and what it
    raises is logged, never raised.
    """

    def __init__(
        self,
        spec: McpServerSpec,
        *,
        connect_timeout: float = 30.0,
        session_factory: SessionFactory = ClientSession,
        errlog: Any = None,
        on_tools_changed: Callable[[], Any] | None = None,
        on_resource_updated: Callable[[str], None] | None = None,
    ) -> None:
        self.spec = spec
        self._connect_timeout = connect_timeout
        self._session_factory = session_factory
        self._errlog = errlog
        self._on_tools_changed = on_tools_changed
        self._on_resource_updated = on_resource_updated
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
        self._transport = TransportState()

    def __repr__(self) -> str:
        state = "open" if self.alive else "closed"
        return f"<McpConnection {self.spec.name!r} {state}>"

    @property
    def alive(self) -> bool:
        """Whether the session is up and has not been seen to drop."""
        return (
            self._session is not None
            and not self._lost
            and not self._closing.is_set()
            and self._transport.refused is None
        )

    def describe(self, exc: BaseException) -> str:
        """:func:`describe_error` with the spec's credentials shown as ``***``."""
        return self._secrets.redact(describe_error(exc))

    async def start(self) -> None:
        """Connect and run the MCP handshake; :class:`ConnectionLost` if that fails
        (:class:`ReplyRefused` if the server's answer went over ``max_reply_bytes``).

        Fails within ``connect_timeout`` however the server misbehaves.
        """
        if self._owner is not None:
            raise RuntimeError("an McpConnection starts once; make a new one to reconnect")
        if self.spec.url is not None and self._secrets:
            redact_logs.live.add(self._secrets)
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
            if self._transport.refused is not None:
                raise self._refused()
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
                    read, write = await stack.enter_async_context(
                        open_transport(self.spec, errlog=self._errlog, state=self._transport)
                    )
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
            redact_logs.live.discard(self._secrets)

    # ------------------------------------------------------------ notifications
    async def _on_message(self, message: IncomingMessage) -> None:
        """The session's ``message_handler``: server notifications and unreadable input."""
        if isinstance(
            message,
            ToolListChangedNotification
            | PromptListChangedNotification
            | ResourceListChangedNotification,
        ):
            self._tools_changed()
        elif isinstance(message, ResourceUpdatedNotification):
            if self._on_resource_updated is not None:
                try:
                    self._on_resource_updated(str(message.params.uri))
                except Exception as exc:  # a listener's failure is not the server's
                    log.warning("MCP server %r: a resource update failed: %s", self.spec.name, exc)
        elif isinstance(message, Exception):  # a line that is not JSON-RPC (logged at debug)
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
        """Every tool the server offers (following pagination), or :class:`ListingRefused`.

        A listing past ``max_tools`` tools, :data:`_MAX_PAGES` pages or
        :data:`_LISTING_REPLIES` times ``max_reply_bytes`` is refused whole:
        a server's tools are all there or none is. The caller bounds the time.
        """
        session = self._live()
        return await self._list_all(session.list_tools, "tools", "tool")

    def offers(self, capability: str) -> bool:
        """Whether the server declared ``capability`` (``prompts``, ``resources``): only
        then is it asked for them."""
        session = self._session
        capabilities = None if session is None else session.server_capabilities
        return capabilities is not None and getattr(capabilities, capability, None) is not None

    async def list_prompts(self) -> list[Prompt]:
        """Every prompt the server offers, bounded as :meth:`list_tools` is (``max_tools``)."""
        session = self._live()
        return await self._list_all(session.list_prompts, "prompts", "prompt")

    async def list_resources(self) -> list[Resource]:
        """Every fixed resource the server offers, bounded as :meth:`list_tools` is."""
        session = self._live()
        return await self._list_all(session.list_resources, "resources", "resource")

    async def subscribe_resources(self, uris: list[str], timeout: float) -> int:
        """Ask for ``notifications/resources/updated`` about ``uris`` (at most
        :data:`MAX_SUBSCRIBED`), if the server offers subscriptions; how many it took.

        Best effort: a refusal leaves that URI unwatched (logged at debug).
        """
        session = self._live()
        capability = getattr(session.server_capabilities, "resources", None)
        if capability is None or not getattr(capability, "subscribe", False):
            return 0
        taken = 0
        for uri in uris[:MAX_SUBSCRIBED]:
            try:
                with warnings.catch_warnings():  # 2025-era subscriptions: what this session speaks
                    warnings.simplefilter("ignore", MCPDeprecationWarning)
                    await asyncio.wait_for(session.subscribe_resource(uri), timeout)
                taken += 1
            except Exception as exc:
                log.debug("MCP server %r: cannot subscribe to %r: %s", self.spec.name, uri, exc)
        return taken

    async def list_resource_templates(self) -> list[ResourceTemplate]:
        """Every resource template the server offers, bounded as :meth:`list_tools` is."""
        session = self._live()
        return await self._list_all(
            session.list_resource_templates, "resource_templates", "resource template"
        )

    async def _list_all(self, request: Callable[..., Any], field: str, noun: str) -> list[Any]:
        most = self.spec.max_tools
        budget = _LISTING_REPLIES * self.spec.max_reply_bytes
        start = self._transport.received
        found: list[Any] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            params = None if cursor is None else PaginatedRequestParams(cursor=cursor)
            try:
                page = await request(params=params)
            except MCPError as exc:
                if exc.code == TOO_MANY_TOOLS:  # screened by the stdio transport
                    raise ListingRefused(exc.message) from None
                raise self._translate(exc) from exc
            found.extend(getattr(page, field))
            if len(found) > most:
                raise ListingRefused(
                    f"it lists more than {plural(most, noun, grouped=True)} (max_tools)"
                )
            if self._transport.received - start > budget:
                raise ListingRefused(
                    f"its {noun} list is over {budget:,} bytes (4 x max_reply_bytes)"
                )
            cursor = page.next_cursor
            if cursor is None:
                return found
        raise ListingRefused(f"its {noun} list goes on past {_MAX_PAGES:,} pages")

    async def call_tool(
        self,
        name: str,
        arguments: dict[str, Any],
        *,
        timeout: float = MCP_CALL_TIMEOUT,
        progress: ProgressFnT | None = None,
    ) -> CallToolResult:
        """``tools/call``, answered within ``timeout`` seconds or :class:`CallTimedOut`.

        :class:`ConnectionLost` when the connection dropped, :class:`ReplyRefused`
        when the reply (or another message) went over ``max_reply_bytes``.
        The timeout covers sending too: a server that stops reading its
        input cannot hold the caller either. The request runs in a task of
        its own, which a timeout cancels without waiting for it: the SDK then
        tells the server (``notifications/cancelled``), which may itself take
        a few seconds with a server that does not read. ``progress`` hears the
        server's progress notifications for this call (asked for only when given).
        """
        session = self._live()
        request = session.call_tool(name, arguments, progress_callback=progress)
        return await self._request(request, f"tool {name!r}", timeout)

    async def get_prompt(
        self, name: str, arguments: dict[str, str], *, timeout: float = MCP_CALL_TIMEOUT
    ) -> GetPromptResult:
        """``prompts/get``, bounded and translated as :meth:`call_tool` is."""
        session = self._live()
        return await self._request(session.get_prompt(name, arguments), f"prompt {name!r}", timeout)

    async def read_resource(
        self, uri: str, *, timeout: float = MCP_CALL_TIMEOUT
    ) -> ReadResourceResult:
        """``resources/read``, bounded and translated as :meth:`call_tool` is."""
        session = self._live()
        return await self._request(session.read_resource(uri), f"resource {uri!r}", timeout)

    async def _request(self, coroutine: Awaitable[_T], what: str, timeout: float) -> _T:
        request = asyncio.ensure_future(coroutine)
        try:
            return await asyncio.wait_for(asyncio.shield(request), timeout)
        except TimeoutError:
            if self._transport.refused is not None:
                raise self._refused() from None
            raise CallTimedOut(
                f"{what} on MCP server {self.spec.name!r} did not answer within {timeout:g} s"
            ) from None
        except MCPError as exc:
            raise self._translate(exc) from exc
        except (OSError, EOFError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            self._lost = True
            if self._transport.refused is not None:
                raise self._refused() from None
            raise ConnectionLost(self.describe(exc)) from None if self._secrets else exc
        finally:
            if not request.done():  # timed out or cancelled: the SDK tells the server
                request.cancel()
                request.add_done_callback(_retrieve)

    def _live(self) -> ClientSession:
        session = self._session
        if self._transport.refused is not None:
            raise self._refused()
        if session is None or self._lost:
            reason = self.describe(self._error) if self._error else "not connected"
            raise ConnectionLost(reason)
        return session

    def _refused(self) -> ReplyRefused:
        self._lost = True
        return ReplyRefused(self._transport.refused)

    def _translate(self, exc: MCPError) -> Exception:
        """A closed connection as :class:`ConnectionLost`; other errors with credentials hidden.

        Any failure after the transport refused a message is that refusal
        (the request waiting for the refused reply sees the connection close,
        or its reply unreadable). The HTTP transports answer a failed request
        with an error of their own, whose message may quote the url.
        """
        if self._transport.refused is not None:
            return self._refused()
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


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Collect an abandoned request's outcome, so asyncio does not report it as unretrieved."""
    if not task.cancelled():
        task.exception()
