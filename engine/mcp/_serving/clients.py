"""Who a request counts against: one key per client, shared by every limit.

With authentication the key is the verified principal (the token's issuer and
subject, else its client id), so a user who moves between addresses keeps one
budget and users behind one proxy address get one each. Without it, the key
is the client's address: an IPv4 address, or the /64 an IPv6 address belongs
to (one host usually holds a whole /64, so per-address keys would give it
2**64 budgets).
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Mapping
from typing import Any

__all__ = ["address_key", "client_address", "client_key"]


SCOPE_KEY = "tooldeck.client_key"
"""Where the first layer that needs the key leaves it in the ASGI scope for the next ones."""


def client_key(scope: Mapping[str, Any]) -> str:
    """The key every per-client limit counts ``scope``'s request against.

    Worked out once per request: the first caller stores it in ``scope``
    (:data:`SCOPE_KEY`), and the limits, the session tracker and the worker
    shares read it from there.
    """
    known = scope.get(SCOPE_KEY)
    if known is not None:
        return known  # type: ignore[no-any-return]
    key = _client_key(scope)
    if isinstance(scope, dict):
        scope[SCOPE_KEY] = key
    return key


def _client_key(scope: Mapping[str, Any]) -> str:
    token = getattr(scope.get("user"), "access_token", None)
    if token is not None:
        subject = getattr(token, "subject", None)
        if subject:
            claims = getattr(token, "claims", None)
            issuer = claims.get("iss") if isinstance(claims, Mapping) else None
            return f"subject:{issuer or ''} {subject}"
        client_id = getattr(token, "client_id", None)
        if client_id:
            return f"client:{client_id}"
    return f"address:{client_address(scope)}"


def client_address(scope: Mapping[str, Any]) -> str:
    """The peer address of ``scope`` (an IPv6 one as its /64); ``unknown`` on a Unix socket."""
    client = scope.get("client")
    if not client:
        return "unknown"
    return address_key(str(client[0]))


@functools.lru_cache(maxsize=4096)  # parsed once per address seen lately, not per request
def address_key(host: str) -> str:
    """``host`` as per-address limits count it: IPv4 as is, IPv6 as its /64."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        if not address.is_loopback:
            return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)
