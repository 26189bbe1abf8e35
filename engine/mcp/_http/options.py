"""What ``tooldeck serve --transport http`` is told: address, authentication, limits, operations.

One frozen record per server, built by the CLI from its flags and
``[tool.tooldeck.serve]`` (flags win), or by an application that calls
:func:`tooldeck.mcp.serve_http` itself. Checking a combination that cannot be
served safely (a public bind with no authentication, a public bind with no
allowed Host) is :func:`check_options`' job, so the library refuses what the
CLI refuses.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

__all__ = [
    "LOOPBACK_HOSTS",
    "AuthMode",
    "AuthOptions",
    "HttpOptions",
    "ServeOptionsError",
    "check_options",
    "is_loopback",
]

AuthMode = Literal["none", "bearer", "jwt"]

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")

MIB = 1024 * 1024


class ServeOptionsError(ValueError):
    """Options that cannot be served as given; the message says what to pass instead."""


@dataclass(frozen=True, kw_only=True)
class AuthOptions:
    """How callers prove who they are (``--auth``); ``mode="none"`` checks nobody."""

    mode: AuthMode = "none"
    tokens_file: Path | None = None
    """``bearer``: the YAML list of ``{sha256, subject, scopes, claims}`` entries."""
    jwt_public_key: Path | None = None
    """``jwt``: a PEM public key the tokens are signed with."""
    jwks_url: str | None = None
    """``jwt``: where the signing keys are published (cached; refetched for an unknown ``kid``)."""
    issuer: str | None = None
    """``jwt``: the ``iss`` every token must carry."""
    audience: str | None = None
    """The server's resource URL: a token's ``aud`` must name it; also the RFC 9728 resource."""
    authorization_server: str | None = None
    """Named in ``/.well-known/oauth-protected-resource`` for clients to get tokens from."""
    algorithms: tuple[str, ...] = ("RS256", "RS384", "RS512", "PS256", "ES256", "ES384", "EdDSA")
    """Signature algorithms accepted; never ``none``, never an HMAC one with a public key."""
    leeway: float = 30.0
    """Seconds of clock skew allowed on ``exp`` and ``nbf``."""
    jwks_cache_seconds: float = 300.0
    """How long keys read from ``jwks_url`` are used before they are read again."""
    jwks_refetch_floor: float = 10.0
    """Seconds between two refetches for an unknown ``kid`` at the least (a flood of
    random ``kid`` values cannot hammer the JWKS server)."""
    side_effects_scope: str = "tooldeck:side-effects"
    """With authentication, a tool with side effects runs only for a token carrying this
    scope: the token's issuer grants it, the client cannot grant itself one."""


@dataclass(frozen=True, kw_only=True)
class HttpOptions:
    """Everything one HTTP server is run with; defaults are the safe ones."""

    host: str = "127.0.0.1"
    port: int = 8000
    stateless: bool = False
    """Every request stands alone: no sessions, nothing asked of the client."""
    auth: AuthOptions = field(default_factory=AuthOptions)
    insecure_no_auth: bool = False
    """Allow ``auth.mode == "none"`` on an address other than loopback."""
    allowed_hosts: tuple[str, ...] = ()
    """Host header values accepted besides the loopback names (a bare name allows any port)."""
    allowed_origins: tuple[str, ...] = ()
    """Origin header values accepted from browsers besides loopback origins."""
    max_body: int = MIB
    """Request bodies over this many bytes get 413 before anything parses them."""
    session_idle_timeout: float = 600.0
    max_sessions: int = 1000
    """Open sessions in all."""
    max_sessions_per_client: int = 32
    """Open sessions per subject (per client address without authentication)."""
    rate_limit: float | None = 20.0
    """Requests per second per subject (a token bucket with a burst of twice this)."""
    max_concurrent: int = 8
    """Requests in flight per subject; more get 429 with ``Retry-After``, never a queue."""
    max_connections_per_client: int = 128
    """Open TCP connections per client address."""
    header_timeout: float = 10.0
    """Seconds a client has to send a request's headers."""
    body_timeout: float = 30.0
    """Seconds a client has to send a request's body."""
    drain_timeout: float = 30.0
    """On SIGTERM: seconds calls in flight have to finish before the process exits."""
    audit_log: str | None = None
    """A file to append one JSON line per call to, or ``-`` for standard error."""
    audit_arguments: bool = False
    """Write each call's arguments into the audit log (secrets masked)."""
    workers: int = 1
    """Processes (uvicorn workers); more than one needs ``stateless``."""
    metrics: bool = True
    """Serve ``/metrics`` (Prometheus text format, unauthenticated: keep it on a private
    network or behind the proxy)."""


def is_loopback(host: str) -> bool:
    """Whether binding ``host`` reaches this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_options(options: HttpOptions) -> None:
    """Refuse what cannot be served safely, saying what to pass instead.

    Raises :class:`ServeOptionsError`.
    """
    public = not is_loopback(options.host)
    if public and options.auth.mode == "none" and not options.insecure_no_auth:
        raise ServeOptionsError(
            f"refusing to serve {options.host} without authentication: anyone who reaches "
            "the port could list and run every tool; pass --auth bearer or --auth jwt, "
            "or --insecure-no-auth if a proxy in front authenticates every request"
        )
    if public and not options.allowed_hosts:
        raise ServeOptionsError(
            f"serving {options.host} needs --allowed-host NAME (the Host clients reach this "
            "server by, such as tools.example.com): every other Host is refused, which is "
            "what stops DNS rebinding from a browser"
        )
    if options.workers > 1 and not options.stateless:
        raise ServeOptionsError(
            "--workers needs --stateless: a session lives in one process, and a load "
            "balancer without sticky routing would send its requests to another"
        )
    if options.workers < 1:
        raise ServeOptionsError("--workers must be at least 1")
    if options.max_body <= 0:
        raise ServeOptionsError("--max-body must be a positive number of bytes")
