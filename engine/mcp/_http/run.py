"""``serve_http``: the app of :mod:`tooldeck.mcp._http.app` under uvicorn, until stopped."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from .._serving import DEFAULT_APPROVAL_TIMEOUT, build_server, with_attached, with_reload
from .app import DEFAULT_TOOLSET, build_app
from .auth import check_auth
from .options import HttpOptions, check_options

if TYPE_CHECKING:
    from ..._registry import ToolRegistry
    from .._serving import RegistryServer, Reload

__all__ = ["serve_http"]


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
) -> None:
    """Serve Streamable HTTP at ``http://host:port/mcp`` with uvicorn until interrupted.

    ``options`` carries everything (:class:`HttpOptions`); ``host``, ``port`` and
    ``stateless``, when given, replace its fields. Options that cannot be served
    safely raise :class:`~tooldeck.mcp.ServeOptionsError` before anything listens.
    ``attach`` and ``connect_timeout``: as for :func:`~tooldeck.mcp.serve_stdio`.
    """
    import dataclasses

    import uvicorn

    options = options or HttpOptions()
    if host is not None:
        options = dataclasses.replace(options, host=host)
    if port is not None:
        options = dataclasses.replace(options, port=port)
    if stateless is not None:
        options = dataclasses.replace(options, stateless=stateless)
    check_options(options)
    check_auth(options.auth)
    served = build_server(
        registry,
        name=name,
        list_changed=reload is not None and not options.stateless,
        approval_timeout=approval_timeout,
    )
    servers: Mapping[str, RegistryServer] = {DEFAULT_TOOLSET: served}
    app = build_app(servers, options)
    # No colours: uvicorn's would be ESC sequences in the log, which the CLI shows escaped
    # (its log lines quote request paths, text from clients, so they pass the escaping).
    config = uvicorn.Config(
        app,
        host=options.host,
        port=options.port,
        log_level="warning",
        lifespan="on",
        use_colors=False,
    )
    server = uvicorn.Server(config)

    async def body() -> None:
        await server.serve()

    await with_reload(served, reload, with_attached(served, body, attach, connect_timeout))
