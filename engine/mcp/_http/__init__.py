"""The registry served over Streamable HTTP, as a platform team would put it before users.

``options``: what a server is run with, and the combinations refused; ``app``: the
Starlette application (one session manager per toolset, Host and Origin checks);
``run``: :func:`serve_http`, uvicorn around the app; ``ops``: what operators get beside
``/mcp`` (``health``: the probes, ``metrics``: Prometheus, ``audit``: the audit log);
``worker``: ``--workers N``, one registry per process.
"""

import typing

from ..._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .app import DEFAULT_TOOLSET, build_app, check_toolset_name, mcp_path, transport_security
    from .ops import OPS_PATHS
    from .options import (
        AuthOptions,
        HttpOptions,
        ServeOptionsError,
        check_options,
        is_loopback,
    )
    from .run import serve_http
    from .worker import WorkerPlan, selectors_of, serve_workers

__all__ = [
    "DEFAULT_TOOLSET",
    "OPS_PATHS",
    "AuthOptions",
    "HttpOptions",
    "ServeOptionsError",
    "WorkerPlan",
    "build_app",
    "check_options",
    "check_toolset_name",
    "is_loopback",
    "mcp_path",
    "selectors_of",
    "serve_http",
    "serve_workers",
    "transport_security",
]

_EXPORTS: dict[str, str] = {
    "DEFAULT_TOOLSET": ".app",
    "AuthOptions": ".options",
    "HttpOptions": ".options",
    "OPS_PATHS": ".ops",
    "WorkerPlan": ".worker",
    "selectors_of": ".worker",
    "serve_workers": ".worker",
    "ServeOptionsError": ".options",
    "build_app": ".app",
    "check_options": ".options",
    "check_toolset_name": ".app",
    "is_loopback": ".options",
    "mcp_path": ".app",
    "serve_http": ".run",
    "transport_security": ".app",
}

__getattr__ = _lazy_getattr(__name__, _EXPORTS)
