"""Who made an MCP request: the verified identity its HTTP request carried, if any.

``tooldeck serve --auth`` puts the ``mcp`` package's bearer middleware in front
of the app; it leaves an ``AuthenticatedUser`` (with the verified
``AccessToken``) in the ASGI scope of every authenticated request, and the
Streamable HTTP transport hands that request to the handler as ``ctx.request``.
Read per request, never per session: a session's next request may carry another
token. Stdio, and HTTP without authentication, have none.
"""

from __future__ import annotations

from typing import Any

from ..._identity import AuthIdentity

__all__ = ["caller_identity", "connection_of", "identity_from_token"]


def connection_of(session: Any) -> Any:
    """The ``Connection`` a request's session belongs to (the same for every request on it),
    or None.

    mcp 2.3 builds a ``ServerSession`` per request around one connection, and
    ``ServerRequestContext`` does not expose that connection; the session holds it.
    The one place tooldeck reaches for it: its ``exit_stack`` (per-connection teardown)
    and ``state`` (per-connection scratch) are what serving needs.
    """
    return getattr(session, "_connection", None)


def identity_from_token(token: Any) -> AuthIdentity:
    """An :class:`AuthIdentity` from an ``mcp`` ``AccessToken`` a token verifier returned.

    A verifier may hand back the same ``AccessToken`` for a client's next requests
    (the JWT verifier remembers verified tokens for a minute): its identity is then
    the same one too, made once (the identity is immutable, so sharing it is safe).
    """
    remembered = _IDENTITIES.get(id(token))
    if remembered is not None and remembered[0] is token:
        return remembered[1]
    identity = AuthIdentity(
        subject=token.subject,
        client_id=token.client_id,
        scopes=frozenset(token.scopes),
        claims=dict(token.claims or {}),
    )
    if len(_IDENTITIES) >= _REMEMBERED:
        _IDENTITIES.clear()
    _IDENTITIES[id(token)] = (token, identity)  # the token is held, so its id stays its own
    return identity


_REMEMBERED = 4096
_IDENTITIES: dict[int, tuple[Any, AuthIdentity]] = {}


def caller_identity(ctx: Any) -> AuthIdentity | None:
    """The identity of the request behind ``ctx`` (a ``ServerRequestContext``), or ``None``."""
    scope = getattr(getattr(ctx, "request", None), "scope", None)
    if not isinstance(scope, dict):
        return None
    token = getattr(scope.get("user"), "access_token", None)
    if token is None:
        return None
    return identity_from_token(token)
