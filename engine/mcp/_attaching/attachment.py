"""External MCP servers (``via: client``) attached to a registry as tools.

:class:`McpAttachment` connects to each server (:mod:`tooldeck.mcp._attaching.connection`),
lists its tools and registers them in the group ``mcp:<server name>`` as
external tools named ``prefix + tool name``. Their handler is a coroutine that
sends ``tools/call`` on the attachment's event loop; the registry's loop portal
brings calls there from any thread, so ``registry.call`` works from worker
threads and ``await registry.acall`` from the loop itself.

Semantics (those of the MCP-aware Java tool registry's client-side MCP support), with who gets a
name decided by :mod:`tooldeck._shadowing` (one rule, which lint shares) and
what each group holds by :mod:`tooldeck.mcp._attaching.listing`, all servers
published together by :mod:`tooldeck.mcp._attaching.publish`:

* a local tool keeps its name, and so does a ``use:`` entry from the moment
  its manifest loads, whether its server is listed yet or not; between
  servers the one declared first keeps a name, whichever lists first; what
  loses is left out and reported in :meth:`McpAttachment.health`. A local
  tool declared after a server's tool took its name takes it over in the
  same swap (the server's groups yield, ``GroupContent.yields``);
* ``use: SERVER/TOOL`` entries in the manifests become tools once their
  server is listed, reshaped against its live schema; an edit of those
  entries or of local tools (a reload) re-publishes from the cached
  listings without a round trip, and an edit of a server's declaration
  reconnects it;
* a server that announces ``tools/list_changed`` is listed again at once;
  announcements during that listing make one more listing after it (a
  second apart at least), however many there are;
* the attachment is a :class:`~tooldeck._sources.ToolSource` of its registry
  (:mod:`tooldeck.mcp._attaching.source`): ``initialize_on_startup: false``
  servers connect on first use, the first time the registry lists its tools
  (``tools()``, an export, the model loop, the MCP server's ``tools/list``)
  or is asked for a name it does not hold that one of them may provide;
* each server's tool list is cached for its ``cache_ttl`` and listed again
  lazily: at the registry's next listing, or when one of its tools is called
  after expiry (or on :meth:`McpAttachment.ensure_fresh` / :meth:`McpAttachment.refresh`);
* :meth:`McpAttachment.close` ends every connection but stays attached: the
  next listing or call reconnects; :meth:`McpAttachment.aclose` detaches;
* a server that cannot be reached or fails is logged, its tools are left out,
  other servers are unaffected, and its connection is dropped so the next use
  reconnects; nothing raises out of listing or refreshing;
* a call on a connection that died reconnects once before failing with an
  ``execution_error``; a tool result with ``isError`` fails the call with the
  server's words (kind ``mcp_error``); every failure names the tool that was
  called (a ``use:`` entry's name, the prefixed name), never the server's own
  name for it (:mod:`tooldeck.mcp._attaching.callerrors`);
* every call ends: past the tool's timeout (the server's ``timeout``, else
  the attachment's, else :data:`~tooldeck._model.MCP_CALL_TIMEOUT`) it fails
  with kind ``timeout``; a reply over ``max_reply_bytes`` ends the connection
  and fails the call (``execution_error``, not retried; the next call
  reconnects).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from mcp.client.session import ClientSession

from ..._calltypes import ToolContext
from ..._entries import GroupContent, RegistryChange
from ..._errors import ToolFailed
from ..._model import MCP_CALL_TIMEOUT, McpServerSpec
from ..._portal import LoopPortal, arun_on
from ..._reshape import Forward
from ..._resourceapi import RESOURCE_URI
from .calls import RemoteRequests
from .connection import SessionFactory, describe_error
from .extras import list_extras
from .listing import group_name, precompile, rejected_by_filter
from .publish import publish
from .source import AttachedSource
from .state import ServerHealth, ServerState

if TYPE_CHECKING:
    from types import TracebackType

    from ..._prompts import PromptMessage
    from ..._registry import ToolRegistry
    from ..._resourceread import ResourceContents
    from ..._uritemplate import UriTemplate

__all__ = ["McpAttachment", "ServerHealth", "group_name"]

log = logging.getLogger("tooldeck.mcp")

_COMPILE_INLINE = 64
"""Listings up to this many tools are compiled on the loop; longer ones in a worker thread."""

_RELIST_SPACING = 1.0
"""Seconds between the starts of two listings that follow ``tools/list_changed``."""


class McpAttachment(AttachedSource, RemoteRequests):
    """Client-side MCP servers as registry tools; see the module docstring.

    Args:
        registry: where the tools go (one group ``mcp:<name>`` per server).
        servers: the specs to attach; by default every ``via="client"`` server
            the registry declares. Hosted servers are ignored.
        timeout: seconds a call may take (the tools' ``ToolSpec.timeout``);
            ``None``: the registry default, and the server is given up on
            after :data:`~tooldeck._model.MCP_CALL_TIMEOUT` (60 s).
        timeouts: per-server call timeouts by server name, over ``timeout``
            (a server's own ``timeout`` in its declaration wins over both).
        connect_timeout: seconds for spawning/connecting and the handshake,
            and for each ``tools/list``.
        retry_after: seconds before a failed server counts as stale again
            (its ``cache_ttl`` if that is shorter).
        session_factory: builds the ``ClientSession`` (tests count requests).
        errlog: where a stdio server's stderr goes (default: this process's).
    """

    def __init__(
        self,
        registry: ToolRegistry,
        servers: Iterable[McpServerSpec] | None = None,
        *,
        timeout: float | None = None,
        timeouts: Mapping[str, float] | None = None,
        connect_timeout: float = 30.0,
        retry_after: float = 5.0,
        session_factory: SessionFactory = ClientSession,
        errlog: Any = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.registry = registry
        specs = registry.mcp_servers() if servers is None else tuple(servers)
        self._follow = servers is None
        """Whether servers declared (or removed) later by a reload are attached too."""
        self._servers = {s.name: ServerState(s) for s in specs if s.via == "client"}
        self._uses = registry.tool_uses()
        self._prompt_uses = registry.prompt_uses()
        self._unsubscribe: Callable[[], None] | None = None
        self._unsource: Callable[[], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._timeout = timeout
        self._timeouts = dict(timeouts or {})
        self._connect_timeout = connect_timeout
        self._retry_after = retry_after
        self._session_factory = session_factory
        self._errlog = errlog
        self._clock = clock
        self._closed = False
        self._set_loop = False

    def __repr__(self) -> str:
        return f"<McpAttachment servers={sorted(self._servers)}>"

    @property
    def servers(self) -> tuple[str, ...]:
        """The attached server names."""
        return tuple(self._servers)

    # ------------------------------------------------------------ lifecycle
    async def start(self) -> dict[str, RegistryChange]:
        """Connect to every server and register its tools; never raises for a server.

        Servers declared with ``initialize_on_startup: false`` wait for their
        first use: the registry refreshes its stale sources, this one included,
        before it lists tools or answers a name it does not hold.
        """
        self._loop = asyncio.get_running_loop()
        if self.registry.loop is None:
            self.registry.use_loop(self._loop)
            self._set_loop = True
        self._unsubscribe = self.registry.subscribe(self._on_registry_change)
        self._unsource = self.registry.add_source(self)
        self._uses = self.registry.tool_uses()
        self._prompt_uses = self.registry.prompt_uses()
        eager = [n for n, s in self._servers.items() if s.spec.initialize_on_startup]
        return await self.refresh(*eager) if eager else {}

    async def __aenter__(self) -> McpAttachment:
        await self.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Unregister every server's tools and close every connection (stops stdio servers)."""
        if self._closed:
            return
        self._closed = True
        if self._unsource is not None:
            self._unsource()
        if self._unsubscribe is not None:
            self._unsubscribe()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self.registry.replace_groups({s.group: GroupContent() for s in self._servers.values()})
        await asyncio.gather(
            *(self._evict(state, state.conn) for state in self._servers.values()),
            return_exceptions=True,
        )
        if self._set_loop and self.registry.loop is asyncio.get_running_loop():
            self.registry.use_loop(None)

    # ------------------------------------------------------------- listings
    async def refresh(self, *names: str) -> dict[str, RegistryChange]:
        """List the tools of ``names`` (default: every server) again, now."""
        chosen = [self._state(n) for n in names] if names else list(self._servers.values())
        changes = await asyncio.gather(*(self._refresh(s, force=True) for s in chosen))
        return {s.spec.name: c for s, c in zip(chosen, changes, strict=True)}

    async def ensure_fresh(self) -> dict[str, RegistryChange]:
        """List again the servers whose cache expired (and retry failed ones after a pause)."""
        stale = [s for s in self._servers.values() if self._expired(s)]
        changes = await asyncio.gather(*(self._refresh(s, force=False) for s in stale))
        return {s.spec.name: c for s, c in zip(stale, changes, strict=True)}

    def clear_cache(self, *names: str) -> None:
        """Forget cached tool lists: the next use (or :meth:`ensure_fresh`) lists again."""
        for state in [self._state(n) for n in names] if names else self._servers.values():
            state.listed_at = None
            state.checked_at = None

    def health(self) -> dict[str, ServerHealth]:
        """Each server's state: connected, tools, shadowed names, last error."""
        return {name: state.health() for name, state in self._servers.items()}

    def _state(self, name: str) -> ServerState:
        try:
            return self._servers[name]
        except KeyError:
            raise KeyError(f"no attached MCP server {name!r}") from None

    async def _refresh(self, state: ServerState, *, force: bool) -> RegistryChange:
        async with state.list_lock:
            if self._closed:
                return RegistryChange()
            if not force and not self._expired(state):
                return RegistryChange()  # another caller listed while this one waited
            conn = None
            try:
                conn = await self._connect(state)
                tools = await asyncio.wait_for(conn.list_tools(), self._connect_timeout)
                rejected = await rejected_by_filter(state.spec, tools)
            except Exception as exc:  # one server's failure never spreads
                state.error = f"cannot list tools: {describe_error(exc)}"
                state.checked_at = self._clock()
                log.warning(
                    "MCP server %r: %s; its tools are left out", state.spec.name, state.error
                )
                await self._evict(state, conn)
                state.remote = state.remote_prompts = state.remote_resources = None
                return self._publish().get(state.spec.name, RegistryChange())
            extras = await list_extras(conn, state.spec.name, self._connect_timeout)
            if len(tools) > _COMPILE_INLINE:  # compiling thousands of schemas: not on the loop
                handlers = {tool.name: self._handler(state, tool.name) for tool in tools}
                compiled = await asyncio.to_thread(
                    precompile,
                    state.spec,
                    tools,
                    self._uses,
                    raw_handler=handlers.__getitem__,
                    timeout=self._timeout_of(state.spec),
                    compiled=state.built.compiled,
                    rejected=rejected,
                )
                state.built.compiled.update(compiled)
            if self._closed or self._servers.get(state.spec.name) is not state:
                return RegistryChange()  # closed, or the declaration changed, meanwhile
            state.error = None
            state.listed_at = state.checked_at = self._clock()
            state.remote, state.rejected = tools, rejected
            state.remote_prompts, state.prompts_error = extras.prompts, extras.prompts_error
            state.remote_resources = extras.resources
            state.resources_error = extras.resources_error
            return self._publish().get(state.spec.name, RegistryChange())

    def _publish(self, gone: Iterable[str] = ()) -> dict[str, RegistryChange]:
        """Every server's group again, as the naming rule says now (see ``_publish.py``)."""
        return publish(
            self.registry,
            self._servers,
            self._uses,
            raw_handler=self._handler,
            use_handler=self._use_handler,
            timeout_of=self._timeout_of,
            prompt_uses=self._prompt_uses,
            renderer=self._renderer,
            reader=self._reader,
            gone=gone,
        )

    def _timeout_of(self, spec: McpServerSpec) -> float | None:
        if spec.timeout is not None:
            return spec.timeout
        return self._timeouts.get(spec.name, self._timeout)

    def _call_timeout(self, spec: McpServerSpec, own: float | None) -> float:
        """How long a call may wait for the server: the tool's timeout, or the default."""
        if own is not None:
            return own
        timeout = self._timeout_of(spec)
        return timeout if timeout is not None else MCP_CALL_TIMEOUT

    def _handler(self, state: ServerState, remote: str) -> Callable[..., Any]:
        # One handler per remote tool, kept across listings: a re-listing with
        # the same tools changes nothing in the registry.
        handler = state.handlers.get(remote)
        if handler is None:
            timeout = self._call_timeout(state.spec, None)
            name = state.spec.prefix + remote  # the name it is registered (and called) under

            async def call_mcp_tool(
                arguments: dict[str, Any], context: ToolContext
            ) -> str | list[Any]:
                self._check_not_reserved(state, remote)
                return await self._call(state, name, remote, arguments, timeout, context)

            call_mcp_tool.__name__ = f"mcp_{remote}"
            handler = state.handlers[remote] = call_mcp_tool
        return handler

    def _renderer(self, state: ServerState, name: str, remote: str) -> Callable[..., Any]:
        """The renderer of the registry's prompt ``name`` (``prompts/get`` of ``remote``).

        One per name and remote prompt, kept across listings (an unchanged
        prompt stays the same registry entry); it runs on the attachment's
        loop whichever loop awaits it.
        """
        renderer = state.renderers.get((name, remote))
        if renderer is None:
            timeout = self._call_timeout(state.spec, None)

            async def render(arguments: dict[str, Any]) -> tuple[PromptMessage, ...]:
                def get() -> Awaitable[tuple[PromptMessage, ...]]:
                    return self._get_prompt(state, name, remote, arguments, timeout)

                portal = None if self._loop is None else LoopPortal(self._loop)
                messages: tuple[PromptMessage, ...] = await arun_on(portal, get)
                return messages

            renderer = state.renderers[name, remote] = render
        return renderer

    def _reader(
        self, state: ServerState, key: str, template: UriTemplate | None
    ) -> Callable[..., Any]:
        """The handler of the registry's resource ``key`` (``resources/read`` of its URI).

        One per key, kept across listings; a template's reads the URI its
        values expand to. It runs on the attachment's loop.
        """
        reader = state.readers.get(key)
        if reader is None:
            timeout = self._call_timeout(state.spec, None)

            async def read(context: ToolContext, **values: object) -> tuple[ResourceContents, ...]:
                # The URI as the client sent it (a template's values expanded back only
                # when the read did not come through the registry's read_resource).
                uri = context.extra.get(RESOURCE_URI)
                if not isinstance(uri, str):
                    uri = key if template is None else template.expand(dict(values))

                def get() -> Awaitable[tuple[ResourceContents, ...]]:
                    return self._read_resource(state, key, uri, timeout)

                portal = None if self._loop is None else LoopPortal(self._loop)
                contents: tuple[ResourceContents, ...] = await arun_on(portal, get)
                return contents

            reader = state.readers[key] = read
        return reader

    def _use_handler(
        self, state: ServerState, name: str, remote: str, forward: Forward, own: float | None
    ) -> Callable[..., Any]:
        # Built per publication: the forward function changes with the entry.
        timeout = self._call_timeout(state.spec, own)

        async def call_mcp_tool(arguments: dict[str, Any], context: ToolContext) -> str | list[Any]:
            return await self._call(state, name, remote, forward(arguments), timeout, context)

        call_mcp_tool.__name__ = f"mcp_{remote}"
        return call_mcp_tool

    def _resource_updated(self, state: ServerState, uri: str) -> None:
        """The server says ``uri`` changed: tell the registry's subscribers (the gateway's
        clients subscribed to it), if it is one of this server's listed resources."""
        listed = state.remote_resources
        if listed is not None and any(str(r.uri) == uri for r in listed[0]):
            self.registry.resource_updated(uri)

    def _check_not_reserved(self, state: ServerState, remote: str) -> None:
        """Refuse a raw tool whose name a reload has just given to a ``use:`` entry.

        The attachment publishes again as soon as it hears of the reload;
        this covers a call that comes in between, so the entry's name never
        reaches another tool, not even once.
        """
        name = state.spec.prefix + remote
        use = self.registry.tool_use(name)
        if use is not None:
            raise ToolFailed(
                f"tool {name!r} is the use: entry's ({use.server}/{use.tool}); the tool "
                f"{remote!r} of MCP server {state.spec.name!r} is shadowed",
                kind="execution_error",
            )

    # ------------------------------------------------------ following changes
    async def _on_registry_change(self, group: str | None, change: RegistryChange) -> None:
        """A reload or code changed what holds names, or declared servers: follow it."""
        if self._closed or group in {s.group for s in self._servers.values()}:
            return  # our own publications
        if change.uses_added or change.uses_removed or change.uses_changed:
            self._uses = self.registry.tool_uses()
        prompt_uses = change.prompt_uses_added or change.prompt_uses_removed
        if prompt_uses or change.prompt_uses_changed:
            self._prompt_uses = self.registry.prompt_uses()
        if self._follow and (
            change.servers_added or change.servers_removed or change.servers_changed
        ):
            await self._follow_servers()
        elif (
            change.tools_changed
            or change.uses_added
            or change.uses_removed
            or change.uses_changed
            or change.prompts_list_changed
            or prompt_uses
            or change.prompt_uses_changed
        ):
            self._publish()  # a name reserved or freed by a use: entry or a local tool/prompt

    async def _follow_servers(self) -> None:
        declared = {s.name: s for s in self.registry.mcp_servers() if s.via == "client"}
        dropped = [self._servers.pop(n) for n in list(self._servers) if n not in declared]
        fresh: list[str] = []
        for name, spec in declared.items():
            known = self._servers.get(name)
            if known is not None and known.spec == spec:
                continue
            if known is not None:
                dropped.append(known)
            self._servers[name] = ServerState(spec)
            if spec.initialize_on_startup:
                fresh.append(name)
        self._publish(gone=[state.group for state in dropped])
        for state in dropped:
            await self._evict(state, state.conn)
        if fresh:
            await self.refresh(*fresh)

    def _tools_changed(self, state: ServerState) -> None:
        """The server announced ``tools/list_changed``: list it again, one listing at a time.

        A flood of announcements costs a flag each: while a listing runs, any
        number of them make one more listing after it, not one each.
        """
        if self._closed:
            return
        if state.relisting is not None and not state.relisting.done():
            state.relist_again = True
            return
        state.listed_at = state.checked_at = None
        task = asyncio.ensure_future(self._relist(state))
        state.relisting = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _relist(self, state: ServerState) -> None:
        while True:
            state.relist_again = False
            started = time.monotonic()
            await self._refresh(state, force=True)
            if not state.relist_again or self._closed:
                return
            await asyncio.sleep(max(0.0, _RELIST_SPACING - (time.monotonic() - started)))
