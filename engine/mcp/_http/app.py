"""The Starlette application ``tooldeck serve --transport http`` runs.

One ``StreamableHTTPSessionManager`` per served toolset (the whole registry at
``/mcp``, each named toolset at ``/mcp/<name>``), all started by one lifespan;
the ``mcp`` package's Host and Origin checks on every one of them, whatever
address is bound (:func:`transport_security`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Route

from .auth import auth_middleware, build_verifier, metadata_routes, protect
from .options import LOOPBACK_HOSTS, HttpOptions, is_loopback

if TYPE_CHECKING:
    from .._serving import RegistryServer

__all__ = ["DEFAULT_TOOLSET", "build_app", "mcp_path", "transport_security"]

DEFAULT_TOOLSET = ""
"""The key of the server for the whole registry (or the ``--bundle/--tag/--tool`` selection)."""


def mcp_path(toolset: str) -> str:
    """Where a toolset is served: ``/mcp`` for the default one, ``/mcp/<name>`` for the others."""
    return "/mcp" if toolset == DEFAULT_TOOLSET else f"/mcp/{toolset}"


def transport_security(options: HttpOptions) -> TransportSecuritySettings:
    """Host and Origin checks, on for every bind address.

    A loopback bind accepts the loopback names on any port; anything else
    accepts only what ``allowed_hosts`` names (a bare name on any port). A
    request with another Host gets 421, with another Origin 403, before its
    body is read.
    """
    hosts: list[str] = []
    origins: list[str] = []
    if is_loopback(options.host):
        hosts += ["127.0.0.1:*", "localhost:*", "[::1]:*", *LOOPBACK_HOSTS[:2], "[::1]"]
        origins += ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]
        origins += ["http://127.0.0.1", "http://localhost", "http://[::1]"]
    for host in options.allowed_hosts:
        hosts.append(host)
        if not _has_port(host):
            hosts.append(f"{host}:*")
    for origin in options.allowed_origins:
        origins.append(origin.rstrip("/"))
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def _has_port(host: str) -> bool:
    if host.startswith("["):
        return "]:" in host
    return host.count(":") == 1


def build_app(servers: Mapping[str, RegistryServer], options: HttpOptions) -> Starlette:
    """The app serving each of ``servers`` (toolset name -> server) at :func:`mcp_path`."""
    security = transport_security(options)
    verifier = build_verifier(options.auth)  # None: --auth none, nobody is checked
    managers: list[StreamableHTTPSessionManager] = []
    routes: list[Any] = []
    for toolset, served in servers.items():
        served.stateless = options.stateless
        served.side_effects_scope = options.auth.side_effects_scope if verifier else None
        manager = StreamableHTTPSessionManager(
            app=served.server,
            stateless=options.stateless,
            security_settings=security,
            max_request_body_size=options.max_body,
            session_idle_timeout=None if options.stateless else options.session_idle_timeout,
            max_sessions=None if options.stateless else options.max_sessions,
        )
        managers.append(manager)
        endpoint: Any = StreamableHTTPASGIApp(manager)
        if verifier is not None:
            endpoint = protect(endpoint, options.auth)  # 401 without a valid token
        routes.append(Route(mcp_path(toolset), endpoint=endpoint))
    routes += metadata_routes(options.auth, [mcp_path(toolset) for toolset in servers])

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            for manager in managers:
                await stack.enter_async_context(manager.run())
            yield

    # Outermost first. Authentication comes before everything else (per-client limits
    # count by the verified subject it leaves in the scope); routes that are not
    # protect()ed, such as health checks and the metadata, stay public.
    middleware: list[Any] = []
    if verifier is not None:
        middleware += auth_middleware(verifier)
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
