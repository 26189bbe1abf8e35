"""The registry's resources over MCP: list, templates, read, subscribe, and updates sent.

Everything is read from the registry when asked, so a reload shows at the next
``resources/list``. A read goes through :meth:`ToolRegistry.aread_resource`
with the caller's verified identity, so a resource's scopes and the endpoint's
toolset apply as they do to tools (a resource the caller may not see is
unknown to it, never "forbidden").

Subscriptions come two ways: a 2025-era client sends ``resources/subscribe``
on its session (kept per session, ended with it); a 2026-07-28 client opens a
``subscriptions/listen`` stream fed from the server's event bus. Either way a
URI is announced (``notifications/resources/updated``) when the registry says
its content changed (:meth:`ToolRegistry.resource_updated`, a reload that
changed its declaration) or, for a file resource, when its file changes on
disk: :class:`FileWatch` looks at the files of the subscribed URIs (all file
resources while a listen stream is open) twice a second, by their verified
descriptor's stamp, and only while someone is subscribed.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Protocol

import mcp_types as types
from mcp.server.subscriptions import InMemorySubscriptionBus
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import ResourceUpdated, ServerEvent

from ..._errors import ResourceError
from ..._identity import missing_scopes
from ..._resourceread import unknown_resource
from .caller import caller_identity, connection_of

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.session import ServerSession

    from ..._model import ResourceSpec
    from ..._registry import ToolRegistry
    from ..._resourceread import ResourceContents
    from ...providers import Toolset


class Endpoint(Protocol):
    """What the resource handlers read of the server they belong to (a RegistryServer)."""

    registry: ToolRegistry
    events: CountingBus
    toolset: Toolset | None
    stateless: bool


__all__ = ["MAX_SUBSCRIPTIONS", "CountingBus", "FileWatch", "ResourceServing"]

logger = logging.getLogger(__name__)

MAX_SUBSCRIPTIONS = 256
"""URIs one session may subscribe to: each is watched, so a client cannot make the server
watch without bound."""

POLL_SECONDS = 0.5
"""How often subscribed files are looked at (a stat of a verified descriptor each)."""


class CountingBus(InMemorySubscriptionBus):
    """The SDK's in-process event bus, counting its listeners (the open listen streams)."""

    def __init__(self) -> None:
        super().__init__()
        self.listeners = 0
        self.on_first_listener: Callable[[], None] | None = None

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        unsubscribe = super().subscribe(listener)
        self.listeners += 1
        if self.on_first_listener is not None:
            self.on_first_listener()
        done = False

        def counted() -> None:
            nonlocal done
            if not done:
                done = True
                self.listeners -= 1
            unsubscribe()

        return counted


class ResourceServing:
    """The resource handlers of one :class:`~tooldeck.mcp._serving.server.RegistryServer`."""

    def __init__(self, owner: Endpoint) -> None:
        self.owner = owner
        """The server these handlers belong to: its toolset and whether it is stateless."""
        self.registry: ToolRegistry = owner.registry
        self.events: CountingBus = owner.events
        self.subscriptions: dict[object, tuple[ServerSession, set[str]]] = {}
        """2025-era subscriptions: per connection, a session to notify on and its URIs."""
        self.watch = FileWatch(self)
        self.events.on_first_listener = self.watch.ensure_running

    # ------------------------------------------------------------------ lists
    def _visible(self, spec: ResourceSpec, ctx: ServerRequestContext[Any]) -> bool:
        toolset = self.owner.toolset
        if toolset is not None and not toolset.admits_prompt(spec.bundle, spec.tags, spec.name):
            return False
        return not missing_scopes(spec.scopes, caller_identity(ctx))

    async def list_resources(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        await self.registry.arefresh_sources()  # attached servers: lazy or expired ones list
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    uri=spec.uri or "",
                    name=spec.name,
                    title=spec.title,
                    description=spec.description or None,
                    mime_type=self._mime_type(spec),
                )
                for spec in self.registry.resources()
                if self._visible(spec, ctx)
            ]
        )

    async def list_templates(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        await self.registry.arefresh_sources()
        return types.ListResourceTemplatesResult(
            resource_templates=[
                types.ResourceTemplate(
                    uri_template=spec.uri_template or "",
                    name=spec.name,
                    title=spec.title,
                    description=spec.description or None,
                    mime_type=spec.mime_type,
                )
                for spec in self.registry.resource_templates()
                if self._visible(spec, ctx)
            ]
        )

    def _mime_type(self, spec: ResourceSpec) -> str | None:
        if spec.mime_type is not None or spec.file is None:
            return spec.mime_type
        import mimetypes

        return mimetypes.guess_type(spec.file)[0]

    # ------------------------------------------------------------------- read
    async def read(
        self, ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        self._check_served(uri, ctx)
        context = {"mcp_request_id": ctx.request_id}
        try:
            contents = await self.registry.aread_resource(
                uri, auth=caller_identity(ctx), context=context
            )
        except ResourceError as exc:
            raise _mcp_error(exc) from None
        except Exception as exc:  # a bug below must still answer, and in words
            logger.exception("reading %r failed unexpectedly", uri)
            raise MCPError(
                code=types.INTERNAL_ERROR,
                message=self.registry.secrets.redact(f"{type(exc).__name__}: {exc}"),
                data={"uri": uri},
            ) from None
        return types.ReadResourceResult(contents=[_wire(part) for part in contents])

    def _check_served(self, uri: str, ctx: ServerRequestContext[Any]) -> None:
        """A URI this endpoint does not serve this caller is unknown, as if absent."""
        found = self.registry.find_resource(uri)
        if found is not None and self._visible(found[0], ctx):
            return
        raise _mcp_error(unknown_resource(uri))

    # -------------------------------------------------------------- subscribe
    async def subscribe(
        self, ctx: ServerRequestContext[Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        uri = str(params.uri)
        if self.owner.stateless:
            raise MCPError(
                code=types.INVALID_REQUEST,
                message="this server runs stateless HTTP: no session to send updates on; "
                "read the resource again instead",
            )
        self._check_served(uri, ctx)
        connection = _connection_key(ctx.session)
        held = self.subscriptions.get(connection)
        if held is None:
            held = self.subscriptions[connection] = (ctx.session, set())
            exit_stack = getattr(connection, "exit_stack", None)
            if exit_stack is not None:  # forgotten when the connection closes
                exit_stack.callback(self.subscriptions.pop, connection, None)
        uris = held[1]
        if uri not in uris and len(uris) >= MAX_SUBSCRIPTIONS:
            raise MCPError(
                code=types.INVALID_REQUEST,
                message=f"this session already subscribes to {MAX_SUBSCRIPTIONS} resources; "
                "unsubscribe from one first",
            )
        uris.add(uri)
        self.watch.ensure_running()
        return types.EmptyResult()

    async def unsubscribe(
        self, ctx: ServerRequestContext[Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        held = self.subscriptions.get(_connection_key(ctx.session))
        if held is not None:
            held[1].discard(str(params.uri))
        return types.EmptyResult()

    def subscribed(self) -> set[str]:
        """Every URI some session subscribes to."""
        return set().union(*(uris for _, uris in self.subscriptions.values()))

    async def updated(self, uris: Iterable[str]) -> None:
        """Tell whoever subscribed to these URIs that their content changed (best effort)."""
        for uri in uris:
            if self.events.listeners:
                await self.events.publish(ResourceUpdated(uri=uri))
            for connection, (session, subscribed) in list(self.subscriptions.items()):
                if uri in subscribed:
                    try:
                        await session.send_resource_updated(uri)
                    except Exception:  # a connection that went away: forget it
                        self.subscriptions.pop(connection, None)


class FileWatch:
    """Looks at the files of subscribed file resources; announces the ones that changed.

    Runs only while there is something to watch: it starts at the first
    subscription (or listen stream) and ends when none is left. A file's stamp
    comes from its verified descriptor (inside the project, never blocking), in
    a worker thread, so a slow disk never holds up the serving loop.
    """

    def __init__(self, serving: ResourceServing) -> None:
        self.serving = serving
        self.stamps: dict[str, object] = {}
        self.task: asyncio.Task[None] | None = None

    def ensure_running(self) -> None:
        if self.task is not None and not self.task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self.task = loop.create_task(self._run(), name="tooldeck-resource-files")

    def watched(self) -> list[str]:
        serving = self.serving
        uris = serving.subscribed()
        if serving.events.listeners:
            uris.update(spec.uri for spec in serving.registry.resources() if spec.file and spec.uri)
        return sorted(uris)

    async def _run(self) -> None:
        registry = self.serving.registry
        try:
            while True:
                uris = self.watched()
                if not uris:
                    self.stamps.clear()
                    return
                stamps = await asyncio.to_thread(_stamps, registry, uris)
                changed = [
                    uri
                    for uri, stamp in stamps.items()
                    if uri in self.stamps and self.stamps[uri] != stamp
                ]
                self.stamps = stamps
                if changed:
                    await self.serving.updated(changed)
                await asyncio.sleep(POLL_SECONDS)
        except asyncio.CancelledError:
            raise
        except Exception:  # never take the server down; the next subscription restarts it
            logger.exception("watching resource files failed")


def _stamps(registry: ToolRegistry, uris: list[str]) -> dict[str, object]:
    from ..._resourceread import NOT_A_FILE

    stamps = {}
    for uri in uris:
        stamp = registry.resource_stamp(uri)
        if stamp is not NOT_A_FILE:
            stamps[uri] = stamp
    return stamps


def _wire(contents: ResourceContents) -> types.TextResourceContents | types.BlobResourceContents:
    if contents.text is not None:
        return types.TextResourceContents(
            uri=contents.uri, mime_type=contents.mime_type, text=contents.text
        )
    blob = base64.b64encode(contents.data or b"").decode("ascii")
    return types.BlobResourceContents(uri=contents.uri, mime_type=contents.mime_type, blob=blob)


def _mcp_error(exc: ResourceError) -> MCPError:
    """Unknown URIs and bad values are the client's to fix (invalid params, as the SDK's own
    server answers); the rest is a failure on this side."""
    client_side = exc.kind in {"unknown_resource", "invalid_arguments"}
    return MCPError(
        code=types.INVALID_PARAMS if client_side else types.INTERNAL_ERROR,
        message=str(exc),
        data={"uri": exc.uri, "kind": exc.kind},
    )


def _connection_key(session: ServerSession) -> object:
    """What subscriptions are kept under: the session's connection (the same for every
    request on it), else the session itself (subscriptions then last as long as it does)."""
    return connection_of(session) or session
