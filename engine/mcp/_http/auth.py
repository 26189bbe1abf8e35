"""The served endpoint as an OAuth 2.1 resource server, from the ``mcp`` package's own parts.

:func:`build_verifier` picks the ``TokenVerifier`` of ``--auth``
(:class:`~tooldeck.mcp._http.tokens.StaticTokenVerifier` or
:class:`~tooldeck.mcp._http.jwt_tokens.JwtVerifier`); :func:`auth_middleware`
is Starlette's ``AuthenticationMiddleware`` with the SDK's ``BearerAuthBackend``
(a verified token leaves an ``AuthenticatedUser`` in the request scope, which
:func:`~tooldeck.mcp._serving.caller_identity` reads) and ``AuthContextMiddleware``;
:func:`protect` wraps each ``/mcp`` route in ``RequireAuthMiddleware`` (no
valid token: 401 with ``WWW-Authenticate: Bearer ... resource_metadata="..."``);
:func:`metadata_routes` serve RFC 9728 protected-resource metadata naming
``--authorization-server``. The composition is the one
``mcp.server.lowlevel.Server.streamable_http_app`` makes, for several
toolsets on one app. Routes that are not wrapped (health, metrics) stay public.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from .options import AuthOptions, ServeOptionsError

if TYPE_CHECKING:
    from mcp.server.auth.provider import TokenVerifier
    from starlette.middleware import Middleware
    from starlette.routing import Route

__all__ = [
    "WELL_KNOWN",
    "auth_middleware",
    "build_verifier",
    "check_auth",
    "metadata_routes",
    "metadata_url",
    "protect",
]

WELL_KNOWN = "/.well-known/oauth-protected-resource"


def _is_http_url(value: str) -> bool:
    parsed = urlparse(value)
    return parsed.scheme in ("http", "https") and bool(parsed.netloc)


def check_auth(auth: AuthOptions) -> None:
    """Refuse combinations of ``--auth`` flags that cannot work, naming the flag to pass.

    Reads the tokens file and the public key too, so that a malformed one stops
    the server before anything listens. Raises :class:`ServeOptionsError`.
    """
    mode = auth.mode
    if mode not in ("none", "bearer", "jwt"):
        raise ServeOptionsError(f"--auth {mode}: one of none, bearer, jwt")
    jwt_flags = {
        "--jwt-public-key": auth.jwt_public_key,
        "--jwks-url": auth.jwks_url,
        "--issuer": auth.issuer,
    }
    if mode != "jwt":
        for flag, value in jwt_flags.items():
            if value is not None:
                raise ServeOptionsError(f"{flag} applies to --auth jwt only")
    if mode != "bearer" and auth.tokens_file is not None:
        raise ServeOptionsError("--tokens applies to --auth bearer only")
    if mode == "none":
        for flag, value in {
            "--audience": auth.audience,
            "--authorization-server": auth.authorization_server,
        }.items():
            if value is not None:
                raise ServeOptionsError(f"{flag} needs --auth bearer or --auth jwt")
        return
    scope = auth.side_effects_scope
    if not scope or any(char.isspace() for char in scope):
        raise ServeOptionsError("--side-effects-scope must be one scope, without spaces")
    if auth.authorization_server is not None:
        if not _is_http_url(auth.authorization_server):
            raise ServeOptionsError("--authorization-server must be an http(s) URL")
        if auth.audience is None or not _is_http_url(auth.audience):
            raise ServeOptionsError(
                "--authorization-server needs --audience set to this server's resource URL "
                "(such as https://tools.example.com/mcp): the metadata clients read names it"
            )
    if mode == "bearer":
        if auth.tokens_file is None:
            raise ServeOptionsError("--auth bearer needs --tokens FILE (see --hash-token)")
        from .tokens import load_tokens

        load_tokens(auth.tokens_file)
        return
    from .jwt_tokens import check_algorithms, load_public_key

    if auth.audience is None:
        raise ServeOptionsError(
            "--auth jwt needs --audience (this server's resource URL, such as "
            "https://tools.example.com/mcp): a token issued for another service is refused"
        )
    if (auth.jwt_public_key is None) == (auth.jwks_url is None):
        raise ServeOptionsError("--auth jwt needs one of --jwt-public-key FILE or --jwks-url URL")
    check_algorithms(auth.algorithms)
    if auth.jwks_url is not None and not _is_http_url(auth.jwks_url):
        raise ServeOptionsError("--jwks-url must be an http(s) URL")
    if auth.jwt_public_key is not None:
        load_public_key(auth.jwt_public_key, auth.algorithms)
    if auth.leeway < 0 or auth.jwks_refetch_floor < 0 or auth.jwks_cache_seconds <= 0:
        raise ServeOptionsError("leeway and JWKS timings must be positive numbers")


def build_verifier(auth: AuthOptions) -> TokenVerifier | None:
    """The token verifier of ``auth.mode``; ``None`` for ``none`` (nobody is checked)."""
    if auth.mode == "none":
        return None
    if auth.mode == "bearer":
        from .tokens import StaticTokenVerifier

        if auth.tokens_file is None:
            raise ServeOptionsError("--auth bearer needs --tokens FILE")
        return StaticTokenVerifier.from_file(auth.tokens_file, resource=auth.audience)
    from .jwt_tokens import JwtVerifier

    return JwtVerifier.from_options(auth)


def auth_middleware(verifier: TokenVerifier) -> list[Middleware]:
    """Authentication, then the verified user in a context variable (the SDK's order)."""
    from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
    from mcp.server.auth.middleware.bearer_auth import BearerAuthBackend
    from starlette.middleware import Middleware
    from starlette.middleware.authentication import AuthenticationMiddleware

    # The verifier checks the audience itself (JWT ``aud``): no resource_server_url here,
    # so an audience that is not a URL (some identity providers use ``api://...``) works.
    return [
        Middleware(AuthenticationMiddleware, backend=BearerAuthBackend(verifier)),
        Middleware(AuthContextMiddleware),
    ]


def metadata_url(auth: AuthOptions) -> Any:
    """Where the protected-resource metadata is (named in 401 answers), if it is served."""
    if auth.authorization_server is None or auth.audience is None:
        return None
    from mcp.server.auth.routes import build_resource_metadata_url
    from pydantic import AnyHttpUrl

    return build_resource_metadata_url(AnyHttpUrl(auth.audience))


def protect(endpoint: Any, auth: AuthOptions) -> Any:
    """``endpoint`` answering 401 to a request without a valid token."""
    from mcp.server.auth.middleware.bearer_auth import RequireAuthMiddleware

    return RequireAuthMiddleware(endpoint, [], metadata_url(auth))


def metadata_routes(
    auth: AuthOptions,
    served_paths: Iterable[str],
    scopes: Callable[[], Iterable[str]] = tuple,
) -> list[Route]:
    """RFC 9728 metadata at the well-known path, bare and suffixed with each served path.

    One document for every toolset: the resource is ``--audience`` (a client of
    ``/mcp/<name>`` accepts the metadata of the ``/mcp`` it is under). Nothing
    without ``--authorization-server``: the document must name one.
    ``scopes``: the scopes the served tools ask for, read at each request so
    ``scopes_supported`` follows reloads (left out when there are none).
    """
    url = metadata_url(auth)
    if url is None or auth.audience is None or auth.authorization_server is None:
        return []
    from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
    from mcp.server.auth.routes import cors_middleware
    from mcp.shared.auth import ProtectedResourceMetadata
    from starlette.routing import Route

    # Strings, not AnyHttpUrl: the metadata model keeps a URL without a path as written
    # (an issuer is compared as an exact string; AnyHttpUrl would add a "/").
    resource: Any = auth.audience
    server: Any = auth.authorization_server
    document = ProtectedResourceMetadata(
        resource=resource, authorization_servers=[server], resource_name="tooldeck"
    )

    async def metadata(request: Any) -> Any:
        listed = sorted(set(scopes()))
        current = document.model_copy(update={"scopes_supported": listed or None})
        return await ProtectedResourceMetadataHandler(current).handle(request)

    # The SDK's handler and CORS (create_protected_resource_routes makes the same), with
    # the document made at each request: scopes_supported follows reloads.
    endpoint = cors_middleware(metadata, ["GET", "OPTIONS"])
    paths = {urlparse(str(url)).path, WELL_KNOWN}
    paths.update(WELL_KNOWN + path for path in served_paths)
    return [Route(path, endpoint=endpoint, methods=["GET", "OPTIONS"]) for path in sorted(paths)]
