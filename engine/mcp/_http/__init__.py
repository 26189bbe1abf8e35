"""The registry served over Streamable HTTP, as a platform team would put it before users.

``options``: what a server is run with, and the combinations refused; ``app``: the
Starlette application (one session manager per toolset, Host and Origin checks);
``run``: :func:`serve_http`, uvicorn around the app; ``ops``: what operators get beside
``/mcp`` (``health``: the probes, ``metrics``: Prometheus, ``audit``: the audit log);
``worker``: ``--workers N``, one registry per process. ``auth``: the app as an OAuth
resource server (the ``mcp`` package's bearer middleware, RFC 9728 metadata) with the
verifier of ``--auth``: ``tokens`` (static tokens known by digest) or ``jwt_tokens``
(PyJWT, a PEM key or a JWKS). ``limits``, ``sessions``, ``connections``, ``drain``: what
one client cannot use against the others.
"""

import typing

from ..._lazy import lazy_getattr as _lazy_getattr

if typing.TYPE_CHECKING:
    from .app import DEFAULT_TOOLSET, build_app, check_toolset_name, mcp_path, transport_security
    from .auth import build_verifier, check_auth
    from .jwt_tokens import JwksKeys, JwtVerifier
    from .ops import OPS_PATHS
    from .options import (
        AuthOptions,
        HttpOptions,
        ServeOptionsError,
        check_options,
        is_loopback,
    )
    from .run import serve_http
    from .tokens import (
        MIN_TOKEN_LENGTH,
        StaticTokenVerifier,
        hash_token,
        load_tokens,
        new_token,
        token_entry_yaml,
    )
    from .worker import WorkerPlan, selectors_of, serve_workers

__all__ = [
    "DEFAULT_TOOLSET",
    "MIN_TOKEN_LENGTH",
    "OPS_PATHS",
    "AuthOptions",
    "HttpOptions",
    "JwksKeys",
    "JwtVerifier",
    "ServeOptionsError",
    "StaticTokenVerifier",
    "WorkerPlan",
    "build_app",
    "build_verifier",
    "check_auth",
    "check_options",
    "check_toolset_name",
    "hash_token",
    "is_loopback",
    "load_tokens",
    "mcp_path",
    "new_token",
    "selectors_of",
    "serve_http",
    "serve_workers",
    "token_entry_yaml",
    "transport_security",
]

_EXPORTS: dict[str, str] = {
    "DEFAULT_TOOLSET": ".app",
    "JwksKeys": ".jwt_tokens",
    "MIN_TOKEN_LENGTH": ".tokens",
    "JwtVerifier": ".jwt_tokens",
    "StaticTokenVerifier": ".tokens",
    "build_verifier": ".auth",
    "check_auth": ".auth",
    "hash_token": ".tokens",
    "load_tokens": ".tokens",
    "new_token": ".tokens",
    "token_entry_yaml": ".tokens",
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
