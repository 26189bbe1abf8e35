"""Who is calling: the verified identity a server or an application passes to a call.

An :class:`AuthIdentity` never comes from the model. ``tooldeck serve --auth``
builds one from a verified bearer token; an application that runs the loop for
a signed-in user builds one from its own session and passes it as ``auth=``.
Handlers read it from :attr:`ToolContext.auth`; parameters declared
``from_auth:`` are filled from it; tools that declare ``auth: {scopes: [...]}``
are listed and run only for an identity that carries every scope.

No identity at all (``None``: stdio, ``--auth none``, a call without ``auth=``)
means nobody was authenticated, by the operator's choice: scopes are not checked
then (``tooldeck lint`` warns when tools that declare scopes are served that way),
but a ``from_auth:`` parameter has nothing to be filled from and the call is refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = ["SUBJECT", "AuthIdentity", "missing_scopes"]

SUBJECT = "subject"
"""The ``from_auth:`` name that means the identity's subject rather than a claim."""

_NO_CLAIMS: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class AuthIdentity:
    """A verified caller: subject, OAuth client id, granted scopes and token claims."""

    subject: str | None = None
    """Who the token speaks for (``sub``); for a static token, its ``subject`` entry."""
    client_id: str | None = None
    """The OAuth client the token was issued to (``client_id``/``azp``), when known."""
    scopes: frozenset[str] = frozenset()
    claims: Mapping[str, Any] = field(default_factory=lambda: _NO_CLAIMS)
    """The token's other claims (``email``, ``tenant``, ...), read-only."""

    def __post_init__(self) -> None:
        # Frozen, and shared between concurrent calls: keep callers from editing either.
        object.__setattr__(self, "scopes", frozenset(self.scopes))  # a list given stays a set
        if not isinstance(self.claims, MappingProxyType):
            object.__setattr__(self, "claims", MappingProxyType(dict(self.claims)))

    def value(self, name: str) -> Any:
        """What ``from_auth: name`` binds: the subject for ``subject``, else that claim.

        ``None`` when the token does not carry it (a claim that is JSON ``null``
        counts as missing too: a bound parameter never receives a null identity).
        """
        if name == SUBJECT:
            return self.subject
        return self.claims.get(name)


def missing_scopes(required: Iterable[str], identity: AuthIdentity | None) -> tuple[str, ...]:
    """The scopes in ``required`` that ``identity`` lacks; empty when it may use the tool.

    ``None`` (nobody authenticated: the operator serves without authentication)
    lacks nothing: see the module docstring.
    """
    if identity is None:
        return ()
    return tuple(scope for scope in required if scope not in identity.scopes)
