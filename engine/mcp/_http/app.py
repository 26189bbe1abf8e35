"""The Starlette application ``tooldeck serve --transport http`` runs.

One ``StreamableHTTPSessionManager`` per served toolset (the whole registry at
``/mcp``, each named toolset at ``/mcp/<name>``), all started by one lifespan;
the ``mcp`` package's Host and Origin checks on every one of them, whatever
address is bound (:func:`transport_security`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

import anyio
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .._serving import CallShares
from .auth import auth_middleware, build_verifier, metadata_routes, protect
from .limits import Limits, LimitsMiddleware
from .ops import operations
from .options import LOOPBACK_HOSTS, HttpOptions, ServeOptionsError, is_loopback
from .sessions import SessionTracker

if TYPE_CHECKING:
    from .._serving import RegistryServer

__all__ = [
    "DEFAULT_TOOLSET",
    "build_app",
    "check_toolset_name",
    "mcp_path",
    "scopes_served",
    "transport_security",
]

DEFAULT_TOOLSET = ""
"""The key of the server for the whole registry (or the ``--bundle/--tag/--tool`` selection)."""


_TOOLSET_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")


def check_toolset_name(name: str) -> None:
    """A toolset's name is one URL path segment: lowercase letters, digits, ``_`` and ``-``."""
    if not _TOOLSET_NAME.fullmatch(name):
        raise ServeOptionsError(
            f"toolset name {name!r} cannot be a URL path segment (/mcp/<name>): use lowercase "
            "letters, digits, '_' and '-', starting with a letter or digit, at most 64"
        )


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


HOUSEKEEPING_SECONDS = 10.0
"""How often idle sessions are swept and refilled rate buckets forgotten (at most)."""


def build_app(
    servers: Mapping[str, RegistryServer], options: HttpOptions, *, limits: Limits | None = None
) -> Starlette:
    """The app serving each of ``servers`` (toolset name -> server) at :func:`mcp_path`.

    ``limits``: the per-client limits' state, when the caller needs it (the
    drain on SIGTERM); one is made from ``options`` otherwise.
    """
    security = transport_security(options)
    limits = limits if limits is not None else Limits(options)
    tracker = SessionTracker(options)
    verifier = build_verifier(options.auth)  # None: --auth none, nobody is checked
    managers: list[StreamableHTTPSessionManager] = []
    ops_routes, ops_running = operations(servers, options)  # /healthz, /readyz, /metrics
    # /metrics names the tools and servers: a page that rebinds its DNS name to this
    # server could read it, so it checks Host and Origin as /mcp does. The probes stay
    # open to any Host (a load balancer or Kubernetes asks by IP address).
    ops_routes = [_host_checked(r, security) if r.path == "/metrics" else r for r in ops_routes]
    routes: list[Route] = []  # the /mcp endpoints first: the router tries routes in order
    side_effects_scope = options.auth.side_effects_scope if verifier else None
    shares = CallShares(options.max_concurrent)  # one share per client across every endpoint
    for toolset, served in servers.items():
        served.stateless = options.stateless
        served.shares = shares
        served.side_effects_scope = side_effects_scope
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
    routes += ops_routes
    routes += metadata_routes(
        options.auth,
        [mcp_path(toolset) for toolset in servers],
        scopes=lambda: scopes_served(servers.values(), side_effects_scope),
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        limits.bind()
        async with contextlib.AsyncExitStack() as stack:
            await stack.enter_async_context(ops_running)
            for manager in managers:
                await stack.enter_async_context(manager.run())
            group = await stack.enter_async_context(anyio.create_task_group())
            group.start_soon(_housekeeping, limits, tracker, options.session_idle_timeout)
            try:
                yield
            finally:
                group.cancel_scope.cancel()

    # Outermost first. Authentication comes before everything else, so the per-client
    # limits count a request against the verified subject it leaves in the scope
    # (scope["user"]); routes that are not protect()ed (the probes, /metrics, the
    # metadata) stay public.
    middleware: list[Any] = []
    if verifier is not None:
        middleware += auth_middleware(verifier)
    middleware += [
        # (Any: starlette 0.45 types a middleware factory more narrowly than later releases)
        Middleware(cast("Any", LimitsMiddleware), limits=limits, tracker=tracker),
    ]
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan)


def scopes_served(servers: Iterable[RegistryServer], side_effects_scope: str | None) -> set[str]:
    """Every scope a served tool or resource asks for, and the side-effects scope if a tool
    needs it."""
    scopes: set[str] = set()
    for served in servers:
        registry, toolset = served.registry, served.toolset
        for spec in registry.tools():
            if toolset is None or toolset.everything or toolset.admits(spec, registry):
                scopes.update(spec.scopes)
                if spec.side_effects and side_effects_scope:
                    scopes.add(side_effects_scope)
        for resource in (*registry.resources(), *registry.resource_templates()):
            if toolset is None or toolset.admits_prompt(
                resource.bundle, resource.tags, resource.name
            ):
                scopes.update(resource.scopes)
    return scopes


def _host_checked(route: Route, security: TransportSecuritySettings) -> Route:
    """``route`` answering 421/403 to a foreign Host/Origin, with the ``mcp`` package's check."""
    checker = TransportSecurityMiddleware(security)
    inner = route.endpoint

    async def endpoint(request: Request) -> Response:
        refused = await checker.validate_request(request, is_post=False)
        if refused is not None:
            return refused
        return await inner(request)  # type: ignore[no-any-return]

    return Route(route.path, endpoint=endpoint, methods=list(route.methods or ()))


async def _housekeeping(limits: Limits, tracker: SessionTracker, idle_timeout: float) -> None:
    """End idle sessions and forget refilled rate buckets, until cancelled."""
    period = max(0.05, min(HOUSEKEEPING_SECONDS, idle_timeout / 4))
    while True:
        await anyio.sleep(period)
        limits.sweep()
        await tracker.sweep()
