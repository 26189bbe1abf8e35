"""``/healthz`` and ``/readyz``: what a load balancer or an orchestrator asks, unauthenticated.

Both answer from memory, without listing the registry or touching a file or
a server, so a probe every second costs nothing. They are plain routes: the
authentication the server may require wraps only the ``/mcp`` routes, and
these paths say nothing about the tools.

``/healthz``: the process answers (200 ``ok``). ``/readyz``: 200 once the
manifests are loaded and every attached MCP server is up, else 503 with a
small JSON body naming what is not ready. Manifests with errors do not make
the server unready: a reload that fails keeps serving the last good version
of the broken files (and a first load with errors serves only with
``--allow-errors``), and every replica would leave the load balancer over one
bad edit; the body says ``"manifests": "errors"`` and ``tooldeck_manifests_ok``
says it to monitoring. The body never carries error texts (paths, addresses, secrets):
those are in the server's log.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

if TYPE_CHECKING:
    from starlette.requests import Request

    from .._serving import RegistryServer

__all__ = ["HEALTH_PATHS", "health_routes", "readiness"]

HEALTH_PATHS = ("/healthz", "/readyz")
"""Probes: never behind authentication, rate limits or the Host check."""


def readiness(servers: Mapping[str, RegistryServer]) -> dict[str, Any]:
    """``{"ready": bool, ...}``: what ``/readyz`` answers, from the servers' state in memory.

    ``servers_down``: attached servers whose connection or last listing failed
    (a lazy server not used yet is not down); ``manifests``: ``errors`` when the
    last load or reload of the manifests had errors (not a reason to be unready).
    """
    down: set[str] = set()
    manifests_failed = False
    for served in servers.values():
        status = served.registry.reload_status
        if status is not None and not status.ok:
            manifests_failed = True
        health = getattr(served.attachment, "health", None)
        if health is None:
            continue
        for name, server in health().items():
            if server.error is not None:
                down.add(name)
    body: dict[str, Any] = {"ready": not down}
    if down:
        body["servers_down"] = sorted(down)
    if manifests_failed:
        body["manifests"] = "errors"
    return body


def health_routes(servers: Mapping[str, RegistryServer]) -> list[Route]:
    """The two probe routes for an app serving ``servers``."""

    async def healthz(request: Request) -> Response:
        return PlainTextResponse("ok")

    async def readyz(request: Request) -> Response:
        body = readiness(servers)
        return JSONResponse(body, status_code=200 if body["ready"] else 503)

    return [
        Route("/healthz", endpoint=healthz, methods=["GET", "HEAD"]),
        Route("/readyz", endpoint=readyz, methods=["GET", "HEAD"]),
    ]
