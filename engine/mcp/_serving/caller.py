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

__all__ = ["caller_identity", "identity_from_token"]


def identity_from_token(token: Any) -> AuthIdentity:
    """An :class:`AuthIdentity` from an ``mcp`` ``AccessToken`` a token verifier returned."""
    return AuthIdentity(
        subject=token.subject,
        client_id=token.client_id,
        scopes=frozenset(token.scopes),
        claims=dict(token.claims or {}),
    )


def caller_identity(ctx: Any) -> AuthIdentity | None:
    """The identity of the request behind ``ctx`` (a ``ServerRequestContext``), or ``None``."""
    scope = getattr(getattr(ctx, "request", None), "scope", None)
    if not isinstance(scope, dict):
        return None
    token = getattr(scope.get("user"), "access_token", None)
    if token is None:
        return None
    return identity_from_token(token)
