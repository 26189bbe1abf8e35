"""``--auth jwt``: access tokens signed by an authorization server, checked with PyJWT.

The signature is checked against one PEM public key (``--jwt-public-key``) or
the keys an authorization server publishes (``--jwks-url``, read with
``jwt.PyJWKClient``); ``iss`` must be ``--issuer`` when given, ``aud`` must name
``--audience`` (this server's resource URL, so a token issued for another
service is refused), ``exp`` is required and ``exp``/``nbf`` get ``leeway``
seconds of clock skew.

Algorithm confusion is closed twice: the allow-list never holds ``none`` or an
HMAC algorithm (:func:`check_algorithms`, at startup), and each key is used only
with the algorithms of its own type (an RSA key with ``RS*``/``PS*``, an EC key
with its curve's ``ES*``), so a token whose header says ``HS256`` and that was
"signed" with the public key's bytes has no algorithm to be checked with.

Keys from a JWKS: cached (``jwks_cache_seconds``); a token with a ``kid`` the
cache does not hold makes one refetch, but never sooner than ``refetch_floor``
seconds after the previous one, so a flood of tokens with random ``kid`` values
reaches the JWKS server at most once per floor. Fetching runs in a worker
thread with a timeout: the event loop never waits on the network.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jwt
from jwt.algorithms import get_default_algorithms
from mcp.server.auth.provider import AccessToken

from .options import AuthOptions, ServeOptionsError

__all__ = [
    "ASYMMETRIC_ALGORITHMS",
    "JwksKeys",
    "JwtVerifier",
    "check_algorithms",
    "load_public_key",
]

logger = logging.getLogger(__name__)

ASYMMETRIC_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES256K", "ES384", "ES512"}
    | {"EdDSA"}
)
"""The algorithms ``--jwt-algorithm`` accepts: public-key signatures only."""

_RSA = frozenset({"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"})


def check_algorithms(algorithms: Sequence[str]) -> None:
    """Refuse an allow-list with ``none``, an HMAC algorithm or a name PyJWT does not know."""
    if not algorithms:
        raise ServeOptionsError("--jwt-algorithm: at least one algorithm is needed")
    for name in algorithms:
        if name.lower() == "none":
            raise ServeOptionsError("--jwt-algorithm none is refused: it accepts unsigned tokens")
        if name.upper().startswith("HS"):
            raise ServeOptionsError(
                f"--jwt-algorithm {name} is refused: an HMAC algorithm checks a shared "
                "secret, and with a public key anyone could sign tokens; use the server's "
                "public-key algorithm (RS256, ES256, EdDSA, ...)"
            )
        if name not in ASYMMETRIC_ALGORITHMS:
            raise ServeOptionsError(
                f"--jwt-algorithm {name}: unknown; "
                f"one of {', '.join(sorted(ASYMMETRIC_ALGORITHMS))}"
            )


def load_public_key(path: Path, algorithms: Sequence[str]) -> dict[str, Any]:
    """The PEM public key at ``path``, prepared for each of ``algorithms`` that fits its type.

    PyJWT's own algorithm objects load the key (an RSA key fits ``RS*``/``PS*``,
    an EC key ``ES*``, an Ed25519/Ed448 key ``EdDSA``); raises
    :class:`ServeOptionsError` for anything else, a private key included.
    """
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ServeOptionsError(f"--jwt-public-key: cannot read {path}: {exc.strerror}") from None
    if b"PRIVATE KEY" in data or b"PUBLIC KEY-----" not in data:
        raise ServeOptionsError(
            f"--jwt-public-key: {path} is not a PEM public key (-----BEGIN PUBLIC KEY-----); "
            "give the server the public half only"
        )
    known = get_default_algorithms()
    prepared: dict[str, Any] = {}
    for name in algorithms:
        try:
            prepared[name] = known[name].prepare_key(data)
        except (KeyError, jwt.PyJWTError, ValueError, TypeError):
            continue  # another key type (or curve) than this algorithm's
    if not prepared:
        raise ServeOptionsError(
            f"--jwt-public-key: {path} cannot check any of the algorithms "
            f"{', '.join(algorithms)} (pass --jwt-algorithm for its key type)"
        )
    return prepared


def _jwk_algorithms(found: jwt.PyJWK) -> frozenset[str]:
    """The algorithms a key from a JWKS checks: its ``alg`` (PyJWK infers one from the key
    type when the JWK names none), every RSA one for an RSA key."""
    name = found.algorithm_name
    return _RSA if name in _RSA else frozenset({name})


class JwksKeys:
    """The signing keys of a JWKS URL: ``jwt.PyJWKClient``, with a floor between refetches.

    PyJWKClient caches the key set; for an unknown ``kid`` its own lookup
    refetches at once (older releases) or after a cooldown that also follows
    every ordinary fetch (newer ones). The floor here is the same in every
    release: a refetch for an unknown ``kid`` at most once per ``refetch_floor``
    seconds, whatever the tokens presented.
    """

    def __init__(
        self,
        url: str,
        *,
        cache_seconds: float = 300.0,
        refetch_floor: float = 10.0,
        timeout: float = 10.0,
    ) -> None:
        # Whole seconds: PyJWT 2.10 declares both as int (later releases take a float).
        self.client = jwt.PyJWKClient(
            url,
            cache_jwk_set=True,
            lifespan=max(1, math.ceil(cache_seconds)),
            timeout=max(1, math.ceil(timeout)),
        )
        self.refetch_floor = refetch_floor
        self.timeout = timeout
        self._last_refetch: float | None = None
        self._lock = asyncio.Lock()

    async def key(self, kid: str) -> jwt.PyJWK | None:
        """The signing key ``kid`` names, or ``None`` (unknown, or the server unreachable)."""
        async with self._lock:  # one fetch at a time; waiters then find the cache filled
            try:
                found = await self._in_thread(self._cached, kid)
                if found is not None:
                    return found
                now = time.monotonic()
                if self._last_refetch is not None and now - self._last_refetch < self.refetch_floor:
                    return None
                self._last_refetch = now
                return await self._in_thread(self._refetched, kid)
            except (jwt.PyJWKClientError, jwt.PyJWTError, TimeoutError) as exc:
                logger.warning("JWKS %s: %s", self.client.uri, exc)
                return None

    async def _in_thread(self, function: Any, kid: str) -> jwt.PyJWK | None:
        result: jwt.PyJWK | None = await asyncio.wait_for(
            asyncio.to_thread(function, kid), timeout=self.timeout + 1
        )
        return result

    def _cached(self, kid: str) -> jwt.PyJWK | None:
        return self.client.match_kid(self.client.get_signing_keys(), kid)

    def _refetched(self, kid: str) -> jwt.PyJWK | None:
        return self.client.match_kid(self.client.get_signing_keys(refresh=True), kid)


class JwtVerifier:
    """An ``mcp`` ``TokenVerifier`` for JWT access tokens (see the module docstring)."""

    def __init__(
        self,
        *,
        audience: str,
        issuer: str | None = None,
        algorithms: Sequence[str] = ("RS256",),
        leeway: float = 30.0,
        public_key: dict[str, Any] | None = None,
        jwks: JwksKeys | None = None,
    ) -> None:
        check_algorithms(algorithms)
        if (not public_key) == (jwks is None):
            raise ServeOptionsError("--auth jwt needs one of --jwt-public-key or --jwks-url")
        self.audience = audience
        self.issuer = issuer
        self.algorithms = tuple(algorithms)
        self.leeway = leeway
        self.public_key: dict[str, Any] = public_key or {}
        self.jwks = jwks
        self._verified = _VerifiedTokens()

    @classmethod
    def from_options(cls, auth: AuthOptions) -> JwtVerifier:
        if auth.audience is None:
            raise ServeOptionsError("--auth jwt needs --audience (this server's resource URL)")
        return cls(
            audience=auth.audience,
            issuer=auth.issuer,
            algorithms=auth.algorithms,
            leeway=auth.leeway,
            public_key=load_public_key(auth.jwt_public_key, auth.algorithms)
            if auth.jwt_public_key
            else None,
            jwks=JwksKeys(
                auth.jwks_url,
                cache_seconds=auth.jwks_cache_seconds,
                refetch_floor=auth.jwks_refetch_floor,
            )
            if auth.jwks_url
            else None,
        )

    async def _key(self, header: dict[str, Any]) -> tuple[Any, list[str]]:
        """The key to check the token with and the algorithms of the allow-list it fits."""
        alg = header.get("alg")
        if not isinstance(alg, str) or alg not in self.algorithms:
            return None, []  # `none`, HS256 and the like never reach a key
        if self.jwks is None:
            return self.public_key.get(alg), [alg]
        kid = header.get("kid")
        if not isinstance(kid, str) or not kid:
            return None, []
        found = await self.jwks.key(kid)
        if found is None or alg not in _jwk_algorithms(found):
            return None, []
        return found.key, [alg]

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's access, verified now or (the same token) within the last minute."""
        digest = hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()
        cached = self._verified.get(digest)
        if cached is not None:
            return cached
        verified = await self._verify(token)
        if verified is not None:
            self._verified.put(digest, verified)
        return verified

    async def _verify(self, token: str) -> AccessToken | None:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            return None
        key, algorithms = await self._key(header)
        if key is None:
            return None
        try:
            claims = jwt.decode(
                token,
                key=key,
                algorithms=algorithms,
                audience=self.audience,
                issuer=self.issuer,
                leeway=self.leeway,
                options={"require": ["exp", "aud"] + (["iss"] if self.issuer else [])},
            )
        except (jwt.PyJWTError, ValueError, TypeError):
            return None
        return _access_token(token, claims, self.audience, self.leeway)


class _VerifiedTokens:
    """Tokens verified lately, so a client's next request skips the signature check.

    A client sends the same token with every request, and checking an RSA
    signature is the largest cost of an authenticated call. An entry is kept
    for at most :data:`VERIFIED_SECONDS` and never past the token's ``exp`` (with
    the leeway): a key withdrawn from the JWKS stops a token within that minute.
    Keyed by the token's SHA-256, at most :data:`VERIFIED_TOKENS` entries (the
    oldest go first), and only tokens that passed: a flood of bad tokens caches
    nothing.
    """

    def __init__(self) -> None:
        self._entries: OrderedDict[bytes, tuple[float, AccessToken]] = OrderedDict()

    def get(self, digest: bytes) -> AccessToken | None:
        found = self._entries.get(digest)
        if found is None:
            return None
        until, access = found
        if time.time() >= until:
            del self._entries[digest]
            return None
        return access

    def put(self, digest: bytes, access: AccessToken) -> None:
        until = time.time() + VERIFIED_SECONDS
        if access.expires_at is not None:
            until = min(until, float(access.expires_at))
        self._entries[digest] = (until, access)
        self._entries.move_to_end(digest)
        while len(self._entries) > VERIFIED_TOKENS:
            self._entries.popitem(last=False)


VERIFIED_SECONDS = 60.0
"""How long a verified token is taken as verified without checking its signature again."""
VERIFIED_TOKENS = 4096
"""How many verified tokens are remembered (per server)."""


def _access_token(
    token: str, claims: dict[str, Any], audience: str, leeway: float
) -> AccessToken | None:
    subject = claims.get("sub")
    client_id = claims.get("client_id", claims.get("azp", subject))
    scopes = _scopes(claims)
    if (
        scopes is None
        or not isinstance(client_id, str | None)
        or not isinstance(subject, str | None)
    ):
        return None
    exp = claims.get("exp")
    return AccessToken(
        token=token,
        client_id=client_id or "",
        scopes=scopes,
        # the bearer middleware refuses a token past expires_at, without leeway: add it
        expires_at=int(exp + leeway) if isinstance(exp, int | float) else None,
        resource=audience,
        subject=subject,
        claims=claims,
    )


def _scopes(claims: dict[str, Any]) -> list[str] | None:
    """``scope`` (space-separated, RFC 8693/9068) or ``scp`` (a list); ``None`` if malformed."""
    if "scope" in claims:
        scope = claims["scope"]
        return scope.split() if isinstance(scope, str) else None
    scp = claims.get("scp", [])
    if isinstance(scp, str):
        return scp.split()
    if isinstance(scp, list) and all(isinstance(item, str) for item in scp):
        return list(scp)
    return None
