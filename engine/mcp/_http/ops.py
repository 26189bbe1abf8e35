"""What an HTTP server adds for its operators: probes, metrics and the audit log.

:func:`operations` gives :func:`~tooldeck.mcp._http.app.build_app` the routes
to add beside ``/mcp`` and a context to run while serving (the audit log's
writer thread). Metrics and the audit log are two observers of the servers'
calls (``RegistryServer.call_observers``); without either the servers observe
nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from .health import health_routes
from .options import ServeOptionsError

if TYPE_CHECKING:
    from .._serving import RegistryServer
    from .options import HttpOptions

__all__ = ["OPS_PATHS", "operations"]

OPS_PATHS = ("/healthz", "/readyz", "/metrics")
"""Plain routes, outside authentication: a proxy or a private network guards ``/metrics``."""


def operations(
    servers: Mapping[str, RegistryServer], options: HttpOptions
) -> tuple[list[Any], contextlib.AbstractAsyncContextManager[None]]:
    """The operators' routes for ``servers``, and what runs while they are served.

    Raises :class:`ServeOptionsError` when the audit log cannot be opened.
    """
    routes: list[Any] = health_routes(servers)
    if options.metrics:
        from .metrics import ServeMetrics

        metrics = ServeMetrics(servers)
        metrics.attach()
        routes.append(metrics.route())
    audit = None
    if options.audit_log is not None:
        from .audit import AuditLog

        redact = next(iter(servers.values())).registry.secrets.redact if servers else str
        try:
            audit = AuditLog(options.audit_log, redact, arguments=options.audit_arguments)
        except OSError as exc:
            raise ServeOptionsError(
                f"cannot open the audit log {options.audit_log}: {exc.strerror or exc}"
            ) from None
        for served in servers.values():
            served.call_observers.append(audit)

    @contextlib.asynccontextmanager
    async def running() -> AsyncIterator[None]:
        if audit is None:
            yield
            return
        import anyio

        audit.start()
        try:
            yield
        finally:
            await anyio.to_thread.run_sync(audit.close)  # writes what is queued

    return routes, running()
