"""``serve_http``: the app of :mod:`tooldeck.mcp._http.app` under uvicorn, until stopped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from .._serving import DEFAULT_APPROVAL_TIMEOUT, build_server, with_attached, with_reload
from .app import DEFAULT_TOOLSET, build_app, check_toolset_name
from .auth import check_auth
from .connections import limited_protocol, quiet_accept_errors, raise_open_files_limit
from .drain import GRACE_AFTER_DRAIN, DrainingServer
from .limits import Limits
from .options import HttpOptions, check_options

if TYPE_CHECKING:
    from ..._registry import ToolRegistry
    from ...providers import Toolset
    from .._serving import RegistryServer, Reload

__all__ = ["http_server", "serve_http"]


async def serve_http(
    registry: ToolRegistry,
    *,
    options: HttpOptions | None = None,
    host: str | None = None,
    port: int | None = None,
    stateless: bool | None = None,
    reload: Reload | None = None,
    name: str = "tooldeck",
    approval_timeout: float = DEFAULT_APPROVAL_TIMEOUT,
    attach: bool = True,
    connect_timeout: float = 30.0,
    toolset: Toolset | None = None,
    toolsets: Mapping[str, Toolset] | None = None,
    tune_gc: bool = False,
) -> None:
    """Serve Streamable HTTP at ``http://host:port/mcp`` with uvicorn until interrupted.

    ``options`` carries everything (:class:`HttpOptions`); ``host``, ``port`` and
    ``stateless``, when given, replace its fields. Options that cannot be served
    safely raise :class:`~tooldeck.mcp.ServeOptionsError` before anything listens.
    ``attach`` and ``connect_timeout``: as for :func:`~tooldeck.mcp.serve_stdio`.
    ``toolset`` is what ``/mcp`` serves (all of the registry by default); each of
    ``toolsets`` is served beside it at ``/mcp/<name>``, by the same process.
    ``tune_gc``: see :func:`~tooldeck.mcp._serving.with_reload` (``tooldeck serve``
    sets it: the process only serves).
    """
    import asyncio
    import dataclasses

    options = options or HttpOptions()
    if host is not None:
        options = dataclasses.replace(options, host=host)
    if port is not None:
        options = dataclasses.replace(options, port=port)
    if stateless is not None:
        options = dataclasses.replace(options, stateless=stateless)
    check_options(options)
    check_auth(options.auth)
    for key in toolsets or {}:
        check_toolset_name(key)

    def server_for(selected: Toolset | None) -> RegistryServer:
        return build_server(
            registry,
            name=name,
            list_changed=reload is not None and not options.stateless,
            approval_timeout=approval_timeout,
            toolset=selected,
        )

    served = server_for(toolset)
    servers: dict[str, RegistryServer] = {DEFAULT_TOOLSET: served}
    servers.update((key, server_for(selected)) for key, selected in (toolsets or {}).items())
    server = http_server(servers, options)

    async def body() -> None:
        quiet_accept_errors(asyncio.get_running_loop())
        # Every toolset's sessions hear of list changes (``served`` is subscribed by with_reload).
        others = [
            registry.subscribe(s.on_registry_change) for s in servers.values() if s is not served
        ]
        try:
            await server.serve()
        finally:
            for unsubscribe in others:
                unsubscribe()

    await with_reload(
        served,
        reload,
        with_attached(served, body, attach, connect_timeout),
        tune_gc=tune_gc,
    )


def http_server(
    servers: RegistryServer | Mapping[str, RegistryServer], options: HttpOptions
) -> DrainingServer:
    """The uvicorn server for ``servers`` (toolset -> server, or one server for ``/mcp``)
    with every limit of ``options`` (not started).

    Raises the soft open-files limit to the hard one (a file descriptor per
    connection); :meth:`DrainingServer.serve` runs it, :meth:`DrainingServer.start_drain`
    drains it as SIGTERM does.
    """
    import uvicorn

    if not isinstance(servers, Mapping):
        servers = {DEFAULT_TOOLSET: servers}
    limits = Limits(options)
    app = build_app(servers, options, limits=limits)
    # No colours: uvicorn's would be ESC sequences in the log, which the CLI shows escaped
    # (its log lines quote request paths, text from clients, so they pass the escaping).
    # The h11 protocol with the connection limits (header timeout, connections per
    # address); no WebSocket upgrade (MCP does not use one).
    config = uvicorn.Config(
        app,
        host=options.host,
        port=options.port,
        log_level="warning",
        lifespan="on",
        use_colors=False,
        http=limited_protocol(options),
        ws="none",
        timeout_graceful_shutdown=GRACE_AFTER_DRAIN,
    )
    raise_open_files_limit()
    return DrainingServer(config, limits, options.drain_timeout)
