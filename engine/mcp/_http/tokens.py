"""``--auth bearer``: static tokens, known to the server only by their SHA-256 digest.

The tokens file (``--tokens FILE``) is a YAML list of entries::

    - sha256: 3f1c...        # hex digest of the token (``tooldeck serve --hash-token``)
      subject: ci-bot        # who the token speaks for (AuthIdentity.subject)
      client_id: ci          # optional; defaults to the subject
      scopes: [tooldeck:side-effects, tickets:write]
      claims: {tenant: acme}  # optional; what from_auth: parameters read

It never holds a token in clear: an entry with a ``token:`` key is refused, so a
leaked file (a backup, a repository) gives nobody a working token. A presented
token is hashed and looked up by digest: the lookup compares digests of a
secret, never the secret itself, so its timing tells an attacker nothing that
helps forge a token (and :func:`hmac.compare_digest` confirms the match).

A malformed file is refused at startup (:class:`ServeOptionsError`, with
``file:line``), read through the project's hardened YAML reader.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mcp.server.auth.provider import AccessToken

from .options import ServeOptionsError

__all__ = [
    "MIN_TOKEN_LENGTH",
    "StaticTokenVerifier",
    "TokenEntry",
    "hash_token",
    "load_tokens",
    "new_token",
    "token_entry_yaml",
]

MIN_TOKEN_LENGTH = 16
"""Shorter tokens are refused by ``--hash-token``: a static token must not be guessable."""

_HEX = re.compile(r"[0-9a-f]{64}")
_KEYS = frozenset({"sha256", "subject", "client_id", "scopes", "claims"})


@dataclass(frozen=True)
class TokenEntry:
    """One accepted token: its digest and the identity it carries."""

    sha256: str
    subject: str
    client_id: str
    scopes: tuple[str, ...] = ()
    claims: Mapping[str, Any] = field(default_factory=dict)


def hash_token(token: str) -> str:
    """The hex SHA-256 digest of ``token`` (UTF-8), as the tokens file holds it."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh random token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def token_entry_yaml(token: str) -> str:
    """The tokens-file entry for ``token``: its digest, with a subject and scopes to fill in."""
    return (
        f"- sha256: {hash_token(token)}\n"
        "  subject: CHANGE-ME      # who this token speaks for\n"
        "  scopes: []              # e.g. [tooldeck:side-effects]\n"
    )


def load_tokens(path: Path) -> dict[str, TokenEntry]:
    """The entries of the tokens file at ``path``, keyed by digest.

    Raises :class:`ServeOptionsError` naming ``file:line`` for anything malformed.
    """
    from ..._yaml import read_yaml

    doc = read_yaml(path)
    if doc.diagnostics:
        raise ServeOptionsError(f"--tokens: {doc.diagnostics[0].format()}")
    data = doc.data

    def fail(where: tuple[str | int, ...], message: str, key: bool = False) -> ServeOptionsError:
        return ServeOptionsError(f"--tokens: {doc.locate(where, key=key)}: {message}")

    if not isinstance(data, list) or not data:
        raise fail((), "expected a non-empty list of entries `- sha256: ...`")
    entries: dict[str, TokenEntry] = {}
    for index, item in enumerate(data):
        at: tuple[str | int, ...] = (index,)
        if not isinstance(item, dict):
            raise fail(at, "each entry is a mapping with sha256, subject and scopes")
        if "token" in item:
            raise fail(
                (*at, "token"),
                "a token in clear is refused: store its SHA-256 digest as `sha256:` "
                "(`tooldeck serve --hash-token` prints the entry) and give the token to "
                "the client only",
                key=True,
            )
        unknown = sorted(set(item) - _KEYS)
        if unknown:
            known = ", ".join(sorted(_KEYS))
            raise fail((*at, unknown[0]), f"unknown key {unknown[0]!r}; known: {known}", key=True)
        digest = item.get("sha256")
        if not isinstance(digest, str) or not _HEX.fullmatch(digest.lower()):
            raise fail((*at, "sha256"), "sha256 must be 64 hexadecimal digits")
        subject = item.get("subject")
        if not isinstance(subject, str) or not subject:
            raise fail((*at, "subject"), "subject (a non-empty string) is required")
        client_id = item.get("client_id", subject)
        if not isinstance(client_id, str) or not client_id:
            raise fail((*at, "client_id"), "client_id must be a non-empty string")
        scopes = item.get("scopes", [])
        if not isinstance(scopes, list) or not all(isinstance(s, str) and s for s in scopes):
            raise fail((*at, "scopes"), "scopes must be a list of strings")
        claims = item.get("claims", {})
        if not isinstance(claims, dict):
            raise fail((*at, "claims"), "claims must be a mapping")
        digest = digest.lower()
        if digest in entries:
            raise fail((*at, "sha256"), "this digest is listed twice")
        entries[digest] = TokenEntry(digest, subject, client_id, tuple(scopes), dict(claims))
    return entries


class StaticTokenVerifier:
    """An ``mcp`` ``TokenVerifier`` for the tokens of a tokens file."""

    def __init__(self, entries: Mapping[str, TokenEntry], *, resource: str | None = None) -> None:
        self._entries = dict(entries)
        self._resource = resource

    @classmethod
    def from_file(cls, path: Path, *, resource: str | None = None) -> StaticTokenVerifier:
        return cls(load_tokens(path), resource=resource)

    def __len__(self) -> int:
        return len(self._entries)

    async def verify_token(self, token: str) -> AccessToken | None:
        digest = hash_token(token)
        entry = self._entries.get(digest)
        if entry is None or not hmac.compare_digest(entry.sha256, digest):
            return None
        return AccessToken(
            token=token,
            client_id=entry.client_id,
            scopes=list(entry.scopes),
            subject=entry.subject,
            claims=dict(entry.claims),
            resource=self._resource,
        )
